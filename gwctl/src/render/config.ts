/**
 * Renders a config dump in the three output formats of `gwctl proxy config all -o`.
 * `short` is the readable summary: gateways, listeners, routes, backends and policies, with each
 * policy's `Accepted` / `Attached` / `Programmed` conditions and the reason when one is not True
 * (seed, "States and transitions": a policy can be Accepted but not programmed).
 */
import { stringify as toYaml } from 'yaml'
import type { Condition, ConfigDump, DumpPolicy } from '../config-dump.js'
import { renderTable } from './table.js'

/** The output formats of `-o`. */
export const CONFIG_FORMATS = ['yaml', 'json', 'short'] as const
/** One of {@link CONFIG_FORMATS}. */
export type ConfigFormat = (typeof CONFIG_FORMATS)[number]

/** Renders the dump; the text ends with a newline. */
export function renderConfig(dump: ConfigDump, format: ConfigFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(dump, null, 2)}\n`
    case 'yaml':
      return toYaml(dump, { lineWidth: 0 })
    case 'short':
      return renderShort(dump)
  }
}

function renderShort(dump: ConfigDump): string {
  const sections: string[] = []
  const v = dump.version
  if (v?.product || v?.version) {
    sections.push(
      `${v.product ?? 'gatehouse'} ${v.version ?? ''}`.trim() +
        (dump.config?.adminAddr ? `, admin ${String(dump.config.adminAddr)}` : ''),
    )
  }
  sections.push(
    renderTable(
      ['GATEWAY', 'ADDRESS', 'PORT', 'URL', 'LISTENERS'],
      dump.binds.map((b) => [
        b.name,
        b.address ?? '-',
        b.port === undefined ? '-' : String(b.port),
        b.url ?? '-',
        list((b.listeners ?? []).map((l) => l.name ?? '-')),
      ]),
    ),
  )
  sections.push(
    renderTable(
      ['GATEWAY', 'LISTENER', 'PROTOCOL', 'ROUTES'],
      dump.binds.flatMap((b) =>
        (b.listeners ?? []).map((l) => [
          b.name,
          l.name ?? '-',
          l.protocol ?? '-',
          list(l.routes ?? []),
        ]),
      ),
    ),
  )
  sections.push(
    renderTable(
      ['ROUTE', 'RULE', 'MATCHES', 'BACKEND', 'FILTERS', 'POLICIES'],
      dump.routes.flatMap((r) =>
        (r.rules ?? []).map((rule, i) => [
          r.name,
          String(i),
          list(
            (rule.matches ?? []).map(
              (m) => `${m.path?.type ?? 'PathPrefix'} ${m.path?.value ?? '/'}`,
            ),
          ),
          list((rule.backendRefs ?? []).map((b) => (b.port ? `${b.name}:${b.port}` : b.name))),
          list((rule.filters ?? []).map((f) => f.type)),
          list(policiesTargeting(dump.policies, r.name)),
        ]),
      ),
    ),
  )
  sections.push(
    renderTable(
      ['BACKEND', 'ADDRESS', 'TLS'],
      dump.backends.map((b) => [b.name, b.address ?? '-', describeTls(b.tls)]),
    ),
  )
  sections.push(
    renderTable(
      ['POLICY', 'TARGETS', 'ACCEPTED', 'ATTACHED', 'PROGRAMMED', 'REASON'],
      dump.policies.map((p) => [
        p.name,
        list((p.targetRefs ?? []).map((t) => `${t.kind ?? 'HTTPRoute'}/${t.name}`)),
        conditionStatus(p, 'Accepted'),
        conditionStatus(p, 'Attached'),
        conditionStatus(p, 'Programmed'),
        policyReason(p),
      ]),
    ),
  )
  return `${sections.join('\n\n')}\n`
}

function list(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : '-'
}

function policiesTargeting(policies: readonly DumpPolicy[], route: string): string[] {
  return policies
    .filter((p) => (p.targetRefs ?? []).some((t) => t.name === route))
    .map((p) => p.name)
}

function describeTls(tls: unknown): string {
  if (tls === null || tls === undefined || tls === false) return '-'
  if (typeof tls === 'object') {
    const sni =
      (tls as { sni?: unknown; hostname?: unknown }).sni ?? (tls as { hostname?: unknown }).hostname
    return typeof sni === 'string' ? `yes (${sni})` : 'yes'
  }
  return String(tls)
}

function condition(p: DumpPolicy, type: string): Condition | undefined {
  return p.status?.conditions?.find((c) => c.type === type)
}

function conditionStatus(p: DumpPolicy, type: string): string {
  const c = condition(p, type)
  if (c) return c.status
  if (type === 'Programmed' && typeof p.status?.programmed === 'boolean') {
    return p.status.programmed ? 'True' : 'False'
  }
  return '-'
}

/** The first condition that is not True explains the state; otherwise the overall reason. */
function policyReason(p: DumpPolicy): string {
  const failing = (p.status?.conditions ?? []).find((c) => c.status !== 'True')
  const reason = failing?.reason ?? p.status?.reason
  const message = failing
    ? failing.message
    : p.status?.programmed === false
      ? p.status.message
      : undefined
  if (!reason && !message) return '-'
  return [reason, message].filter(Boolean).join(': ')
}
