/**
 * `config.workers` (docs/design/performance.md): how many data-plane processes run, and what a
 * configuration must share for several of them to behave as one. Local rate limits and MCP
 * session bindings are held by the primary process, so they need nothing here; the broker's state
 * (pending authorizations, codes, grants, clients) is shared only through `store.redis`.
 */
import { availableParallelism } from 'node:os'
import type { ConfigIssue } from '../errors.js'
import { MAX_WORKERS } from './schema/process.js'
import type { GatehouseConfig } from './schema.js'

/** The number of data-plane processes `config.workers` asks for (`auto`: one per CPU). */
export function workerCount(config: Readonly<GatehouseConfig>): number {
  const w = config.config.workers
  return w === 'auto' ? Math.min(MAX_WORKERS, Math.max(1, availableParallelism())) : w
}

/** What stands in the way of `config.workers` other than 1. */
export function workerIssues(config: Readonly<GatehouseConfig>): ConfigIssue[] {
  const w = config.config.workers
  if (w === 1) return []
  const issues: ConfigIssue[] = []
  for (const [name, policy] of Object.entries(config.policies)) {
    const broker = policy.traffic.jwtAuthentication?.mcp?.broker
    // Memory is per process; a SQLite file is locked by one process.
    if (broker && !(broker.store && 'redis' in broker.store)) {
      issues.push({
        path: `policies.${name}.traffic.jwtAuthentication.mcp.broker.store`,
        message: `config.workers is ${w}: each worker would keep its own broker state, and a client that authorizes on one worker would be unknown to the next. Use store.redis (with a fixed broker.secret) so that the workers share it, or set config.workers: 1`,
      })
    }
  }
  return issues
}
