/**
 * The `/config_dump` document of the admin interface (shape pinned in
 * docs/internal/contracts.md, section Admin; its one schema is the proxy's
 * `admin/config-dump-schema.ts`). gwctl reads it tolerantly: only the sections it renders are
 * checked, unknown fields are kept, so a newer proxy's dump still renders.
 */
import { readFile } from 'node:fs/promises'
import type { ConfigDump as ProxyConfigDump } from '@gatehouse/proxy/config-dump-schema'
import { parse as parseYaml } from 'yaml'
import { GwctlError } from './errors.js'

/**
 * What gwctl reads of a value of the proxy's dump: the same shape, every field optional, so that
 * a dump of an older or newer proxy still renders what it has.
 */
type Tolerant<T> = T extends readonly (infer E)[]
  ? Tolerant<E>[]
  : T extends object
    ? { [K in keyof T]?: Tolerant<T[K]> }
    : T

/** An entry of one of the dump's lists: tolerant, but always named (`asConfigDump` checks it). */
type Entry<K extends 'binds' | 'routes' | 'backends' | 'policies'> = Tolerant<
  ProxyConfigDump[K][number]
> & { name: string }

type ProxyPolicy = ProxyConfigDump['policies'][number]
type ProxyCondition = ProxyPolicy['status']['conditions'][number]

/** A status condition of a policy (Gateway API style: `Accepted`, `Attached`, `Programmed`). */
export type Condition = Tolerant<ProxyCondition> & Pick<ProxyCondition, 'type' | 'status'>

/** A listening gateway and its listeners. */
export type DumpBind = Entry<'binds'>

/**
 * A rule of a route as configured. The dump's schema leaves rules open (the configuration's own
 * shape, redacted); these are the fields gwctl renders.
 */
export interface DumpRule {
  matches?: Array<{ path?: { type?: string; value?: string } }>
  backendRefs?: Array<{ name: string; port?: number }>
  filters?: Array<{ type: string }>
}

/** A route with its rules as configured. */
export type DumpRoute = Omit<Entry<'routes'>, 'rules'> & { rules?: DumpRule[] }

/** A backend. */
export type DumpBackend = Entry<'backends'>

/** A policy with its status. */
export type DumpPolicy = Omit<Entry<'policies'>, 'status'> & {
  status?: Omit<Tolerant<ProxyPolicy['status']>, 'conditions'> & { conditions?: Condition[] }
}

/**
 * The dump as gwctl reads it. Its shape is the proxy's own schema
 * (`@gatehouse/proxy/config-dump-schema`, imported for its types only, so gwctl loads no proxy
 * code), read tolerantly: only the four lists are required, and fields gwctl does not know are
 * kept.
 */
export type ConfigDump = Tolerant<
  Omit<ProxyConfigDump, 'binds' | 'routes' | 'backends' | 'policies'>
> & {
  binds: DumpBind[]
  routes: DumpRoute[]
  backends: DumpBackend[]
  policies: DumpPolicy[]
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
