/**
 * The MCP 2026-07-28 authorization chapter's rules on a resource server and on an authorization
 * server (the gateway in broker mode) that earlier revisions did not state: no `offline_access`
 * among the resource's scopes (SEP-2207) and the RFC 9207 `iss` advertisement. Each follows
 * 2026-07-28 only (`specVersions`).
 */
import type { SpecRevision } from '../spec-version.js'
import { must, type Requirement } from '../types.js'
import { brokerMetadata } from './broker.js'
import { challengeParams, postMcp, prmDocument } from './util.js'

const MCP_AUTH26 = 'MCP 2026-07-28 Authorization'
const ONLY_2026: readonly SpecRevision[] = ['2026-07-28']

/** Requirements of the 2026-07-28 authorization chapter. */
export const authorization2026: Requirement[] = [
  {
    id: 'PRM-007',
    level: 'SHOULD',
    profile: 'core',
    resourceServer: true,
    specVersions: ONLY_2026,
    source: `${MCP_AUTH26} §Refresh Tokens (SEP-2207)`,
    quote:
      'MCP Servers (Protected Resources) SHOULD NOT include offline_access in WWW-Authenticate scope or Protected Resource Metadata scopes_supported, as refresh tokens are not a resource requirement.',
    text: 'Neither the protected-resource metadata scopes_supported nor the scope of the 401 challenge names offline_access.',
    async check(ctx) {
      const doc = await prmDocument(ctx)
      const supported = Array.isArray(doc.scopes_supported) ? doc.scopes_supported : []
      must(
        !supported.includes('offline_access'),
        'scopes_supported without offline_access',
        JSON.stringify(supported),
      )
      const challenge = challengeParams((await postMcp(ctx)).headers.get('www-authenticate'))
      const scope = (challenge?.scope ?? '').split(' ')
      must(
        !scope.includes('offline_access'),
        'a 401 challenge whose scope leaves out offline_access',
        challenge?.scope ?? '(no scope)',
      )
    },
  },
  {
    id: 'BRK-030',
    level: 'MUST',
    profile: 'broker',
    specVersions: ONLY_2026,
    source: `${MCP_AUTH26} §Authorization Response Issuer Validation; RFC 9207 §2.3`,
    quote:
      'Authorization servers that include the iss parameter MUST advertise this by setting authorization_response_iss_parameter_supported to true in their metadata (RFC9207 Section 2.3).',
    text: 'The broker, whose authorization responses carry iss (BRK-020), sets authorization_response_iss_parameter_supported to true in its metadata.',
    async check(ctx) {
      const { doc } = await brokerMetadata(ctx)
      must(
        doc.authorization_response_iss_parameter_supported === true,
        'authorization_response_iss_parameter_supported: true',
        JSON.stringify(doc.authorization_response_iss_parameter_supported ?? '(absent)'),
      )
    },
  },
]
