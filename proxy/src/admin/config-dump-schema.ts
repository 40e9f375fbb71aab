/**
 * The shape of `GET /config_dump` as zod schemas: the source of the committed JSON Schema
 * `config-dump.schema.json` (a test fails when the two drift) and of the `ConfigDump` type, which
 * gwctl derives its tolerant reading from (`@gatehouse/proxy/config-dump-schema`, a type-only
 * import). This module imports nothing but zod, so sharing it pulls in no proxy code.
 */
import { z } from 'zod'

const ConditionStatusSchema = z.enum(['True', 'False', 'Unknown'])

/** A Gateway-API-style status condition (`Accepted`, `Attached`, `Programmed`). */
export const ConditionSchema = z.object({
  type: z.enum(['Accepted', 'Attached', 'Programmed']),
  status: ConditionStatusSchema,
  reason: z.string(),
  message: z.string(),
})

/** A policy's status: whether it is programmed (enforced) and why, plus its conditions. */
export const PolicyStatusDumpSchema = z.object({
  programmed: z.boolean(),
  reason: z.string().describe('CamelCase reason, e.g. Programmed, JwksUnavailable.'),
  message: z.string(),
  conditions: z.array(ConditionSchema),
})

/** A Gateway API condition of a Kubernetes resource (metav1.Condition). */
export const ResourceConditionSchema = z.object({
  type: z.enum(['Accepted', 'ResolvedRefs', 'Attached', 'Programmed']),
  status: ConditionStatusSchema,
  reason: z
    .string()
    .describe('CamelCase Gateway API reason, e.g. BackendNotFound, RefNotPermitted.'),
  message: z.string(),
  observedGeneration: z.number().int(),
  lastTransitionTime: z.string().describe('RFC 3339 time the status last changed.'),
})

/** The status of one Kubernetes resource the configuration was translated from. */
export const ResourceStatusDumpSchema = z.object({
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  generation: z.number().int(),
  gatehouseName: z.string().optional().describe('Its name in the translated configuration.'),
  conditions: z.array(ResourceConditionSchema),
  parents: z
    .array(
      z.object({
        parentRef: z.record(z.string(), z.string()),
        controllerName: z.string(),
        conditions: z.array(ResourceConditionSchema),
      }),
    )
    .optional()
    .describe('HTTPRoute: its status towards each parentRef (Gateway API RouteParentStatus).'),
})

/** The whole dump. */
export const ConfigDumpSchema = z
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
            protocol: z.enum(['HTTP', 'HTTPS']),
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
        authentication: z
          .enum(['Policy', 'AllowUnauthenticated', 'None'])
          .optional()
          .describe(
            'Policy: a policy with traffic.jwtAuthentication covers it; AllowUnauthenticated: it (or every gateway it is on) says allowUnauthenticated: true; None: nothing does (the loader refuses such a route, so None means an older proxy or a bug; gwctl proxy status fails on it).',
          ),
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
        status: PolicyStatusDumpSchema,
      }),
    ),
    reload: z
      .object({
        at: z.string().describe('RFC 3339 time the last reload finished.'),
        trigger: z.enum(['watch', 'SIGHUP', 'admin', 'api']),
        result: z.enum(['success', 'unchanged', 'failure']),
        message: z.string(),
        reason: z
          .string()
          .optional()
          .describe(
            'After a failure: why, as a condition reason (Unauthenticated: a route no authentication covers; Invalid: anything else).',
          ),
      })
      .optional()
      .describe('The last configuration reload; absent when there was none.'),
    resources: z
      .array(ResourceStatusDumpSchema)
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
export type ConfigDump = z.output<typeof ConfigDumpSchema>

/** The committed JSON Schema of the dump (`proxy/src/admin/config-dump.schema.json`). */
export function configDumpJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigDumpSchema, { io: 'output' }) as Record<string, unknown>
}

/** A policy's status in the dump. */
export type PolicyStatusDump = z.output<typeof PolicyStatusDumpSchema>
