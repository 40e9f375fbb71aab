#!/usr/bin/env node
/**
 * `npm run conformance:mutants`: proves the conformance suite can fail. Runs the whole catalogue
 * against the reference proxy (must pass) and then against each mutant — a temporary copy of
 * `proxy/` with one mutant of `mutation/mutants/` planted: the requirements the mutant names
 * (`catches`) first, the rest of the catalogue only when none of them failed. A mutant counts as
 * caught only when at least one of the requirements it names failed; failing only other checks is a miss (the suite caught it by
 * accident). Two workers, each with its own mock-idp and mcp-backend, so that checks observing the
 * IdP or the backend never see another run's traffic.
 * Exit 0 when the reference passes and every mutant is caught.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { runChecks } from '@gatehouse/conformance/internal/runner'
import { type Fixtures, startFixtures, startGateway } from '@gatehouse/conformance/internal/stack'
import type { Result } from '@gatehouse/conformance/internal/types'
import { listMutants, type Mutant } from '../src/mutants.js'
import { buildProxy, copyProxy, MUTANT_WORK_DIR, prepareMutant } from '../src/proxy-copy.js'

const WORKERS = 2
const started = performance.now()
const all = listMutants()
/** `npm run conformance:mutants -- <name>…` judges only those (while writing or fixing one). */
const wanted = process.argv.slice(2)
const unknown = wanted.filter((n) => !all.some((m) => m.name === n))
if (unknown.length > 0) {
  process.stderr.write(
    `mutants: no mutant mutation/mutants/${unknown[0]}.yaml; known: ${all.map((m) => m.name).join(', ')}\n`,
  )
  process.exit(2)
}
const mutants = wanted.length > 0 ? all.filter((m) => wanted.includes(m.name)) : all
/** This run's proxy copies, one directory per worker; each is built (esbuild, as `npm run build`)
 * and the build started with node, which comes up in about half the time tsx takes. */
const runDir = join(MUTANT_WORK_DIR, `run-${process.pid}`)

/** How one run ended. */
interface Outcome {
  name: string
  /** Requirement IDs that failed. */
  failed: string[]
  /** The run could not happen (a stale mutant, start-up). */
  error?: string
}

type Verdict = 'caught' | 'MISSED' | 'UNRELATED' | 'ERROR'

function verdict(mutant: Mutant, outcome: Outcome): Verdict {
  if (outcome.error) return 'ERROR'
  if (outcome.failed.some((id) => mutant.catches.includes(id))) return 'caught'
  return outcome.failed.length > 0 ? 'UNRELATED' : 'MISSED'
}

async function judge(fixtures: Fixtures, worker: number, mutant?: Mutant): Promise<Outcome> {
  const name = mutant?.name ?? '(reference proxy)'
  let copy: ReturnType<typeof prepareMutant> | undefined
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined
  try {
    // The reference proxy is judged as the mutants are: a copy of proxy/, built.
    const workDir = join(runDir, `worker-${worker}`)
    copy = mutant ? prepareMutant(mutant, workDir) : copyProxy(workDir)
    const options = { command: await buildProxy(copy.proxyDir) }
    // One more try when the process does not come up: on a loaded machine another process can
    // take the free port between its discovery and the gateway's bind.
    gateway = await startGateway(fixtures, options).catch(() => startGateway(fixtures, options))
    const failedIn = (results: Result[]) =>
      results.filter((r) => r.status === 'failed').map((r) => r.id)
    if (!mutant) return { name, failed: failedIn(await runChecks(gateway.target)) }
    // The requirements the mutant names first: when one fails, the mutant is caught and the rest
    // of the catalogue would not change the verdict. Only otherwise does the rest run, to tell a
    // fault noticed by accident (UNRELATED) from one nothing noticed (MISSED).
    const named = failedIn(await runChecks(gateway.target, { only: mutant.catches }))
    if (named.length > 0) return { name, failed: named }
    return {
      name,
      failed: failedIn(await runChecks(gateway.target, { skip: mutant.catches })),
    }
  } catch (err) {
    // The first line in the table; the whole message (the gateway's last output) below it.
    return { name, failed: [], error: (err as Error).message }
  } finally {
    await gateway?.stop()
    copy?.remove()
  }
}

const pool = await Promise.all(Array.from({ length: WORKERS }, () => startFixtures()))
const outcomes = new Map<string, Outcome>()
let reference: Outcome
try {
  reference = await judge(pool[0] as Fixtures, 0)
  const queue = [...mutants]
  await Promise.all(
    pool.map(async (fixtures, worker) => {
      for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
        const outcome = await judge(fixtures, worker, m)
        outcomes.set(m.name, outcome)
        process.stdout.write(`  ${verdict(m, outcome).padEnd(9)} ${m.name}\n`)
      }
    }),
  )
} finally {
  await Promise.all(pool.map((f) => f.stop()))
  rmSync(runDir, { recursive: true, force: true })
}

const seconds = ((performance.now() - started) / 1000).toFixed(1)
const width = Math.max(...mutants.map((m) => m.name.length))
const EXPECTED = 'expected (catches)'
const expectedWidth = Math.max(EXPECTED.length, ...mutants.map((m) => m.catches.join(', ').length))
process.stdout.write(
  `\n${'mutant'.padEnd(width)}  verdict    ${EXPECTED.padEnd(expectedWidth)}  failed\n`,
)
let caught = 0
for (const m of mutants) {
  const outcome = outcomes.get(m.name) ?? { name: m.name, failed: [], error: 'not run' }
  const v = verdict(m, outcome)
  if (v === 'caught') caught++
  const failed = outcome.error
    ? `error: ${outcome.error.split('\n')[0]}`
    : outcome.failed.join(', ') || '-'
  process.stdout.write(
    `${m.name.padEnd(width)}  ${v.padEnd(9)}  ${m.catches.join(', ').padEnd(expectedWidth)}  ${failed}\n`,
  )
}
for (const o of [...outcomes.values()].filter((o) => o.error?.includes('\n'))) {
  process.stdout.write(`\n${o.name}: ${o.error}\n`)
}
process.stdout.write('\n')
const referenceOk = reference.failed.length === 0 && !reference.error
process.stdout.write(
  referenceOk
    ? 'the reference proxy passes every check\n'
    : `the reference proxy FAILED: ${reference.error ?? reference.failed.join(', ')}\n`,
)
const percent = mutants.length > 0 ? Math.floor((caught / mutants.length) * 100) : 0
process.stdout.write(`mutants: ${caught}/${mutants.length} caught (${percent}%) in ${seconds} s\n`)
const ok = referenceOk && mutants.length > 0 && caught === mutants.length
setImmediate(() => process.exit(ok ? 0 : 1))
