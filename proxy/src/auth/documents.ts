/**
 * The OAuth documents gatehouse reads from other parties or serves, one schema each, named after
 * their specs. What others send is read tolerantly: the members gatehouse relies on are checked,
 * unknown ones are kept (and passed through where the document is passed on).
 */
import { z } from 'zod'

/**
 * An identity provider's OpenID Connect discovery document (OpenID Connect Discovery 1.0 §3).
 * Only `issuer` is required here; §4.3's issuer comparison is done by the caller, which knows
 * which issuer it asked for.
 */
export const OidcDiscoverySchema = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string().optional(),
  token_endpoint: z.string().optional(),
  jwks_uri: z.string().optional(),
  registration_endpoint: z.string().optional(),
  scopes_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
})
/** A validated discovery document, unknown members included. */
export type OidcDiscovery = z.infer<typeof OidcDiscoverySchema>

/**
 * The authorization-server metadata gatehouse serves for a bridged IdP (RFC 8414 §2): the IdP's
 * discovery document with the members gatehouse rewrites.
 */
export type AuthorizationServerMetadata = OidcDiscovery & {
  jwks_uri: string
  registration_endpoint?: string
}

/**
 * Client metadata in a Dynamic Client Registration request (RFC 7591 §2, §3.1), as MCP clients
 * send it. Unknown members are kept (and forwarded when registration is proxied).
 */
export const ClientRegistrationSchema = z.looseObject({
  redirect_uris: z.array(z.string()).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  token_endpoint_auth_method: z.string().optional(),
  client_name: z.string().optional(),
  client_uri: z.string().optional(),
  logo_uri: z.string().optional(),
  scope: z.string().optional(),
  contacts: z.array(z.string()).optional(),
  software_id: z.string().optional(),
  software_version: z.string().optional(),
})
/** A validated registration request. */
export type ClientRegistration = z.infer<typeof ClientRegistrationSchema>

/** The protected-resource metadata gatehouse serves (RFC 9728 §2). */
export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers: string[]
  scopes_supported?: string[]
  bearer_methods_supported: string[]
  resource_name?: string
  resource_documentation?: string
}

/** The first problem zod found, as `member: message` for an error description. */
export function firstIssue(error: z.ZodError): { member: string; message: string } {
  const issue = error.issues[0]
  const member = issue?.path.map(String).join('.') || '(document)'
  return { member, message: issue?.message ?? 'invalid' }
}
