/**
 * Whether the compiled policies can serve: what `GET /ready` on the admin interface and a
 * gateway's probe path report (docs/admin-api.md "Health"). A policy is ready when every key set
 * it verifies with is loaded and its last fetch succeeded.
 *
 * A key set whose refresh fails keeps its last-known-good keys (./jwks.ts) and the policy goes on
 * verifying tokens, yet the replica is reported not ready: it cannot see a rotation at its IdP,
 * and a load balancer should prefer a replica that can reach it. `/healthz` (liveness) never
 * depends on the IdP, so an orchestrator does not restart a replica for its IdP's outage.
 */
import type { AuthPolicy } from './types.js'

/** Why each policy is not ready, one sentence each (no token, no secret: URLs and causes only). */
export function policyProblems(policies: Iterable<AuthPolicy>): string[] {
  const problems: string[] = []
  for (const policy of policies) {
    const s = policy.status()
    if (!s.programmed) problems.push(`policy ${policy.name}: ${s.reason}: ${s.message}`)
    else if (s.refreshError) {
      problems.push(
        `policy ${policy.name}: JwksRefreshFailing: ${s.refreshError} (the last-known-good keys still verify tokens)`,
      )
    }
  }
  return problems
}
