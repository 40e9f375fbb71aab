/**
 * Standard output for the logs, written in batches ({@link stdoutDestination}): the access log
 * writes a line per request, and both a system call per line and sonic-boom's own buffering cost
 * more per line than joining them here (docs/design/performance.md).
 */
import { pino } from 'pino'

/** What {@link batchedLines} batches for: a sonic-boom (pino.destination), as far as it is used. */
export interface LineSink {
  write(text: string): boolean
  flush(cb?: ((err?: Error) => void) | null): void
  flushSync(): void
}

/**
 * Lines handed to `sink` in batches of at least `minChars` characters, joined once. sonic-boom
 * buffers lines itself (`minLength`), but measures the whole pending buffer (`Buffer.byteLength`)
 * on every write: with 12 KiB pending that was 6–7 µs per access line, against 3.5 µs batched here
 * (in-process, 2026-11-28; docs/design/performance.md). What is batched goes out before anything
 * the sink flushes: its periodic and exit flushes (`flush`, `flushSync`, which pino calls when
 * the process exits) write the batch first, so lines keep their order and none is left behind.
 */
export function batchedLines(sink: LineSink, minChars: number): pino.DestinationStream & LineSink {
  let parts: string[] = []
  let chars = 0
  const drain = () => {
    if (parts.length === 0) return
    const text = parts.length === 1 ? (parts[0] as string) : parts.join('')
    parts = []
    chars = 0
    sink.write(text)
  }
  const flush = sink.flush.bind(sink)
  const flushSync = sink.flushSync.bind(sink)
  sink.flush = (cb) => {
    drain()
    flush(cb)
  }
  sink.flushSync = () => {
    drain()
    flushSync()
  }
  return {
    write(line) {
      parts.push(line)
      chars += line.length
      if (chars >= minChars) drain()
      return true
    },
    flush: (cb) => sink.flush(cb),
    flushSync: () => sink.flushSync(),
  }
}

/**
 * Standard output, written in batches: with the access log on there is a line per request, and a
 * write (a system call) per line costs more CPU than the request itself. Lines are written once
 * 12 KiB are pending (about 40 access lines; {@link batchedLines}), or at the latest every 200 ms
 * (sonic-boom's periodic flush); pino flushes what is left when the process exits. At 4 KiB the
 * writes still took about 2.5% of the CPU of a proxied request (profile of 2026-11-25,
 * docs/design/performance.md).
 */
export function stdoutDestination(): pino.DestinationStream {
  const boom = pino.destination({ dest: 1, sync: false, minLength: 0, periodicFlush: 200 })
  return batchedLines(boom, 12 * 1024)
}
