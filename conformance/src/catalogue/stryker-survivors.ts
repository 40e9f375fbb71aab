/**
 * Checks added for mutants that Stryker's conformance run left alive (`npm run
 * conformance:stryker`; triage in conformance/MUTATION.md). Each closes a gap in what the suite
 * judged, in the profile the behaviour belongs to; they live in their own file so that the
 * profile files stay as they are.
 */
import { must, type Requirement } from '../types.js'

const ORIGIN = 'http://conformance-app.example'

/** Requirements added for Stryker survivors. */
export const strykerSurvivors: Requirement[] = [
  {
    id: 'CORS-101',
    level: 'MUST',
    profile: 'cors',
    source:
      'Fetch standard §3.2.5 (CORS protocol and HTTP caches: a reflected origin needs Vary: Origin); RFC 9110 §12.5.5',
    text: 'A forwarded response that reflects the request Origin in Access-Control-Allow-Origin carries Vary: Origin, so a cache never serves it to another origin.',
    async check(ctx) {
      // Not a preflight (whose Vary CORS-002 judges): the protected-resource metadata, answered
      // without a token, through the route's CORS filter.
      const res = await ctx.http(`${ctx.target.base}/.well-known/oauth-protected-resource/mcp`, {
        headers: { origin: ORIGIN },
      })
      const reflected = res.headers.get('access-control-allow-origin')
      must(reflected === ORIGIN, `Access-Control-Allow-Origin: ${ORIGIN}`, String(reflected))
      must(
        /(^|,)\s*origin\s*(,|$)/i.test(res.headers.get('vary') ?? ''),
        'Vary: Origin',
        String(res.headers.get('vary')),
      )
    },
  },
]
