/**
 * `tsx ci/lanes.ts <lane> [<lane>…]`: runs npm scripts in lanes, the lanes at once and each lane's
 * scripts one after another (`a,b`: b once a passed), so that a step that mostly waits on
 * something else — `test:compose` on the Docker engine's builds and health checks — overlaps
 * with the CPU-bound ones (`conformance:mutants`, `test:stryker`) instead of adding its time to
 * theirs. Each script's output is printed whole when it ends, under a line naming it, so lanes do
 * not interleave; a last line gives every script's time. Exits 1 when any script failed (a lane
 * stops at its first failure; the other lanes run on).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ROOT } from '../scripts/build-config.js'

/** What running one script gave. */
export interface ScriptRun {
  code: number
  output: string
}

/** Runs one npm script. */
export type RunScript = (script: string) => Promise<ScriptRun>

/** One script's outcome, in the order the scripts ended. */
export interface LaneResult {
  script: string
  code: number
  seconds: number
}

/** `npm run <script>` in the repository, its stdout and stderr kept together. */
export const runNpmScript: RunScript = (script) =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString()
    })
    child.on('error', (err) => resolve({ code: 1, output: `${output}\n${err.message}\n` }))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })

/**
 * Runs `lanes` (each a comma-separated list of scripts) at once; writes each script's output to
 * `write` when it ends. Resolves with every script that ran.
 */
export async function runLanes(
  lanes: readonly string[],
  run: RunScript = runNpmScript,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<LaneResult[]> {
  const results: LaneResult[] = []
  await Promise.all(
    lanes.map(async (lane) => {
      for (const script of lane.split(',').filter((s) => s !== '')) {
        const started = performance.now()
        const { code, output } = await run(script)
        const seconds = Math.round((performance.now() - started) / 1000)
        write(`\n== npm run ${script}: exit ${code} in ${seconds} s ==\n${output}`)
        results.push({ script, code, seconds })
        if (code !== 0) return
      }
    }),
  )
  return results
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lanes = process.argv.slice(2)
  if (lanes.length === 0) {
    process.stderr.write('usage: tsx ci/lanes.ts <script[,script…]> [<script[,script…]>…]\n')
    process.exit(2)
  }
  const results = await runLanes(lanes)
  const summary = results.map(
    (r) => `${r.script} ${r.code === 0 ? 'passed' : 'FAILED'} (${r.seconds} s)`,
  )
  process.stdout.write(`\nlanes: ${summary.join(', ')}\n`)
  const ran = new Set(results.map((r) => r.script))
  const skipped = lanes.flatMap((l) => l.split(',')).filter((s) => s !== '' && !ran.has(s))
  if (skipped.length > 0)
    process.stdout.write(`lanes: not run after a failure: ${skipped.join(', ')}\n`)
  process.exit(results.every((r) => r.code === 0) && skipped.length === 0 ? 0 : 1)
}
