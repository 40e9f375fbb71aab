/**
 * `GET /config_dump`: the runtime configuration as JSON (seed, Admin interface table; shape pinned
 * in docs/internal/contracts.md). The zod schema below is the source of the committed JSON Schema
 * `config-dump.schema.json`; a test fails when the two drift.
 */
import { isSecretHeader, REDACTED, redactExpression, redactValue } from '@gatehouse/redact'
import { z } from 'zod'
import type { PolicyStatus } from '../auth/types.js'
import type { PolicyConfig } from '../config/schema.js'
import type { AdminContext, ReloadRecord } from './context.js'

const ConditionStatus = z.enum(['True', 'False', 'Unknown'])

/** A Gateway-API-style status condition (`Accepted`, `Attached`, `Programmed`). */
export const Condition = z.object({
  type: z.enum(['Accepted', 'Attached', 'Programmed']),
  status: ConditionStatus,
  reason: z.string(),
  message: z.string(),
})

/** A policy's status: whether it is programmed (enforced) and why, plus its conditions. */
export const PolicyStatusDump = z.object({
  programmed: z.boolean(),
  reason: z.string().describe('CamelCase reason, e.g. Programmed, JwksUnavailable.'),
  message: z.string(),
  conditions: z.array(Condition),
})

/** A Gateway API condition of a Kubernetes resource (metav1.Condition). */
export const ResourceCondition = z.object({
  type: z.enum(['Accepted', 'ResolvedRefs', 'Attached', 'Programmed']),
  status: ConditionStatus,
  reason: z
    .string()
    .describe('CamelCase Gateway API reason, e.g. BackendNotFound, RefNotPermitted.'),
  message: z.string(),
  observedGeneration: z.number().int(),
  lastTransitionTime: z.string().describe('RFC 3339 time the status last changed.'),
})

/** The status of one Kubernetes resource the configuration was translated from. */
export const ResourceStatusDump = z.object({
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  generation: z.number().int(),
  gatehouseName: z.string().optional().describe('Its name in the translated configuration.'),
  conditions: z.array(ResourceCondition),
  parents: z
    .array(
      z.object({
        parentRef: z.record(z.string(), z.string()),
        controllerName: z.string(),
        conditions: z.array(ResourceCondition),
      }),
    )
    .optional()
    .describe('HTTPRoute: its status towards each parentRef (Gateway API RouteParentStatus).'),
})

/** The whole dump. */
export const ConfigDump = z
  .object({
    version: z.object({
      product: z.literal('gatehouse'),
      version: z.string(),
      node: z.string(),
      platform: z.string(),
      arch: z.string(),
      pid: z.number().int(),
      mode: z.literal('standalone'),
      startedAt: z.string().describe('ISO time the proxy started.'),
      uptimeSeconds: z.number(),
    }),
    config: z.object({
      adminAddr: z.string(),
      logLevel: z.string().describe('The log filter in force now (changes with POST /logging).'),
      drainTimeout: z.string(),
      workers: z
        .union([z.number().int(), z.literal('auto')])
        .optional()
        .describe('config.workers as configured (data-plane processes).'),
    }),
    binds: z.array(
      z.object({
        name: z.string(),
        address: z.string(),
        port: z.number().int(),
        url: z.string(),
        listeners: z.array(
          z.object({
            name: z.string(),
            protocol: z.literal('HTTP'),
            routes: z.array(z.string()),
          }),
        ),
      }),
    ),
    routes: z.array(
      z.object({
        name: z.string(),
        parentRefs: z.array(z.record(z.string(), z.unknown())).optional(),
        rules: z.array(z.record(z.string(), z.unknown())),
      }),
    ),
    backends: z.array(
      z.object({
        name: z.string(),
        address: z.string().describe('host:port'),
        tls: z.record(z.string(), z.unknown()).nullable(),
        timeouts: z.record(z.string(), z.unknown()),
      }),
    ),
    policies: z.array(
      z.object({
        name: z.string(),
        targetRefs: z.array(z.record(z.string(), z.unknown())),
        traffic: z.record(z.string(), z.unknown()).describe('As configured, secrets redacted.'),
        runtime: z
          .record(z.string(), z.unknown())
          .optional()
          .describe("The compiled policy's own view (key set state), secrets redacted."),
        status: PolicyStatusDump,
      }),
    ),
    reload: z
      .object({
        at: z.string().describe('RFC 3339 time the last reload finished.'),
        trigger: z.enum(['watch', 'SIGHUP', 'admin', 'api']),
        result: z.enum(['success', 'unchanged', 'failure']),
        message: z.string(),
      })
      .optional()
      .describe('The last configuration reload; absent when there was none.'),
    resources: z
      .array(ResourceStatusDump)
      .describe(
        'Kubernetes resources the configuration came from, with Gateway API status; empty for a standalone file.',
      ),
    workers: z
      .array(
        z.object({
          id: z.number().int().describe('Slot 1..config.workers.'),
          pid: z.number().int().nullable(),
          state: z.enum(['starting', 'ready', 'exited']),
          restarts: z
            .number()
            .int()
            .describe('Times the slot was restarted after its worker exited.'),
          startedAt: z.string().nullable(),
          requests: z
            .number()
            .nullable()
            .describe('Requests it handled (null: it did not answer).'),
          inFlight: z.number().nullable(),
          logLevel: z
            .string()
            .nullable()
            .describe('Its log filter now (POST /logging sets every worker).'),
          policies: z
            .record(z.string(), z.object({ programmed: z.boolean(), reason: z.string() }))
            .describe("Each policy's status on this worker (key sets are fetched per worker)."),
        }),
      )
      .optional()
      .describe(
        "With config.workers above 1: every data-plane worker. The rest of the dump is the first ready worker's (all run the same configuration); version.pid is the primary's.",
      ),
    workloads: z.array(z.unknown()).describe('Always empty in standalone mode.'),
    services: z.array(z.unknown()).describe('Always empty in standalone mode.'),
  })
  .describe('Gatehouse /config_dump: the runtime configuration, secrets redacted.')

/** The dump document. */
export type ConfigDump = z.output<typeof ConfigDump>

/** The committed JSON Schema of the dump (`proxy/src/admin/config-dump.schema.json`). */
export function configDumpJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigDump, { io: 'output' }) as Record<string, unknown>
}

const cond = (
  type: 'Accepted' | 'Attached' | 'Programmed',
  ok: boolean,
  reason: string,
  message: string,
) => ({ type, status: ok ? ('True' as const) : ('False' as const), reason, message })

/** Gateway API conditions from the auth layer's status. */
export function policyStatusDump(s: PolicyStatus): z.output<typeof PolicyStatusDump> {
  return {
    programmed: s.programmed,
    reason: s.reason,
    message: s.message,
    conditions: [
      cond(
        'Accepted',
        s.accepted,
        s.accepted ? 'Accepted' : s.reason,
        s.accepted ? 'policy is valid' : s.message,
      ),
      // Validation refuses a targetRef that names no route (config/cross-references.ts), so an
      // accepted policy is attached to every route it names.
      cond(
        'Attached',
        s.accepted,
        s.accepted ? 'Attached' : s.reason,
        s.accepted ? 'policy targets an existing route' : s.message,
      ),
      cond('Programmed', s.programmed, s.reason, s.message),
    ],
  }
}

const NOT_COMPILED: PolicyStatus = {
  accepted: false,
  programmed: false,
  reason: 'NotCompiled',
  message: 'the policy is configured but was not compiled by this proxy',
}

/**
 * A policy's `traffic` with the header values set by transformations redacted: a value is a CEL
 * expression, and a static secret may be written in it as a string literal (`"Bearer sk-…"`).
 * The literals go, the rest of the expression (`jwt.sub`) stays readable; a credential header's
 * value goes as a whole.
 */
function redactTransformations(traffic: PolicyConfig['traffic']): PolicyConfig['traffic'] {
  const request = traffic.transformations?.request
  if (!request) return traffic
  const set = request.set.map((h) => ({
    name: h.name,
    value: isSecretHeader(h.name) ? REDACTED : redactExpression(h.value),
  }))
  return { ...traffic, transformations: { request: { ...request, set } } }
}

/**
 * A configuration value as the file wrote it: parsed values turn back into their JSON form
 * (a `Duration` into its text, `"30s"`), which redaction, walking plain objects, would not do.
 */
function asWritten(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value))
}

/** Builds the dump, every secret redacted. */
export function buildConfigDump(ctx: AdminContext): ConfigDump {
  /** Redacts a value of the configuration. */
  const r = (value: unknown) => redactValue(asWritten(value))
  const config = ctx.config()
  const compiled = ctx.policies()
  const dump: ConfigDump = {
    version: {
      product: 'gatehouse',
      version: ctx.version,
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      pid: process.pid,
      mode: 'standalone',
      startedAt: ctx.startedAt.toISOString(),
      uptimeSeconds: Math.round((Date.now() - ctx.startedAt.getTime()) / 1000),
    },
    config: {
      adminAddr: config.config.adminAddr,
      logLevel: ctx.logging.filter(),
      drainTimeout: config.config.drainTimeout.text,
      workers: config.config.workers,
    },
    binds: ctx.gateways().map((g) => ({
      name: g.name,
      address: g.address,
      port: g.port,
      url: g.url,
      listeners: [{ name: g.name, protocol: 'HTTP' as const, routes: [...g.routes] }],
    })),
    routes: Object.entries(config.routes).map(([name, route]) => ({
      name,
      ...(route.parentRefs ? { parentRefs: r(route.parentRefs) as Record<string, unknown>[] } : {}),
      rules: r(route.rules) as Record<string, unknown>[],
    })),
    backends: Object.entries(config.backends).map(([name, b]) => ({
      name,
      address: `${b.static.host}:${b.static.port}`,
      tls: b.tls ? (r(b.tls) as Record<string, unknown>) : null,
      timeouts: asWritten(b.timeouts) as Record<string, unknown>,
    })),
    policies: Object.entries(config.policies).map(([name, p]) => {
      const policy = compiled.get(name)
      let runtime: Record<string, unknown> | undefined
      try {
        runtime = policy ? (redactValue(policy.dump()) as Record<string, unknown>) : undefined
      } catch {
        runtime = undefined
      }
      return {
        name,
        targetRefs: r(p.targetRefs) as Record<string, unknown>[],
        traffic: r(redactTransformations(p.traffic)) as Record<string, unknown>,
        ...(runtime ? { runtime } : {}),
        status: policyStatusDump(policy ? policy.status() : NOT_COMPILED),
      }
    }),
    ...(ctx.lastReload?.() ? { reload: { ...(ctx.lastReload() as ReloadRecord) } } : {}),
    resources: [...(ctx.resources?.() ?? [])],
    workloads: [],
    services: [],
  }
  return dump
}
