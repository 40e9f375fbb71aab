#!/usr/bin/env node
/**
 * `npm run conformance:mutants`: proves the suite can fail. Runs the whole catalogue against the
 * reference proxy (must pass) and then against each seeded mutant of it (each must be caught by
 * at least one failed check). Two workers, each with its own mock-idp and mcp-backend, so that
 * checks observing the IdP or the backend never see another run's traffic.
 * Exit 0 when the reference passes and every mutant is caught.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { runChecks } from '../src/runner.js'
import { type Fixtures, ROOT, startFixtures, startGateway } from '../src/stack.js'

const WORKERS = 2
const started = performance.now()
const listed = spawnSync(
  join(ROOT, 'node_modules/.bin/tsx'),
  [join(ROOT, 'proxy/test/mutants/gatehouse-mutant.ts'), '--list'],
  {
    encoding: 'utf8',
  },
)
if (listed.status !== 0) {
  process.stderr.write(`mutants: cannot list the seeded faults: ${listed.stderr}\n`)
  process.exit(1)
}
const faults = listed.stdout.split('\n').filter(Boolean)

interface Outcome {
  name: string
  failed: string[]
  error?: string
}

async function judge(fixtures: Fixtures, fault?: string): Promise<Outcome> {
  const name = fault ?? '(none: the reference proxy)'
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined
  try {
    gateway = await startGateway(fixtures, fault ? { fault } : {})
    const results = await runChecks(gateway.target)
    return { name, failed: results.filter((r) => r.status === 'failed').map((r) => r.id) }
  } catch (err) {
    return { name, failed: [], error: (err as Error).message.split('\n')[0] ?? 'error' }
  } finally {
    await gateway?.stop()
  }
}

const pool = await Promise.all(Array.from({ length: WORKERS }, () => startFixtures()))
const outcomes: Outcome[] = []
let reference: Outcome
try {
  reference = await judge(pool[0] as Fixtures)
  const queue = [...faults]
  await Promise.all(
    pool.map(async (fixtures) => {
      for (let fault = queue.shift(); fault !== undefined; fault = queue.shift()) {
        const outcome = await judge(fixtures, fault)
        outcomes.push(outcome)
        process.stdout.write(
          `  ${outcome.failed.length > 0 ? 'caught  ' : 'SURVIVED'} ${fault}${outcome.failed.length > 0 ? ` by ${outcome.failed.join(', ')}` : ''}${outcome.error ? ` (error: ${outcome.error})` : ''}\n`,
        )
      }
    }),
  )
} finally {
  await Promise.all(pool.map((f) => f.stop()))
}

const survived = outcomes.filter((o) => o.failed.length === 0)
const seconds = ((performance.now() - started) / 1000).toFixed(1)
process.stdout.write('\n')
if (reference.failed.length > 0 || reference.error) {
  process.stdout.write(
    `the reference proxy FAILED: ${reference.error ?? reference.failed.join(', ')}\n`,
  )
} else {
  process.stdout.write('the reference proxy passes every check\n')
}
if (survived.length > 0)
  process.stdout.write(`survivors: ${survived.map((o) => o.name).join(', ')}\n`)
process.stdout.write(
  `mutation score: ${outcomes.length - survived.length}/${faults.length} faults caught (${seconds} s)\n`,
)
const ok =
  reference.failed.length === 0 &&
  !reference.error &&
  survived.length === 0 &&
  outcomes.length === faults.length
setImmediate(() => process.exit(ok ? 0 : 1))
