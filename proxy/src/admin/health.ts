/**
 * `GET /ready` and `GET /healthz` (docs/admin-api.md "Health"), as Envoy's `/ready` and the
 * Kubernetes probes expect them: `/healthz` says the process is alive and answering (liveness:
 * restart me if not); `/ready` says it can serve (readiness: send me traffic), with the reasons
 * when it cannot. Neither leaks a token or secret: the reasons name gateways, policies, key-set
 * URLs and causes.
 */
import { policyProblems } from '../auth/readiness.js'
import type { AdminContext, ClusterView } from './context.js'

/** The answer of `/ready`. */
export interface Readiness {
  ready: boolean
  /** Why not, one sentence each; empty when ready. */
  reasons: string[]
}

/**
 * Ready when every configured gateway listens, every policy's keys are loaded and fresh
 * (../auth/readiness.ts), and the proxy is not shutting down.
 */
export function readiness(ctx: AdminContext): Readiness {
  const reasons: string[] = []
  if (ctx.draining?.()) reasons.push('shutting down: draining in-flight requests')
  const listening = new Set(ctx.gateways().map((g) => g.name))
  for (const name of Object.keys(ctx.config().gateways)) {
    if (!listening.has(name)) reasons.push(`gateway ${name} is not listening`)
  }
  reasons.push(...policyProblems(ctx.policies().values()))
  return { ready: reasons.length === 0, reasons }
}

/**
 * The primary of several workers: ready when every worker slot runs a ready worker, each of
 * which is ready itself (asked over IPC, `./worker-agent.ts`).
 */
export async function clusterReadiness(
  ctx: AdminContext,
  cluster: ClusterView,
): Promise<Readiness> {
  const reasons: string[] = []
  if (ctx.draining?.()) reasons.push('shutting down: draining in-flight requests')
  for (const w of cluster.workers()) {
    if (w.state !== 'ready') reasons.push(`worker ${w.id} is ${w.state}`)
  }
  for (const answer of await cluster.each<Readiness>('admin.readiness')) {
    const who = `worker ${answer.worker.id}`
    if (!answer.value) reasons.push(`${who} did not answer: ${answer.error ?? 'no answer'}`)
    else for (const r of answer.value.reasons) reasons.push(`${who}: ${r}`)
  }
  return { ready: reasons.length === 0, reasons }
}
