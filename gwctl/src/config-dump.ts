/**
 * The `/config_dump` document of the admin interface (shape pinned in
 * docs/internal/contracts.md, section Admin). gwctl reads it tolerantly: only the sections it
 * renders are checked, unknown fields are kept, so a newer proxy's dump still renders.
 */
import { readFile } from 'node:fs/promises'
import { parse as parseYaml } from 'yaml'
import { GwctlError } from './errors.js'

/** A status condition of a policy (Gateway API style: `Accepted`, `Attached`, `Programmed`). */
export interface Condition {
  type: string
  status: string
  reason?: string
  message?: string
}

/** A listening gateway and its listeners. */
export interface DumpBind {
  name: string
  address?: string
  port?: number
  url?: string
  listeners?: Array<{ name: string; protocol?: string; routes?: string[] }>
}

/** A route with its rules as configured. */
export interface DumpRoute {
  name: string
  rules?: Array<{
    matches?: Array<{ path?: { type?: string; value?: string } }>
    backendRefs?: Array<{ name: string; port?: number }>
    filters?: Array<{ type: string }>
  }>
}

/** A backend. */
export interface DumpBackend {
  name: string
  address?: string
  tls?: unknown
}

/** A policy with its status. */
export interface DumpPolicy {
  name: string
  targetRefs?: Array<{ kind?: string; name: string }>
  traffic?: Record<string, unknown>
  status?: {
    programmed?: boolean
    reason?: string
    message?: string
    conditions?: Condition[]
  }
}

/** The parts of `/config_dump` gwctl renders; everything else is passed through. */
export interface ConfigDump {
  version?: { product?: string; version?: string; node?: string; platform?: string }
  config?: Record<string, unknown>
  binds: DumpBind[]
  routes: DumpRoute[]
  backends: DumpBackend[]
  policies: DumpPolicy[]
  workloads?: unknown[]
  services?: unknown[]
  [key: string]: unknown
}

const REQUIRED_SECTIONS = ['binds', 'routes', 'backends', 'policies'] as const

/**
 * Checks that a parsed document is a config dump.
 * @param source where it came from, for the message (a file path or the admin address).
 * @throws GwctlError GWCTL_ERR_NOT_CONFIG_DUMP naming the missing sections.
 */
export function asConfigDump(doc: unknown, source: string): ConfigDump {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new GwctlError(
      'GWCTL_ERR_NOT_CONFIG_DUMP',
      `${source} is not a config dump: expected a JSON object as saved from GET /config_dump`,
    )
  }
  const record = doc as Record<string, unknown>
  const missing = REQUIRED_SECTIONS.filter((k) => !Array.isArray(record[k]))
  if (missing.length > 0) {
    throw new GwctlError(
      'GWCTL_ERR_NOT_CONFIG_DUMP',
      `${source} is not a config dump: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing or not a list. ` +
        'Save one with: curl -s http://127.0.0.1:15000/config_dump > dump.json',
    )
  }
  for (const k of REQUIRED_SECTIONS) {
    for (const [i, item] of (record[k] as unknown[]).entries()) {
      if (
        typeof item !== 'object' ||
        item === null ||
        typeof (item as { name?: unknown }).name !== 'string'
      ) {
        throw new GwctlError(
          'GWCTL_ERR_NOT_CONFIG_DUMP',
          `${source} is not a config dump: ${k}[${i}] has no name`,
        )
      }
    }
  }
  return record as ConfigDump
}

/**
 * Reads a saved config dump. JSON is the saved form; YAML (what `-o yaml` prints) is accepted
 * too, since a dump rendered once may be fed back.
 * @throws GwctlError GWCTL_ERR_FILE_UNREADABLE or GWCTL_ERR_NOT_CONFIG_DUMP.
 */
export async function readConfigDumpFile(path: string): Promise<ConfigDump> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    const code = (err as { code?: string }).code
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message
    throw new GwctlError('GWCTL_ERR_FILE_UNREADABLE', `cannot read ${path}: ${why}`, { cause: err })
  }
  let doc: unknown
  try {
    doc = parseYaml(text)
  } catch (err) {
    throw new GwctlError(
      'GWCTL_ERR_NOT_CONFIG_DUMP',
      `${path} is not a config dump: it is neither JSON nor YAML (${(err as Error).message.split('\n')[0]})`,
      { cause: err },
    )
  }
  return asConfigDump(doc, path)
}
