/**
 * Profile `bridged-idp`, MCP authorization 2025-11-25: what a strict 2025-11-25 client does with
 * the gateway's authorization-server metadata — finds it in the spec's discovery order, compares
 * its `issuer` with the identifier it derived the URL from (RFC 8414 §3.3), refuses to go on
 * without S256 PKCE, and sends its RFC 8707 `resource` on the authorization request.
 */
import { randomBytes } from 'node:crypto'
import { asMetadataCandidates, s256 } from '../client/flow.js'
import { type CheckContext, CheckSkipped, must, type Requirement } from '../types.js'
import { metadata } from './bridged.js'
import { canonicalJson, prmDocument, reachable } from './util.js'

const MCP = 'MCP authorization 2025-11-25'

/** The authorization-server identifier the protected-resource metadata names (the first). */
async function namedAuthorizationServer(ctx: CheckContext): Promise<string> {
  const servers = (await prmDocument(ctx)).authorization_servers
  const first = Array.isArray(servers) ? servers[0] : undefined
  must(
    typeof first === 'string',
    'authorization_servers[0] in the metadata',
    JSON.stringify(servers),
  )
  return first
}

/** The members a client acts on, to compare documents served at several URLs. */
const ACTED_ON = ['issuer', 'authorization_endpoint', 'token_endpoint', 'registration_endpoint']

/** Profile `bridged-idp`: the gateway's metadata as MCP 2025-11-25 clients use it. */
export const asDiscovery: Requirement[] = [
  {
    id: 'ASM-006',
    level: 'MUST',
    quote: `The "issuer" value returned MUST be identical to the authorization server's issuer identifier value into which the well-known URI string was inserted to create the URL used to retrieve the metadata.`,
    profile: 'bridged-idp',
    source: 'RFC 8414 §3.3 (issuer identical to the identifier the metadata URL was built from)',
    text: "When the metadata's issuer is not the provider's (the gateway names itself, gatehouse's issuerMode: Gateway), it is exactly the authorization-server identifier of the protected-resource metadata, from which the metadata URL was derived.",
    async check(ctx) {
      const doc = await metadata(ctx)
      if (doc.issuer === ctx.target.idp.issuer)
        throw new CheckSkipped(
          "the metadata names the provider's issuer (the seed's default; ASM-007)",
        )
      const named = await namedAuthorizationServer(ctx)
      must(doc.issuer === named, `issuer "${named}"`, `issuer "${doc.issuer}"`)
    },
  },
  {
    id: 'ASM-007',
    level: 'SHOULD',
    levelNote:
      "below the quote's MUST: the seed (the product spec) makes the provider's issuer the default, so a seed-conformant gateway gets a warning here, not a failure; ASM-006 is the MUST once the gateway names itself",
    quote:
      'If these values are not identical, the data contained in the response MUST NOT be used.',
    profile: 'bridged-idp',
    source: `RFC 8414 §3.3; ${MCP} "Authorization Server Metadata Discovery" (clients validate the metadata per RFC 8414); seed: Endpoints (issuer is the provider's — the default this flags)`,
    text: "The metadata's issuer is the authorization-server identifier clients derived its URL from, so a strict client accepts it: the seed's default, the provider's issuer, is rejected by RFC 8414 §3.3 clients (gatehouse: issuerMode: Gateway).",
    async check(ctx) {
      const doc = await metadata(ctx)
      const named = await namedAuthorizationServer(ctx)
      must(
        doc.issuer === named,
        `issuer "${named}"`,
        doc.issuer === ctx.target.idp.issuer
          ? `the provider's issuer "${doc.issuer}" (the seed's default)`
          : `issuer "${doc.issuer}"`,
      )
    },
  },
  {
    id: 'ASM-008',
    level: 'MUST',
    quote:
      'Authorization servers providing OpenID Connect Discovery 1.0 MUST include code_challenge_methods_supported in their metadata to ensure MCP compatibility.',
    profile: 'bridged-idp',
    source: `${MCP} "Authorization Code Protection" (without code_challenge_methods_supported clients MUST refuse to proceed; S256); OAuth 2.1 §4.1.1`,
    text: 'The metadata advertises PKCE: code_challenge_methods_supported contains "S256".',
    async check(ctx) {
      const doc = (await metadata(ctx)) as Record<string, unknown>
      const methods = doc.code_challenge_methods_supported
      must(
        Array.isArray(methods) && methods.includes('S256'),
        'code_challenge_methods_supported containing "S256"',
        JSON.stringify(methods),
      )
    },
  },
  {
    id: 'ASM-009',
    level: 'MUST',
    quote: 'Request and response parameters MUST NOT be included more than once.',
    profile: 'bridged-idp',
    source: `RFC 8707 §2; ${MCP} "Resource Parameter Implementation"; RFC 6749 §3.1 (the endpoint's query is kept, no parameter twice)`,
    text: "An authorization request built from the metadata as a 2025-11-25 client builds it reaches the provider with the client's resource parameter once and unchanged, through any redirect of the gateway's.",
    async check(ctx) {
      const doc = await metadata(ctx)
      const resource = (await prmDocument(ctx)).resource
      must(
        typeof resource === 'string',
        'resource in the protected-resource metadata',
        String(resource),
      )
      must(typeof doc.authorization_endpoint === 'string', 'an authorization_endpoint', 'none')
      const verifier = randomBytes(32).toString('base64url')
      let url = new URL(reachable(ctx, doc.authorization_endpoint))
      const add = {
        response_type: 'code',
        client_id: 'gatehouse-demo-client',
        redirect_uri: 'http://127.0.0.1:33418/callback',
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
        state: randomBytes(16).toString('base64url'),
        scope: 'openid profile',
        resource,
      }
      for (const [k, v] of Object.entries(add)) url.searchParams.append(k, v)
      const idpOrigin = new URL(ctx.target.idp.orgUrl).origin
      await ctx.target.idp.control.clearRequests()
      // Follow the gateway's redirects (if its endpoint is its own) until the request is at the IdP.
      for (let hop = 0; hop < 5; hop++) {
        const res = await ctx.http(url.toString(), { redirect: 'manual' })
        const location = res.headers.get('location')
        if (url.origin === idpOrigin || res.status < 300 || res.status > 399 || !location) break
        url = new URL(reachable(ctx, new URL(location, url).toString()))
      }
      const authorizePath = new URL(`${ctx.target.idp.issuer}/v1/authorize`).pathname
      const seen = (await ctx.target.idp.control.requests()).filter((r) => r.path === authorizePath)
      must(
        seen.length > 0,
        `the authorization request at the provider (${authorizePath})`,
        'it never arrived',
      )
      const got = new URLSearchParams(seen[0]?.query).getAll('resource')
      must(
        got.length === 1 && got[0] === resource,
        `resource=${resource} (once)`,
        got.length ? got.map((r) => `resource=${r}`).join(' & ') : 'no resource parameter',
      )
    },
  },
  {
    id: 'ASM-010',
    level: 'MUST',
    quote:
      'MCP authorization servers MUST provide at least one of the following discovery mechanisms:',
    profile: 'bridged-idp',
    source: `${MCP} "Authorization Server Metadata Discovery" (RFC 8414 path insertion, OIDC path insertion, OIDC path appending, in that order); RFC 8414 §3.1, §5`,
    text: "Trying the well-known URLs of the protected-resource metadata's authorization server in the 2025-11-25 order, a client gets the gateway's metadata: the forms before it answer 4xx (so the client moves on), the first 200 is the metadata, and every form that answers 200 serves the same one.",
    async check(ctx) {
      const named = await namedAuthorizationServer(ctx)
      if (!named.startsWith(ctx.target.configuredBase))
        throw new CheckSkipped(`the authorization server ${named} is not at the gateway`)
      const answers: Array<{ url: string; status: number; doc?: Record<string, unknown> }> = []
      for (const url of asMetadataCandidates(named)) {
        const res = await ctx.http(reachable(ctx, url))
        let doc: Record<string, unknown> | undefined
        try {
          const parsed: unknown = res.json()
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
            doc = parsed as Record<string, unknown>
        } catch {}
        answers.push({ url, status: res.status, ...(doc ? { doc } : {}) })
      }
      const list = answers.map((a) => `${a.url} → ${a.status}`).join('; ')
      const first = answers.findIndex((a) => a.status === 200)
      must(first >= 0, 'a 200 at one of the URLs', list)
      for (const a of answers.slice(0, first))
        must(a.status >= 400 && a.status < 500, `4xx at ${a.url} (the client moves on)`, list)
      const doc = answers[first]?.doc
      must(
        typeof doc?.authorization_endpoint === 'string' && typeof doc.token_endpoint === 'string',
        `authorization-server metadata at ${answers[first]?.url}`,
        JSON.stringify(doc) ?? 'not a JSON object',
      )
      const pick = (d: Record<string, unknown> | undefined) =>
        canonicalJson(Object.fromEntries(ACTED_ON.map((k) => [k, d?.[k] ?? null])))
      for (const a of answers.slice(first + 1).filter((x) => x.status === 200))
        must(pick(a.doc) === pick(doc), `the same metadata at ${a.url}`, pick(a.doc))
    },
  },
]
