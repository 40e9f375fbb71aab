/** Runs the conformance bin (`conformance/bin/conformance.ts`) to its end, as a user does. */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from '../../../src/stack.js'

const BIN = join(ROOT, 'conformance/bin/conformance.ts')
/** tsx, to run TypeScript entry points (the bin, the hand-written client). */
export const TSX = join(ROOT, 'node_modules/.bin/tsx')
/**
 * The hand-written client (conformance/test/client/clients/hand-client.ts); add `--fault <name>`.
 * Relative to the repository, where the bin runs it (the report shows the command).
 */
export const HAND = 'node_modules/.bin/tsx conformance/test/client/clients/hand-client.ts'

/** The bin's exit code and output; stdin is a closed pipe, as in CI. */
export function conformance(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [BIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    child.stdin.end()
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}
