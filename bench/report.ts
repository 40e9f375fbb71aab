/**
 * What every benchmark script shares: its numeric options plus `--write`, and its report, printed
 * and, with `--write`, appended to bench/RESULTS.md under a dated heading that names the Node
 * version and the number of cores.
 */
import { appendFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { writeReadmeParagraph } from './readme.js'

/**
 * Parses `--<name> <number>` for each of `defaults` (their default values), `--<name> <text>` for
 * each of `texts` (lists such as `--nodes 22,24`) and `--write`. A value that is not a number
 * ends the process with exit code 2.
 */
export function benchOptions<K extends string, S extends string = never>(
  defaults: Record<K, number>,
  texts: Record<S, string> = {} as Record<S, string>,
): Record<K, number> & Record<S, string> & { write: boolean } {
  const names = Object.keys(defaults) as K[]
  const all = { ...defaults, ...texts } as Record<string, number | string>
  const { values } = parseArgs({
    options: {
      ...Object.fromEntries(
        Object.keys(all).map((k) => [k, { type: 'string' as const, default: String(all[k]) }]),
      ),
      write: { type: 'boolean', default: false },
    },
  }) as { values: Record<string, string | boolean | undefined> }
  const parsed: Record<string, number | string | boolean> = { write: values.write === true }
  for (const k of Object.keys(texts)) parsed[k] = String(values[k])
  for (const k of names) {
    const n = Number(values[k])
    if (!Number.isFinite(n)) {
      process.stderr.write(`--${k}: expected a number, got "${String(values[k])}"\n`)
      process.exit(2)
    }
    parsed[k] = n
  }
  return parsed as Record<K, number> & Record<S, string> & { write: boolean }
}

/**
 * Prints a benchmark's report; with `write`, appends it to bench/RESULTS.md as
 * `## <date> — <title>, <runtime>, <n> cores` (`runtime` by default the Node running this), then `note`, then the report, and rewrites the
 * README's performance paragraph from it (bench/readme.ts).
 */
export function report(
  title: string,
  note: string,
  lines: readonly string[],
  write: boolean,
  runtime = `Node ${process.version}`,
): void {
  const text = lines.join('\n')
  console.log(text)
  if (!write) return
  const header = `\n## ${new Date().toISOString().slice(0, 10)} — ${title}, ${runtime}, ${cpus().length} cores\n\n${note}\n\n`
  appendFileSync(join(new URL('.', import.meta.url).pathname, 'RESULTS.md'), `${header}${text}\n`)
  writeReadmeParagraph()
}
