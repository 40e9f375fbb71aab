/**
 * Structured logging (pino) with a runtime-changeable, per-module filter in the RUST_LOG syntax
 * the seed's `/logging` endpoint takes: `info`, or `info,proxy::httpproxy=trace`.
 * Every log object and message goes through the shared redaction (`@gatehouse/redact`), so tokens
 * and secrets never reach a log whatever field or message they hide in; the one exception is a line
 * marked {@link SAFE_LINE}, built from chosen fields that redacts what a client chose itself.
 */
import { redactText, redactValue } from '@gatehouse/redact'
import { pino } from 'pino'
import { GatehouseError } from '../errors.js'
import { stdoutDestination } from './stdout-lines.js'

/** The proxy's named log modules. A filter directive names one of these or a `::` prefix of one. */
export const LOG_MODULES = [
  'proxy::config',
  'proxy::dataplane',
  'proxy::httpproxy',
  'proxy::cors',
  'proxy::auth::jwt',
  'proxy::auth::jwks',
  'proxy::auth::authz',
  'proxy::auth::mcp',
  'proxy::admin',
  'proxy::telemetry',
  'proxy::access',
] as const

/** One of {@link LOG_MODULES}. */
export type LogModule = (typeof LOG_MODULES)[number]

/** Levels, most severe first; `off` silences. */
export const LOG_LEVELS = ['off', 'error', 'warn', 'info', 'debug', 'trace'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** A parsed filter: a default level and per-module overrides (longest prefix wins). */
export interface LogFilter {
  defaultLevel: LogLevel
  directives: ReadonlyArray<{ module: string; level: LogLevel }>
}

/** A filter that could not be parsed; the message names the bad part. */
export class LogFilterError extends GatehouseError {
  constructor(message: string) {
    super('GW_ERR_LOG_FILTER', message)
    this.name = 'LogFilterError'
  }
}

function isLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s)
}

function knownModule(mod: string): boolean {
  return LOG_MODULES.some((m) => m === mod || m.startsWith(`${mod}::`))
}

/**
 * Parses a filter such as `warn,proxy::auth=debug,proxy::httpproxy=trace`.
 * A bare module name (`proxy::httpproxy`) means `trace` for it, as in RUST_LOG.
 * @throws {@link LogFilterError} naming the unknown level or module.
 */
export function parseLogFilter(text: string): LogFilter {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0)
  if (parts.length === 0) throw new LogFilterError('empty log filter; expected e.g. "info"')
  let defaultLevel: LogLevel = 'info'
  const directives: Array<{ module: string; level: LogLevel }> = []
  for (const part of parts) {
    const eq = part.indexOf('=')
    if (eq === -1 && isLevel(part.toLowerCase())) {
      defaultLevel = part.toLowerCase() as LogLevel
      continue
    }
    const mod = eq === -1 ? part : part.slice(0, eq).trim()
    const level =
      eq === -1
        ? 'trace'
        : part
            .slice(eq + 1)
            .trim()
            .toLowerCase()
    if (!isLevel(level)) {
      throw new LogFilterError(
        `unknown level "${level}" in "${part}"; expected one of ${LOG_LEVELS.join(', ')}`,
      )
    }
    if (!knownModule(mod)) {
      throw new LogFilterError(
        eq === -1
          ? `"${part}" is neither a level (${LOG_LEVELS.join(', ')}) nor a module (${LOG_MODULES.join(', ')})`
          : `unknown module "${mod}"; modules are ${LOG_MODULES.join(', ')} (or a "::" prefix of one)`,
      )
    }
    directives.push({ module: mod, level })
  }
  return { defaultLevel, directives }
}

/** Renders a filter back to its canonical text. */
export function formatLogFilter(filter: LogFilter): string {
  return [filter.defaultLevel, ...filter.directives.map((d) => `${d.module}=${d.level}`)].join(',')
}

/** The effective level of one module under a filter. */
export function levelFor(filter: LogFilter, module: string): LogLevel {
  let best: { module: string; level: LogLevel } | undefined
  for (const d of filter.directives) {
    if (
      (module === d.module || module.startsWith(`${d.module}::`)) &&
      (!best || d.module.length >= best.module.length)
    ) {
      best = d
    }
  }
  return best?.level ?? filter.defaultLevel
}

const PINO_LEVEL: Record<LogLevel, pino.LevelWithSilent> = {
  off: 'silent',
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  trace: 'trace',
}

/** Module loggers with one shared, changeable filter. */
export interface Logging {
  /** The logger of one module; its level follows the filter. */
  logger(module: LogModule): pino.Logger
  /** Parses and applies a filter at once; returns its canonical text. @throws LogFilterError */
  setFilter(text: string): string
  /** The current filter, canonical text. */
  filter(): string
  /** The writer of `module`'s info lines built from safe fields (see {@link SafeLines}). */
  safeLines(module: LogModule): SafeLines
}

/**
 * Info lines of one module built from safe fields only (the access line, access-log.ts), written
 * as pino would write them (same fields, same order: level, time, pid, name, module, the line's
 * fields, msg) but serialised by one `JSON.stringify` of the whole line instead of pino's pass
 * over each field, which was 2–3 % of a proxied request's CPU (docs/design/performance.md). Like a
 * {@link safeLine}, the line skips the generic redaction: whoever writes one answers for
 * redacting what a client chose in it.
 */
export interface SafeLines {
  /** Whether the module's filter lets info lines through now (it changes at run time). */
  readonly enabled: boolean
  /** Writes `line` with message `msg`, whatever the filter says: check {@link enabled} first. */
  write(line: Readonly<Record<string, unknown>>, msg: string): void
}

/**
 * Marks a log object as built from safe fields only (the access line, access-log.ts): the generic
 * redaction pass skips it. Whoever marks a line answers for redacting what a client chose in it.
 */
export const SAFE_LINE: unique symbol = Symbol('gatehouse.safe-line')

/** `line`, marked {@link SAFE_LINE}. */
export function safeLine<T extends object>(line: T): T {
  ;(line as Record<symbol, unknown>)[SAFE_LINE] = true
  return line
}

const isSafe = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && SAFE_LINE in value

/** Options of {@link createLogging}. */
export interface LoggingOptions {
  /** Initial filter. Default `info`. */
  filter?: string
  /** Where lines go. Default stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream
}

/**
 * pino's ISO `time` field, formatted once per millisecond: with the access log on, several lines
 * share each millisecond, and formatting a date costs more than the rest of the field.
 */
function isoTimeByMillisecond(): () => string {
  let at = 0
  let field = ''
  return () => {
    const now = Date.now()
    if (now !== at) {
      at = now
      field = `,"time":"${new Date(now).toISOString()}"`
    }
    return field
  }
}

/** Creates the process's logging. @throws LogFilterError when the initial filter is invalid. */
export function createLogging(options: LoggingOptions = {}): Logging {
  let current = parseLogFilter(options.filter ?? 'info')
  const destination = options.destination ?? stdoutDestination()
  const time = isoTimeByMillisecond()
  const pid = process.pid
  const root = pino(
    {
      name: 'gatehouse',
      level: 'trace',
      base: { pid },
      timestamp: time,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) =>
          isSafe(object) ? object : (redactValue(object) as Record<string, unknown>),
      },
      hooks: {
        logMethod(args, method) {
          // A safe line comes with a constant message.
          if (isSafe(args[0])) return method.apply(this, args)
          const redacted = args.map((a) => (typeof a === 'string' ? redactText(a) : a))
          return method.apply(this, redacted as Parameters<typeof method>)
        },
      },
    },
    destination,
  )
  const modules = new Map<string, pino.Logger>()
  const apply = (mod: string, log: pino.Logger) => {
    log.level = PINO_LEVEL[levelFor(current, mod)]
  }
  const logger = (module: LogModule): pino.Logger => {
    let log = modules.get(module)
    if (!log) {
      log = root.child({ module })
      apply(module, log)
      modules.set(module, log)
    }
    return log
  }
  return {
    logger,
    safeLines(module) {
      const log = logger(module)
      const head = `,"pid":${pid},"name":"gatehouse","module":${JSON.stringify(module)}`
      return {
        get enabled() {
          return log.isLevelEnabled('info')
        },
        write(line, msg) {
          const fields = JSON.stringify(line)
          const body = fields.length > 2 ? `,${fields.slice(1, -1)}` : ''
          destination.write(
            `{"level":"info"${time()}${head}${body},"msg":${JSON.stringify(msg)}}\n`,
          )
        },
      }
    },
    setFilter(text) {
      current = parseLogFilter(text)
      for (const [mod, log] of modules) apply(mod, log)
      return formatLogFilter(current)
    },
    filter() {
      return formatLogFilter(current)
    },
  }
}
