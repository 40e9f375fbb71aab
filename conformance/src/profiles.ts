/**
 * Target profiles: what a target offers, chosen with `--profile`, each selecting requirements of
 * the catalogue. A resource server built with another framework is judged on the MCP
 * authorization duties every resource server has (`resource-server`, the default of `--target`);
 * gatehouse's own features — a proxy in front of the harness's backend, the bridged IdP, the
 * seed's CORS filter, the MCP policy, the admin interface, broker mode — are profiles a target
 * claims (docs/peers.md, item 7). The catalogue's own profiles (core, bridged-idp, …) remain names
 * `--profile` accepts.
 */
import { PROFILES, type Profile, type Requirement } from './types.js'

/** The target profiles, in help order. */
export const TARGET_PROFILES = [
  'resource-server',
  'gateway',
  'bridged',
  'broker',
  'seed-cors',
  'mcp-policy',
  'admin',
  'tls',
] as const
/** One of {@link TARGET_PROFILES}. */
export type TargetProfile = (typeof TARGET_PROFILES)[number]

/** What each target profile is and which requirements it selects. */
export const TARGET_PROFILE: Record<
  TargetProfile,
  { what: string; selects(r: Requirement): boolean }
> = {
  'resource-server': {
    what: 'the MCP authorization duties any resource server has (401 + resource_metadata, token validation, protected-resource metadata, no token in the query)',
    selects: (r) => r.resourceServer === true,
  },
  gateway: {
    what: "a gateway in front of the harness's MCP backend: the seed's 401/403 and rules, forwarding, no token passthrough, Streamable HTTP through it",
    selects: (r) => r.profile === 'core' || r.profile === 'transport',
  },
  bridged: {
    what: "the seed's BridgedIdp: authorization-server metadata and registration at the gateway, the whole flow",
    selects: (r) => r.profile === 'bridged-idp' || r.profile === 'flow',
  },
  broker: {
    what: 'broker mode: the gateway is the authorization server of its clients (BRK-*)',
    selects: (r) => r.profile === 'broker',
  },
  'seed-cors': {
    what: "the seed's CORS filter on the MCP paths",
    selects: (r) => r.profile === 'cors',
  },
  'mcp-policy': {
    what: 'policy on MCP messages: tools allowed per user, rate limits, Mcp-Name',
    selects: (r) => r.profile === 'mcp-policy',
  },
  admin: {
    what: 'the admin interface (--admin)',
    selects: (r) => r.profile === 'admin',
  },
  tls: {
    what: 'an HTTPS listener: TLS 1.2, never TLS 1.0 or 1.1, the certificate chosen by SNI (--target https://… --ca <pem>)',
    selects: (r) => r.profile === 'tls',
  },
}

/** Every name `--profile` accepts: the target profiles, then the catalogue's own. */
export const PROFILE_NAMES: readonly string[] = [
  ...TARGET_PROFILES,
  ...PROFILES.filter((p) => !(TARGET_PROFILES as readonly string[]).includes(p)),
]

/**
 * The selection of `--profile` names (target or catalogue profiles, any mix): a requirement is
 * selected when any named profile selects it.
 * @throws Error naming the unknown profile and the known ones.
 */
export function selectProfiles(names: readonly string[]): (r: Requirement) => boolean {
  const selectors = names.map((name) => {
    if (name in TARGET_PROFILE) return TARGET_PROFILE[name as TargetProfile].selects
    if ((PROFILES as readonly string[]).includes(name))
      return (r: Requirement) => r.profile === (name as Profile)
    throw new Error(`unknown profile "${name}"; profiles are ${PROFILE_NAMES.join(', ')}`)
  })
  return (r) => selectors.some((s) => s(r))
}
