/**
 * Profile `core`: scopes in the bearer challenges — what MCP 2025-11-25 clients read to choose
 * the scopes they ask for (401) and to step up (403 `insufficient_scope`). Sources: RFC 6750 §3,
 * MCP authorization 2025-11-25 "Protected Resource Metadata Discovery Requirements", "Scope
 * Selection Strategy", "Scope Challenge Handling".
 */
import { CheckSkipped, must, type Requirement } from '../types.js'
import { challengeParams, postMcp, prmDocument, token } from './util.js'

const MCP_2025_11_25 = 'MCP authorization 2025-11-25'

/** The scope the `--scoped-target` route requires (conformance/README.md, "Options"). */
export const REQUIRED_SCOPE = 'mcp:tools'

/** RFC 6749 §3.3 scope: space-delimited tokens of printable ASCII without `"` and `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/

/** Profile `core`: scopes named in the challenges. */
export const scopes: Requirement[] = [
  {
    id: 'AUTH-023',
    level: 'SHOULD',
    resourceServer: true,
    quote:
      'MCP servers SHOULD include a scope parameter in the WWW-Authenticate header as defined in RFC 6750 Section 3 to indicate the scopes required for accessing the resource.',
    profile: 'core',
    source: `${MCP_2025_11_25} "Protected Resource Metadata Discovery Requirements" (servers SHOULD include scope in WWW-Authenticate); RFC 6750 §3`,
    text: 'When the protected-resource metadata lists scopes_supported, the 401 challenge names the scopes to ask for in scope="…".',
    async check(ctx) {
      const doc = await prmDocument(ctx)
      const supported = doc.scopes_supported
      if (!Array.isArray(supported) || supported.length === 0)
        throw new CheckSkipped('the protected-resource metadata lists no scopes_supported')
      const res = await postMcp(ctx)
      must(res.status === 401, '401', `${res.status}`)
      const header = String(res.headers.get('www-authenticate'))
      const scope = challengeParams(header)?.scope
      must(scope !== undefined, 'scope="…" in the challenge', header)
      must(SCOPE.test(scope), 'space-delimited scope tokens (RFC 6749 §3.3)', `scope="${scope}"`)
    },
  },
  {
    id: 'AUTHZ-004',
    level: 'SHOULD',
    quote:
      'When responding with insufficient scope errors, servers SHOULD include the scopes needed to satisfy the current request in the scope parameter.',
    profile: 'core',
    source: `${MCP_2025_11_25} "Scope Challenge Handling" (Runtime Insufficient Scope Errors: 403 with error="insufficient_scope" and scope="…"); RFC 6750 §3.1`,
    text: `On a route that requires the scope ${REQUIRED_SCOPE}, a token without it gets 403 error="insufficient_scope" whose scope="…" names it, so the client can step up; a token with it gets through.`,
    async check(ctx) {
      const base = ctx.target.scopedBase
      if (!base)
        throw new CheckSkipped(
          `no route requiring the scope ${REQUIRED_SCOPE} was configured (--scoped-target)`,
        )
      const res = await postMcp(ctx, { base, token: await token(ctx, { sub: 'alice' }) })
      must(res.status === 403, '403 for a token without the scope', `${res.status}`)
      const header = String(res.headers.get('www-authenticate'))
      const params = challengeParams(header)
      must(params?.error === 'insufficient_scope', 'error="insufficient_scope"', header)
      must(
        (params.scope ?? '').split(' ').includes(REQUIRED_SCOPE),
        `scope="…" naming ${REQUIRED_SCOPE}`,
        header,
      )
      const stepped = await token(ctx, {
        sub: 'alice',
        claims: {
          scp: ['openid', 'profile', REQUIRED_SCOPE],
          scope: `openid profile ${REQUIRED_SCOPE}`,
        },
      })
      const after = await postMcp(ctx, { base, token: stepped })
      must(after.status === 200, `200 for a token with ${REQUIRED_SCOPE}`, `${after.status}`)
    },
  },
]
