#!/usr/bin/env node
/**
 * `npm run conformance:stryker`: a mutation score by Stryker (StrykerJS), an unbiased breadth
 * measure beside the curated mutants of `conformance:mutants`. Stryker mutates
 * `proxy/src/auth/**` and `proxy/src/dataplane/{cors,router,forward}.ts` with its standard
 * mutators, and the mutants are judged by
 *
 * - `--runner conformance` (default): the conformance catalogue against the proxy as a real
 *   process (plugin `gatehouse-conformance`, src/stryker/conformance-runner.ts);
 * - `--runner unit`: the proxy's unit tests (Stryker's vitest runner, src/stryker/vitest.config.ts).
 *
 * Options: `--sample N` judges a deterministic sample of about N mutants (src/stryker/sample.ts),
 * `--break P` exits 1 when the score is below P percent, `--concurrency N` (2), `--scope auth` or
 * `--scope dataplane` mutates only those files (default: both), `--only TEXT[,TEXT]` only the
 * files whose path contains one of them, and `--tests GLOB` (unit runner) judges with only the
 * test files GLOB matches (a lower bound of the whole unit suite's score, and much faster: see
 * src/stryker/vitest.config.ts); `--without-shared-gatehouse` (unit runner) leaves out the test
 * files that start a whole gatehouse in `beforeAll` (src/stryker/shared-gatehouse.ts).
 * Prints the score overall and by directory, and writes the survivors (no coverage included) to
 * `.tmp/stryker/<runner>-survivors.txt` and Stryker's JSON report beside it.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import type { PartialStrykerOptions } from '@stryker-mutator/api/core'
import { Stryker } from '@stryker-mutator/core'
import { ROOT } from '../src/mutants.js'
import { chooseSample, listMutants, mutatePatterns, SAMPLE_ENV } from '../src/stryker/sample.js'
import { filesStartingSharedGatehouse } from '../src/stryker/shared-gatehouse.js'
import { EXCLUDE_ENV, TESTS_ENV } from '../src/stryker/vitest.config.js'

/** What Stryker mutates, by `--scope`. */
const SCOPES = {
  auth: 'proxy/src/auth/**/*.ts',
  dataplane: 'proxy/src/dataplane/{cors,router,forward}.ts',
} as const
/** The same files, listed (for the sample). */
const SCOPE_FILES: Record<keyof typeof SCOPES, string[]> = {
  auth: readdirSync(join(ROOT, 'proxy/src/auth'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(ROOT, 'proxy/src/auth', f)),
  dataplane: ['cors', 'router', 'forward'].map((f) => join(ROOT, `proxy/src/dataplane/${f}.ts`)),
}

const { values } = parseArgs({
  options: {
    runner: { type: 'string', default: 'conformance' },
    sample: { type: 'string' },
    break: { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    scope: { type: 'string', default: 'all' },
    only: { type: 'string' },
    tests: { type: 'string' },
    'without-shared-gatehouse': { type: 'boolean', default: false },
  },
})
function fail(message: string): never {
  process.stderr.write(`conformance:stryker: ${message}\n`)
  process.exit(2)
}
const runner = values.runner
if (runner !== 'conformance' && runner !== 'unit') fail('--runner is conformance or unit')
const sampleSize = values.sample === undefined ? undefined : Number(values.sample)
if (sampleSize !== undefined && !(Number.isInteger(sampleSize) && sampleSize > 0)) {
  fail('--sample takes a positive whole number')
}
const threshold = values.break === undefined ? undefined : Number(values.break)
if (threshold !== undefined && !(threshold >= 0 && threshold <= 100)) {
  fail('--break takes a percentage (0-100)')
}
const scopes =
  values.scope === 'all'
    ? (['auth', 'dataplane'] as const)
    : values.scope === 'auth' || values.scope === 'dataplane'
      ? ([values.scope] as const)
      : fail('--scope is auth, dataplane or all')
let MUTATE: string[] = scopes.map((s) => SCOPES[s])
let MUTATED_FILES = scopes.flatMap((s) => SCOPE_FILES[s]).sort()
if (values.only !== undefined) {
  const only = values.only.split(',')
  MUTATED_FILES = MUTATED_FILES.filter((f) => only.some((o) => f.includes(o)))
  if (MUTATED_FILES.length === 0) fail(`--only ${only} matches no file to mutate`)
  MUTATE = MUTATED_FILES.map((f) => relative(ROOT, f))
}
if (values.tests !== undefined) {
  if (runner !== 'unit') fail('--tests goes with --runner unit')
  process.env[TESTS_ENV] = values.tests
}
if (values['without-shared-gatehouse']) {
  if (runner !== 'unit') fail('--without-shared-gatehouse goes with --runner unit')
  const excluded = filesStartingSharedGatehouse(ROOT, 'proxy/test')
  process.env[EXCLUDE_ENV] = JSON.stringify(excluded)
  process.stdout.write(
    `conformance:stryker: leaving out ${excluded.length} test files that start a gatehouse in beforeAll: ${excluded.join(', ')}\n`,
  )
}
const concurrency = Number(values.concurrency)
if (!(Number.isInteger(concurrency) && concurrency > 0)) fail('--concurrency takes a whole number')

const started = performance.now()
const outDir = join(ROOT, '.tmp/stryker')
mkdirSync(outDir, { recursive: true })
process.chdir(ROOT)

let mutate = MUTATE
let sampleNote = ''
if (sampleSize !== undefined) {
  const lengths = Object.fromEntries(
    MUTATED_FILES.map((f) => [relative(ROOT, f), readFileSync(f, 'utf8').length]),
  )
  if (new Set(Object.values(lengths)).size !== MUTATED_FILES.length) {
    fail('two files to mutate have the same length: the sample cannot tell them apart')
  }
  const sample = chooseSample(await listMutants(ROOT, MUTATED_FILES), sampleSize, lengths)
  const sampleFile = join(outDir, `${runner}-sample.json`)
  writeFileSync(sampleFile, JSON.stringify(sample, null, 2))
  process.env[SAMPLE_ENV] = sampleFile
  mutate = mutatePatterns(sample)
  sampleNote = ` (sample: the locations of ${sample.mutants} of ${sample.total} mutants)`
}

const here = (path: string) => join(ROOT, 'mutation/src/stryker', path)
const tsx = import.meta.resolve('tsx')
const options: PartialStrykerOptions = {
  mutate,
  plugins: [
    '@stryker-mutator/vitest-runner',
    here('conformance-runner.ts'),
    ...(sampleSize !== undefined ? [here('sample.ts')] : []),
  ],
  ignorers: sampleSize !== undefined ? ['gatehouse-sample'] : [],
  testRunner: runner === 'unit' ? 'vitest' : 'gatehouse-conformance',
  // Stryker's test runner processes load the TypeScript plugin (and vitest) through tsx.
  testRunnerNodeArgs: ['--import', tsx],
  // Stryker's checker process loads every plugin module too (no checker is configured).
  checkerNodeArgs: ['--import', tsx],
  coverageAnalysis: runner === 'unit' ? 'perTest' : 'all',
  vitest: { configFile: 'mutation/src/stryker/vitest.config.ts', related: false },
  concurrency,
  // A run starts a proxy process and the whole catalogue (a few seconds on a loaded machine).
  timeoutMS: 20_000,
  tempDirName: '.tmp/stryker/sandbox',
  cleanTempDir: true,
  ignorePatterns: ['.tmp', 'dist', '**/dist', 'bench/out', 'conformance/reports', 'coverage'],
  reporters: ['progress', 'json'],
  jsonReporter: { fileName: relative(ROOT, join(outDir, `${runner}-report.json`)) },
  thresholds: { high: 90, low: 80, break: null },
  incremental: false,
  logLevel: 'info' as PartialStrykerOptions['logLevel'],
  fileLogLevel: 'off' as PartialStrykerOptions['fileLogLevel'],
}

const results = await new Stryker(options).runMutationTest()

/** Stryker's counting: killed and timed-out are detected; ignored and errors are left out. */
function score(rs: typeof results) {
  const n = (status: string) => rs.filter((r) => r.status === status).length
  const killed = n('Killed')
  const timeout = n('Timeout')
  const survived = n('Survived')
  const noCoverage = n('NoCoverage')
  const valid = killed + timeout + survived + noCoverage
  const percent = valid === 0 ? 0 : ((killed + timeout) / valid) * 100
  return {
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: n('Ignored'),
    errors: n('RuntimeError') + n('CompileError'),
    valid,
    percent,
  }
}
function line(label: string, s: ReturnType<typeof score>): string {
  return (
    `${label.padEnd(22)} ${s.percent.toFixed(1).padStart(5)}%  ` +
    `killed ${s.killed}, timeout ${s.timeout}, survived ${s.survived}, no coverage ${s.noCoverage}` +
    (s.errors ? `, errors ${s.errors}` : '') +
    (s.ignored ? `, ignored ${s.ignored}` : '')
  )
}

const rel = (r: (typeof results)[number]) => relative(ROOT, r.fileName)
const total = score(results)
const byDir = ['proxy/src/auth/', 'proxy/src/dataplane/'].map(
  (dir) => [dir, score(results.filter((r) => rel(r).startsWith(dir)))] as const,
)
const survivors = results
  .filter((r) => r.status === 'Survived' || r.status === 'NoCoverage')
  .sort((a, b) => rel(a).localeCompare(rel(b)) || a.location.start.line - b.location.start.line)
const source = new Map<string, string[]>()
/** The mutated code itself (from its location: the report's lines and columns are both 1-based). */
const original = (r: (typeof results)[number]) => {
  const lines = source.get(r.fileName) ?? readFileSync(r.fileName, 'utf8').split('\n')
  source.set(r.fileName, lines)
  const { start, end } = r.location
  const text =
    start.line === end.line
      ? (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1)
      : `${(lines[start.line - 1] ?? '').slice(start.column - 1)} …`
  return text.trim()
}
const survivorsFile = join(outDir, `${runner}-survivors.txt`)
writeFileSync(
  survivorsFile,
  survivors
    .map(
      (r) =>
        `${rel(r)}:${r.location.start.line}:${r.location.start.column} ${r.status} ${r.mutatorName}\n` +
        `  ${original(r)}\n  -> ${r.replacement.replace(/\s+/g, ' ').slice(0, 160)}\n`,
    )
    .join(''),
)

const seconds = ((performance.now() - started) / 1000).toFixed(0)
process.stdout.write(
  `\nStryker mutation score, runner ${runner}${sampleNote}, in ${seconds} s\n` +
    `${line('all', total)}\n` +
    byDir
      .filter(([, s]) => s.valid + s.errors + s.ignored > 0)
      .map(([dir, s]) => `${line(dir, s)}\n`)
      .join('') +
    `survivors: ${relative(ROOT, survivorsFile)}\n`,
)
const ok = threshold === undefined || total.percent >= threshold
if (!ok) process.stdout.write(`score ${total.percent.toFixed(1)}% is below --break ${threshold}\n`)
setImmediate(() => process.exit(ok ? 0 : 1))
