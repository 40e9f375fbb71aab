/**
 * Reloading the configuration: whatever asks (the file watcher, SIGHUP, admin `POST /reload`),
 * one reload runs at a time, and requests that arrive while one runs share the single reload
 * that starts after it (it reads the files as they are by then). A reload reads, validates and
 * compiles the whole configuration before anything changes; a configuration that fails keeps the
 * running one serving, and the failure is logged with its paths and lines and recorded (the last
 * reload is in `/config_dump`, counted by `gatehouse_config_reloads_total{result}`).
 */
import type { Logger } from 'pino'
import type { ReloadRecord, ReloadTrigger } from '../admin/context.js'
import { ConfigError, GatehouseError } from '../errors.js'

export type { ReloadRecord, ReloadTrigger } from '../admin/context.js'

/** Options of {@link Reloader}. */
export interface ReloaderOptions {
  /** Reads, validates and applies the configuration; resolves with what happened. */
  reload(): Promise<'success' | 'unchanged'>
  log: Logger
  /** Hears every outcome (metrics). */
  onResult?(record: ReloadRecord): void
}

/** Serializes and records reloads. */
export class Reloader {
  readonly #options: ReloaderOptions
  #running: Promise<ReloadRecord> | undefined
  #queued: Promise<ReloadRecord> | undefined
  #last: ReloadRecord | undefined
  #closed = false

  constructor(options: ReloaderOptions) {
    this.#options = options
  }

  /** The last reload, if any. */
  get last(): ReloadRecord | undefined {
    return this.#last
  }

  /** Asks for a reload; resolves once a reload that started after this call has finished. */
  request(trigger: ReloadTrigger): Promise<ReloadRecord> {
    if (!this.#running) return this.#start(trigger)
    this.#queued ??= this.#running.then(() => {
      this.#queued = undefined
      return this.#start(trigger)
    })
    return this.#queued
  }

  /** No reload starts after this (shutdown). */
  close(): void {
    this.#closed = true
  }

  #start(trigger: ReloadTrigger): Promise<ReloadRecord> {
    const run = this.#run(trigger)
    this.#running = run
    void run.finally(() => {
      if (this.#running === run) this.#running = undefined
    })
    return run
  }

  async #run(trigger: ReloadTrigger): Promise<ReloadRecord> {
    const { log } = this.#options
    let record: ReloadRecord
    if (this.#closed) {
      record = { at: now(), trigger, result: 'failure', message: 'the proxy is shutting down' }
    } else {
      try {
        const result = await this.#options.reload()
        record = {
          at: now(),
          trigger,
          result,
          message:
            result === 'success'
              ? 'the new configuration serves'
              : 'the configuration did not change',
        }
        if (result === 'success') log.info({ trigger }, `configuration reloaded (${trigger})`)
        else log.debug({ trigger }, `configuration unchanged (${trigger})`)
      } catch (err) {
        const message =
          err instanceof ConfigError ? err.message : `${(err as Error).message ?? String(err)}`
        // A route refused for want of authentication is named as such, so that status says why
        // the previous configuration still serves (docs/reliability.md, "Fail-open configuration").
        const reason =
          err instanceof ConfigError
            ? (err.issues.find((i) => i.reason)?.reason ?? 'Invalid')
            : 'Invalid'
        record = { at: now(), trigger, result: 'failure', message, reason }
        log.error(
          {
            trigger,
            code: err instanceof GatehouseError ? err.code : 'GW_ERR_INTERNAL',
            issues: err instanceof ConfigError ? err.issues : undefined,
          },
          `configuration reload (${trigger}) failed; the previous configuration keeps serving: ${message}`,
        )
      }
    }
    this.#last = record
    this.#options.onResult?.(record)
    return record
  }
}

const now = () => new Date().toISOString()
