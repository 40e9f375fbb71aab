/**
 * Watching the configuration files for changes: each `-f` directory, and the directory of each
 * `-f` file (editors and Kubernetes replace files rather than write them in place: a ConfigMap
 * volume swaps its `..data` symlink, so the event names `..data`, not the file). Events are
 * debounced: a burst of writes (a file written in pieces, a `kubectl apply` of many objects) asks
 * for one reload once it has been quiet for `debounceMs`. A reload that reads a half-written file
 * fails and keeps the running configuration; the write's last event asks again.
 */
import { type FSWatcher, statSync, watch } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { Logger } from 'pino'

/** Options of {@link watchSources}. */
export interface WatchOptions {
  /** Quiet time before a reload is asked for. Default 200 ms. */
  debounceMs?: number
  log: Logger
}

/** A running watch. */
export interface SourceWatch {
  close(): void
}

/** Calls `onChange` (debounced) whenever something in the watched paths changes. */
export function watchSources(
  paths: readonly string[],
  onChange: () => void,
  options: WatchOptions,
): SourceWatch {
  const debounceMs = options.debounceMs ?? 200
  const dirs = new Set<string>()
  for (const p of paths) {
    let isDir = false
    try {
      isDir = statSync(p).isDirectory()
    } catch {
      isDir = false
    }
    dirs.add(resolve(isDir ? p : dirname(p)))
  }
  let timer: NodeJS.Timeout | undefined
  const fire = () => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = undefined
      onChange()
    }, debounceMs)
    timer.unref()
  }
  const watchers: FSWatcher[] = []
  for (const dir of dirs) {
    try {
      const w = watch(dir, { persistent: false }, fire)
      w.on('error', (err) =>
        options.log.warn({ dir, err: err.message }, `stopped watching ${dir} for changes`),
      )
      watchers.push(w)
    } catch (err) {
      options.log.warn(
        { dir, err: (err as Error).message },
        `cannot watch ${dir}; reload with SIGHUP or POST /reload`,
      )
    }
  }
  if (watchers.length > 0) {
    options.log.info(
      { dirs: [...dirs] },
      `watching ${[...dirs].join(', ')} for configuration changes (reload also on SIGHUP and POST /reload)`,
    )
  }
  return {
    close() {
      if (timer) clearTimeout(timer)
      for (const w of watchers) w.close()
    },
  }
}
