/**
 * Gives memory back to the operating system once the gateway falls idle (docs/design/performance.md,
 * "Memory"): V8 grows its young generation to 32 MiB (16 MiB semi-spaces) during start-up and under
 * load and keeps the old space it grew, and neither shrinks by itself while nothing allocates —
 * measured, an idle gateway with the demo configuration held 16 MiB of empty young generation for
 * minutes, and the RSS after a load did not move in 30 s. One full collection of V8's "last resort"
 * kind (the one it runs before giving up on an allocation) compacts the old space and shrinks the
 * young generation back to its initial size.
 *
 * The collection pauses the event loop (tens of milliseconds for a start-up heap, longer for a
 * large one), so it runs only when nothing is in flight and nothing happened since the previous
 * look: no request, no new connection, no background task (the task registry's counter), and once
 * per idle period. A held event stream is a request in flight: a gateway holding streams is not
 * idle and is never paused by it.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** What the trim reads of the gateway. */
export interface IdleTrimOptions {
  /** A number that changes whenever the gateway does work (`TaskRegistry.activity`). */
  activity(): number
  /** Requests in flight now (`TaskRegistry.inFlight`). */
  inFlight(): number
  /** Delay before the first look, ms: start-up's garbage goes early. Default 1,000. */
  firstMs?: number
  /** How often to look afterwards, ms. Default 5,000. */
  intervalMs?: number
  /** The collection; default {@link lastResortCollection}. */
  collect?: () => void
  /** Told after each trim how long the collection took and the RSS before and after it. */
  onTrim?: (trim: { ms: number; rssBefore: number; rssAfter: number }) => void
}

/** A running idle trim. */
export interface IdleTrim {
  /** Stops looking. Idempotent. */
  stop(): void
}

/**
 * V8's full "last resort" collection (`gc({ flavor: 'last-resort' })`), which also shrinks the young
 * generation. The `gc` function is taken from a fresh context with `--expose-gc` set for that moment
 * only: no global `gc` appears in this process's own context, nor in contexts created later.
 */
export function lastResortCollection(): () => void {
  setFlagsFromString('--expose-gc')
  let gc: (options: object) => void
  try {
    gc = runInNewContext('gc') as typeof gc
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

/** Starts looking for idle periods; the timers do not keep the process alive. */
export function startIdleTrim(options: IdleTrimOptions): IdleTrim {
  const collect = options.collect ?? lastResortCollection()
  const intervalMs = options.intervalMs ?? 5000
  let seen = options.activity()
  let trimmedAt: number | undefined
  let timer: NodeJS.Timeout | undefined
  const look = () => {
    const now = options.activity()
    if (now === seen && now !== trimmedAt && options.inFlight() === 0) {
      const rssBefore = process.memoryUsage.rss()
      const started = performance.now()
      collect()
      trimmedAt = now
      options.onTrim?.({
        ms: performance.now() - started,
        rssBefore,
        rssAfter: process.memoryUsage.rss(),
      })
    }
    seen = now
    timer = setTimeout(look, intervalMs).unref()
  }
  timer = setTimeout(look, options.firstMs ?? 1000).unref()
  return {
    stop() {
      clearTimeout(timer)
    },
  }
}
