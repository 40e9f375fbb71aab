/**
 * TEST-ONLY entry: the reference proxy with seeded faults, for `npm run conformance:mutants`.
 * `gatehouse-mutant.ts --list` prints the faults; `--fault <name> [--fault …] -f <config>` runs.
 * Production never loads this file: the `gatehouse` binary has no way to pass faults.
 */
import { run } from '../../src/cli.js'
import { FAULTS, faultSet } from '../../src/faults.js'

const args = process.argv.slice(2)
if (args.includes('--list')) {
  process.stdout.write(`${FAULTS.join('\n')}\n`)
  process.exit(0)
}
const faults: string[] = []
const rest: string[] = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--fault') faults.push(args[++i] ?? '')
  else rest.push(args[i] as string)
}
const code = await run(rest, { faults: faultSet(faults) })
setImmediate(() => process.exit(code))
