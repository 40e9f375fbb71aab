/**
 * The status page: gateways, routes, backends and policies with their Gateway API conditions
 * (type, status, reason, message), what each policy attaches to, and the last reload (when, what
 * asked for it, the result and — on failure — every problem with its file and line). On the admin
 * address it reads `/config_dump`; on a gateway the read-only `status.json` (names and conditions
 * only). Polled every few seconds, and at once after a reload from the controls.
 */
import { badge, type Child, h, render, table } from './dom.js'

/** A condition as both documents write it (the gateway view may leave out the message). */
interface Condition {
  type: string
  status: string
  reason: string
  message?: string
}

/** What the page reads of `/config_dump` or of the gateway view's `status.json`. */
export interface StatusDocument {
  version: { version: string; startedAt: string; uptimeSeconds?: number; mode?: string }
  config?: { logLevel?: string; adminAddr?: string; workers?: unknown }
  binds: Array<{
    name: string
    url?: string
    listeners: Array<{ name: string; routes: string[] }>
  }>
  routes: Array<{
    name: string
    rules?: Array<{
      matches?: Array<{ path?: { type?: string; value?: string } }>
      backendRefs?: Array<{ name?: string }>
    }>
  }>
  backends: Array<{ name: string; address?: string }>
  policies: Array<{
    name: string
    targetRefs: Array<{ kind?: string; name?: string }>
    status: { programmed: boolean; reason: string; message?: string; conditions: Condition[] }
  }>
  reload?: { at: string; trigger: string; result: string; message?: string }
  resources?: Array<{ kind: string; namespace: string; name: string; conditions: Condition[] }>
  workers?: Array<{ id: number; pid: number | null; state: string; restarts: number }>
}

/** The conditions of one object as a small table. */
function conditions(list: readonly Condition[], withMessage: boolean): HTMLElement {
  return h(
    'ul',
    { class: 'conditions' },
    ...list.map((c) =>
      h(
        'li',
        { 'data-condition': c.type },
        h('span', { class: 'ctype' }, c.type),
        ' ',
        badge(c.status),
        ' ',
        h('span', { class: 'reason' }, c.reason),
        withMessage && c.message ? h('span', { class: 'message' }, ` — ${c.message}`) : null,
      ),
    ),
  )
}

/** The last reload, its problems one per line. */
function reloadSection(doc: StatusDocument): HTMLElement {
  const r = doc.reload
  if (!r) return h('p', { id: 'reload-status' }, 'No reload since start.')
  const ok = r.result !== 'failure'
  return h(
    'div',
    { id: 'reload-status', class: ok ? 'reload ok' : 'reload bad' },
    h(
      'p',
      {},
      'Last reload ',
      h('time', { datetime: r.at }, new Date(r.at).toLocaleString()),
      ` (${r.trigger}): `,
      badge(ok ? 'True' : 'False', r.result),
    ),
    r.message ? h('pre', { class: 'wrap' }, r.message) : null,
  )
}

/** Renders the page from a document. */
export function renderStatus(root: Element, doc: StatusDocument, readOnly: boolean): void {
  const matches = (route: StatusDocument['routes'][number]) =>
    (route.rules ?? [])
      .flatMap((rule) => rule.matches ?? [])
      .map((m) => `${m.path?.type ?? ''} ${m.path?.value ?? ''}`.trim())
      .join(', ')
  const backendsOf = (route: StatusDocument['routes'][number]) =>
    (route.rules ?? [])
      .flatMap((rule) => rule.backendRefs ?? [])
      .map((b) => b.name)
      .join(', ')
  const uptime = doc.version.uptimeSeconds
  const sections: Child[] = [
    h(
      'p',
      { class: 'meta' },
      `gatehouse ${doc.version.version}, started ${new Date(doc.version.startedAt).toLocaleString()}`,
      uptime !== undefined ? `, up ${uptime} s` : '',
      doc.config?.logLevel ? `, log level ${doc.config.logLevel}` : '',
    ),
    h('h2', {}, 'Reload'),
    reloadSection(doc),
    h('h2', {}, 'Gateways'),
    table(
      'Gateways and their listeners',
      readOnly ? ['Gateway', 'Routes'] : ['Gateway', 'Address', 'Routes'],
      doc.binds.map((b) => {
        const routes = b.listeners.flatMap((l) => l.routes).join(', ') || '—'
        return readOnly ? [b.name, routes] : [b.name, b.url ?? '', routes]
      }),
    ),
    h('h2', {}, 'Routes'),
    table(
      'Routes',
      readOnly ? ['Route'] : ['Route', 'Matches', 'Backends'],
      doc.routes.map((r) => (readOnly ? [r.name] : [r.name, matches(r), backendsOf(r)])),
    ),
    h('h2', {}, 'Backends'),
    table(
      'Backends',
      readOnly ? ['Backend'] : ['Backend', 'Address'],
      doc.backends.map((b) => (readOnly ? [b.name] : [b.name, b.address ?? ''])),
    ),
    h('h2', {}, 'Policies'),
    table(
      'Policies, what they attach to, and their conditions',
      ['Policy', 'Attached to', 'Conditions'],
      doc.policies.map((p) => [
        h('span', { 'data-policy': p.name }, p.name),
        p.targetRefs.map((t) => `${t.kind ?? 'HTTPRoute'}/${t.name ?? ''}`).join(', '),
        conditions(p.status.conditions, true),
      ]),
    ),
  ]
  if (doc.resources && doc.resources.length > 0) {
    sections.push(
      h('h2', {}, 'Kubernetes resources'),
      table(
        'Resources and their Gateway API conditions',
        ['Resource', 'Conditions'],
        doc.resources.map((r) => [
          `${r.kind} ${r.namespace}/${r.name}`,
          conditions(r.conditions, true),
        ]),
      ),
    )
  }
  if (doc.workers && doc.workers.length > 0) {
    sections.push(
      h('h2', {}, 'Workers'),
      table(
        'Data-plane workers',
        ['Worker', 'PID', 'State', 'Restarts'],
        doc.workers.map((w) => [w.id, w.pid ?? '—', w.state, w.restarts]),
      ),
    )
  }
  render(root, ...sections)
}
