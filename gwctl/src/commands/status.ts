/**
 * `gwctl proxy status`: the Gateway API status of what a proxy runs — each Kubernetes resource it
 * was configured from with its conditions (Accepted, ResolvedRefs, Attached, Programmed), or, for
 * a standalone file, each policy — each worker when it runs several (`config.workers`), and the
 * last reload. A table, or the status as YAML or JSON.
 * Exits 1 when anything is not Programmed, so scripts and CI can wait on it.
 */
import { Command, Option } from 'commander'
import { stringify } from 'yaml'
import { formatAdminAddress } from '../admin-client.js'
import { asConfigDump, type ConfigDump, readConfigDumpFile } from '../config-dump.js'
import { GwctlError } from '../errors.js'
import { write } from '../io.js'
import { renderTable } from '../render/table.js'
import { type Action, adminClientOf } from './context.js'

interface StatusCondition {
  type: string
  status: string
  reason?: string
  message?: string
}

interface StatusRow {
  kind: string
  namespace?: string
  name: string
  conditions: StatusCondition[]
  parents?: Array<{ parentRef: Record<string, string>; conditions: StatusCondition[] }>
}

/**
 * The rows of a dump: its resources, or its policies when it came from a standalone file; and,
 * after a reload that failed, the configuration itself, not Programmed (the previous one serves).
 */
export function statusRows(dump: ConfigDump): StatusRow[] {
  const resources = Array.isArray(dump.resources) ? (dump.resources as StatusRow[]) : []
  const rows: StatusRow[] =
    resources.length > 0
      ? [...resources]
      : dump.policies.map((p) => ({
          kind: 'Policy',
          name: p.name,
          conditions: (p.status?.conditions ?? []).map((c) => ({ ...c })),
        }))
  rows.push(...unauthenticatedRows(dump))
  rows.push(...workerRows(dump))
  const reload = dump.reload as
    | { result?: string; message?: string; at?: string; reason?: string }
    | undefined
  if (reload?.result === 'failure') {
    const message = `reload at ${reload.at} refused, the previous configuration serves: ${reload.message ?? ''}`
    const reason = reload.reason ?? 'Invalid'
    rows.push({
      kind: 'Configuration',
      name: 'last-reload',
      conditions: [
        { type: 'Accepted', status: 'False', reason, message },
        { type: 'Programmed', status: 'False', reason, message },
      ],
    })
  }
  return rows
}

/**
 * A row, not Programmed, for each route that serves without authentication although it never
 * said it may (`allowUnauthenticated`): the dump's `authentication: None`, or, from a proxy whose
 * dump does not say, a route that no policy with `jwtAuthentication` targets. A current proxy
 * refuses such a configuration; this catches an older proxy and a dump saved from one.
 */
function unauthenticatedRows(dump: ConfigDump): StatusRow[] {
  const covered = new Set(
    dump.policies
      .filter((p) => (p.traffic as { jwtAuthentication?: unknown } | undefined)?.jwtAuthentication)
      .flatMap((p) => (p.targetRefs ?? []).map((ref) => String(ref.name))),
  )
  return dump.routes
    .filter((r) =>
      r.authentication !== undefined ? r.authentication === 'None' : !covered.has(r.name),
    )
    .map((r) => {
      const message = `route ${r.name} serves without authentication: no policy with traffic.jwtAuthentication targets it, and it does not say allowUnauthenticated: true`
      return {
        kind: 'Route',
        name: r.name,
        conditions: [
          { type: 'Accepted', status: 'False', reason: 'Unauthenticated', message },
          { type: 'Programmed', status: 'False', reason: 'Unauthenticated', message },
        ],
      }
    })
}

interface DumpWorker {
  id: number
  pid: number | null
  state: string
  restarts: number
  policies?: Record<string, { programmed: boolean; reason: string }>
}

/**
 * One row per worker when the proxy runs several (`config.workers`): Programmed when it is ready
 * and every policy is programmed on it (key sets are fetched per worker).
 */
function workerRows(dump: ConfigDump): StatusRow[] {
  const workers = Array.isArray(dump.workers) ? (dump.workers as DumpWorker[]) : []
  return workers.map((w) => {
    const unprogrammed = Object.entries(w.policies ?? {}).find(([, p]) => !p.programmed)
    const restarts = w.restarts > 0 ? `, restarted ${w.restarts} time(s)` : ''
    const condition: StatusCondition =
      w.state !== 'ready'
        ? {
            type: 'Programmed',
            status: 'False',
            reason: w.state === 'exited' ? 'Restarting' : 'Starting',
            message: `worker ${w.id} is ${w.state}${restarts}`,
          }
        : unprogrammed
          ? {
              type: 'Programmed',
              status: 'False',
              reason: unprogrammed[1].reason,
              message: `policy ${unprogrammed[0]} is not programmed on worker ${w.id} (pid ${w.pid})`,
            }
          : {
              type: 'Programmed',
              status: 'True',
              reason: 'Ready',
              message: `pid ${w.pid}${restarts}`,
            }
    return { kind: 'Worker', name: `worker-${w.id}`, conditions: [condition] }
  })
}

/** Whether every row (and every route parent) is Programmed / Accepted. */
export function allProgrammed(rows: readonly StatusRow[]): boolean {
  return rows.every(
    (r) =>
      r.conditions.find((c) => c.type === 'Programmed')?.status === 'True' &&
      (r.parents ?? []).every((p) => p.conditions.every((c) => c.status === 'True')),
  )
}

const TYPES = ['Accepted', 'ResolvedRefs', 'Attached', 'Programmed'] as const

/** The table: one row per resource, a column per condition, and why the first False one is. */
export function renderStatusTable(rows: readonly StatusRow[], reload?: unknown): string {
  const body = rows.map((r) => {
    const of = (t: string) => r.conditions.find((c) => c.type === t)
    const bad =
      r.conditions.find((c) => c.status !== 'True') ??
      r.parents?.flatMap((p) => p.conditions).find((c) => c.status !== 'True')
    return [
      r.kind,
      r.namespace ? `${r.namespace}/${r.name}` : r.name,
      ...TYPES.map((t) => of(t)?.status ?? '-'),
      bad ? `${bad.reason ?? ''}: ${bad.message ?? ''}` : '',
    ]
  })
  const table = renderTable(['KIND', 'NAME', ...TYPES.map((t) => t.toUpperCase()), 'REASON'], body)
  const r = reload as { at?: string; result?: string; message?: string } | undefined
  const last = r?.at
    ? `\nlast reload: ${r.result} at ${r.at}${r.message ? ` (${r.message})` : ''}`
    : ''
  return `${table}${last}\n`
}

/** Builds `status`; `setAction` receives the action to run. */
export function statusCommand(setAction: (a: Action) => void): Command {
  return new Command('status')
    .description(
      'Show the Gateway API status of every resource the proxy runs (exit 1 if any is not Programmed)',
    )
    .option('--local', 'the proxy of the local admin interface (the default)')
    .addOption(
      new Option('--file <path>', 'read a saved /config_dump file instead').conflicts('local'),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'yaml', 'json'])
        .default('table'),
    )
    .addHelpText(
      'after',
      `
Examples:
  gwctl proxy status
  gwctl proxy status -o yaml
  until gwctl proxy status > /dev/null; do sleep 1; done   # wait until everything is Programmed`,
    )
    .action((opts: { file?: string; output: 'table' | 'yaml' | 'json' }, cmd: Command) => {
      setAction(async (io) => {
        const dump = opts.file ? await readConfigDumpFile(opts.file) : await fetchDump(cmd)
        const rows = statusRows(dump)
        const doc = { resources: rows, ...(dump.reload ? { reload: dump.reload } : {}) }
        const text =
          opts.output === 'yaml'
            ? stringify(doc)
            : opts.output === 'json'
              ? `${JSON.stringify(doc, null, 2)}\n`
              : renderStatusTable(rows, dump.reload)
        await write(io.stdout, text)
        return allProgrammed(rows) ? 0 : 1
      })
    })
}

async function fetchDump(cmd: Command): Promise<ConfigDump> {
  const client = adminClientOf(cmd)
  const res = await client.expectOk('/config_dump')
  const source = `the /config_dump answer of ${formatAdminAddress(client.address)}`
  let doc: unknown
  try {
    doc = JSON.parse(await res.text())
  } catch (err) {
    throw new GwctlError('GWCTL_ERR_NOT_CONFIG_DUMP', `${source} is not JSON`, { cause: err })
  }
  return asConfigDump(doc, source)
}
