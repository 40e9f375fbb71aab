/**
 * What the read-only view on a gateway (`ui.gateway`) may show of the proxy: names and statuses,
 * never a configuration value. Built field by field from the runtime (an allow-list, not the
 * config dump with parts removed), so a field added to the dump later cannot leak here.
 * Condition and reload messages can quote configuration (a JWKS URL, a file path and line), so
 * they are left out unless `ui.showMessages` says otherwise.
 */

import { policyStatusDump } from '../config-dump.js'
import type { ConditionSchema } from '../config-dump-schema.js'
import type { AdminContext } from '../context.js'
import { type MetricsSummary, parsePrometheusText, summarizeMetrics } from './prometheus-text.js'

type Condition = Omit<import('zod').output<typeof ConditionSchema>, 'message' | 'type'> & {
  type: string
  message?: string
}

/** The gateway view's status document (`<ui.path>/status.json`). */
export interface PublicStatus {
  mode: 'gateway'
  version: { version: string; startedAt: string }
  binds: Array<{ name: string; listeners: Array<{ name: string; routes: string[] }> }>
  routes: Array<{ name: string }>
  backends: Array<{ name: string }>
  policies: Array<{
    name: string
    targetRefs: Array<{ kind: string; name: string }>
    status: { programmed: boolean; reason: string; message?: string; conditions: Condition[] }
  }>
  reload?: { at: string; trigger: string; result: string; message?: string }
  resources: Array<{ kind: string; namespace: string; name: string; conditions: Condition[] }>
}

/** Options of {@link publicStatus}. */
export interface PublicStatusOptions {
  /** Include condition and reload messages (`ui.showMessages`). Default false. */
  messages?: boolean
}

/** Builds the document. */
export function publicStatus(ctx: AdminContext, options: PublicStatusOptions = {}): PublicStatus {
  const withMessage = <T extends { message: string }>(c: T) =>
    options.messages ? { message: c.message } : {}
  const condition = (c: { type: string; status: string; reason: string; message: string }) => ({
    type: c.type,
    status: c.status as Condition['status'],
    reason: c.reason,
    ...withMessage(c),
  })
  const config = ctx.config()
  const compiled = ctx.policies()
  const reload = ctx.lastReload?.()
  return {
    mode: 'gateway',
    version: { version: ctx.version, startedAt: ctx.startedAt.toISOString() },
    binds: ctx.gateways().map((g) => ({
      name: g.name,
      listeners: [{ name: g.name, routes: [...g.routes] }],
    })),
    routes: Object.keys(config.routes).map((name) => ({ name })),
    backends: Object.keys(config.backends).map((name) => ({ name })),
    policies: Object.entries(config.policies).map(([name, p]) => {
      const policy = compiled.get(name)
      const status = policy
        ? policyStatusDump(policy.status())
        : {
            programmed: false,
            reason: 'NotCompiled',
            message: 'the policy is configured but was not compiled by this proxy',
            conditions: [],
          }
      return {
        name,
        targetRefs: p.targetRefs.map((t) => ({ kind: t.kind, name: t.name })),
        status: {
          programmed: status.programmed,
          reason: status.reason,
          ...withMessage(status),
          conditions: status.conditions.map(condition),
        },
      }
    }),
    ...(reload
      ? {
          reload: {
            at: reload.at,
            trigger: reload.trigger,
            result: reload.result,
            ...withMessage(reload),
          },
        }
      : {}),
    resources: (ctx.resources?.() ?? []).map((r) => ({
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      conditions: r.conditions.map(condition),
    })),
  }
}

/** The request counts and latency the gateway view charts (no label leaves: only sums). */
export async function publicMetrics(ctx: AdminContext): Promise<MetricsSummary | undefined> {
  if (!ctx.metrics) return undefined
  const { body } = await ctx.metrics.render()
  return summarizeMetrics(parsePrometheusText(body))
}
