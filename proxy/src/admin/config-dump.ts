/**
 * `GET /config_dump`: the runtime configuration as JSON (seed, Admin interface table; shape pinned
 * in docs/internal/contracts.md; its zod schema is in `./config-dump-schema.ts`).
 */
import { isSecretHeader, REDACTED, redactExpression, redactValue } from '@gatehouse/redact'
import type { PolicyStatus } from '../auth/types.js'
import { unauthenticatedRoutes } from '../config/cross-references.js'
import type { PolicyConfig } from '../config/schema.js'
import type { ConfigDump, PolicyStatusDump } from './config-dump-schema.js'
import type { AdminContext, ReloadRecord } from './context.js'

const cond = (
  type: 'Accepted' | 'Attached' | 'Programmed',
  ok: boolean,
  reason: string,
  message: string,
) => ({ type, status: ok ? ('True' as const) : ('False' as const), reason, message })

/** Gateway API conditions from the auth layer's status. */
export function policyStatusDump(s: PolicyStatus): PolicyStatusDump {
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
  const open = new Set(unauthenticatedRoutes(config))
  const authenticated = new Set(
    Object.values(config.policies)
      .filter((p) => p.traffic.jwtAuthentication !== undefined)
      .flatMap((p) => p.targetRefs.map((ref) => ref.name)),
  )
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
      listeners: [
        {
          name: g.name,
          protocol: g.url.startsWith('https:') ? ('HTTPS' as const) : ('HTTP' as const),
          routes: [...g.routes],
        },
      ],
    })),
    routes: Object.entries(config.routes).map(([name, route]) => ({
      name,
      ...(route.parentRefs ? { parentRefs: r(route.parentRefs) as Record<string, unknown>[] } : {}),
      rules: r(route.rules) as Record<string, unknown>[],
      authentication: open.has(name)
        ? ('None' as const)
        : authenticated.has(name)
          ? ('Policy' as const)
          : ('AllowUnauthenticated' as const),
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
