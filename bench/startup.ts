/**
 * `npm run bench:startup`: how long the `gatehouse` process takes to start, run from the build
 * (`node proxy/dist/gatehouse.js`, what the bin and the image run) and from source through tsx
 * (`node --import tsx proxy/bin/gatehouse.ts`, development). Two measurements per variant:
 *
 * - `--help`: process start → exit (wall time, and the CPU time of the process);
 * - start → listening: process start → the "gatehouse listening" log line, with a configuration
 *   like the demo's (one gateway, a route, a JWT policy with an inline key, a CEL rule; admin off),
 *   and the CPU time the process used up to that line.
 *
 * Runs are interleaved (build, tsx, build, tsx, …) and each figure is the median, so a burst of
 * other load on this shared machine does not land on one variant only. Prints a table and, with
 * `--write`, appends it to bench/RESULTS.md. Loopback only; every process is stopped.
 *
 * Options: --runs <n> per variant and measurement (default 10), --write, --baseline <dir>: also
 * measure `node <dir>/proxy/bin/gatehouse.js`, the bin of another checkout (e.g. one from before
 * a change, with a node_modules), in the same interleaved runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { freePort } from '@gatehouse/support'
import { exportJWK, generateKeyPair } from 'jose'
import { stringify } from 'yaml'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    write: { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
})
const runs = Number(values.runs)
const root = new URL('..', import.meta.url).pathname
const tsxLoader = createRequire(import.meta.url).resolve('tsx')
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100

interface Variant {
  name: string
  argv: string[]
}

const VARIANTS: Variant[] = [
  ...(values.baseline
    ? [
        {
          name: `baseline: ${values.baseline}/proxy/bin/gatehouse.js`,
          argv: [join(values.baseline, 'proxy/bin/gatehouse.js')],
        },
      ]
    : []),
  { name: 'build (node proxy/dist/gatehouse.js)', argv: [join(root, 'proxy/dist/gatehouse.js')] },
  {
    name: 'source through tsx',
    argv: ['--import', tsxLoader, join(root, 'proxy/bin/gatehouse.ts')],
  },
]

/** One run of `gatehouse --help`: wall and CPU milliseconds (CPU from the shell's `times`). */
function helpRun(v: Variant): { wall: number; cpu: number } {
  const started = performance.now()
  // `times` prints the shell's own and then its children's user and system times.
  const r = spawnSync(
    'bash',
    ['-c', '"$@" > /dev/null; times', 'bash', process.execPath, ...v.argv],
    {
      encoding: 'utf8',
    },
  )
  const wall = performance.now() - started
  const children = r.stdout.trim().split('\n')[1] ?? ''
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
    (m) => Number(m[1]) * 60 + Number(m[2]),
  )
  if (r.status !== 0 || seconds.length !== 2) {
    throw new Error(`${v.name} --help failed (${r.status}): ${r.stderr}`)
  }
  return { wall, cpu: ((seconds[0] ?? 0) + (seconds[1] ?? 0)) * 1000 }
}

/** CPU milliseconds a running process has used so far (Linux /proc). */
function cpuSoFar(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may contain spaces) start at field 3; utime and stime
  // are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ
}

/** One run to "gatehouse listening": wall and CPU milliseconds; the process is then stopped. */
async function listenRun(v: Variant, file: string): Promise<{ wall: number; cpu: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, [...v.argv, '-f', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${v.name}: not listening after 30 s`)),
        30_000,
      )
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('gatehouse listening')) {
          const wall = performance.now() - started
          clearTimeout(timer)
          resolve({ wall, cpu: cpuSoFar(child.pid ?? 0) })
        }
      })
      child.stderr.on('data', (chunk: Buffer) => {
        out += chunk.toString()
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`${v.name} exited (${code}) before listening: ${out.slice(-500)}`))
      })
    })
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
  }
}

/** A configuration like the demo's, on a free port; admin off. */
async function writeConfig(): Promise<string> {
  const { publicKey } = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'startup', alg: 'RS256', use: 'sig' }
  const config = {
    config: { adminAddr: 'off', logLevel: 'info' },
    gateways: { default: { port: await freePort(), address: '127.0.0.1' } },
    backends: { upstream: { static: { host: '127.0.0.1', port: 9 } } },
    routes: {
      mcp: {
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
            backendRefs: [{ name: 'upstream' }],
          },
        ],
      },
    },
    policies: {
      auth: {
        targetRefs: [{ name: 'mcp' }],
        traffic: {
          jwtAuthentication: {
            mode: 'Strict',
            providers: [
              {
                issuer: 'https://idp.startup.example/oauth2/default',
                audiences: ['api://default'],
                jwks: { inline: { keys: [jwk] } },
              },
            ],
          },
          authorization: {
            action: 'Allow',
            policy: { matchExpressions: ['"AI-Users" in jwt.groups'] },
          },
        },
      },
    },
  }
  const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-startup-')), 'gatehouse.yaml')
  writeFileSync(file, stringify(config))
  return file
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

async function main(): Promise<void> {
  const variants = VARIANTS.filter((v) => existsSync(v.argv.at(-1) ?? ''))
  const missing = VARIANTS.filter((v) => !variants.includes(v))
  for (const v of missing) process.stderr.write(`skipped ${v.name}: run \`npm run build\` first\n`)
  const file = await writeConfig()
  const help = new Map(variants.map((v) => [v, [] as Array<{ wall: number; cpu: number }>]))
  const listen = new Map(variants.map((v) => [v, [] as Array<{ wall: number; cpu: number }>]))
  for (const v of variants) {
    helpRun(v) // warm-up: file system cache
    await listenRun(v, file)
  }
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      help.get(v)?.push(helpRun(v))
      listen.get(v)?.push(await listenRun(v, file))
    }
  }
  const row = (v: Variant) => {
    const h = help.get(v) ?? []
    const l = listen.get(v) ?? []
    const ms = (xs: number[]) => `${median(xs).toFixed(0)}`
    return `| ${v.name} | ${ms(h.map((r) => r.wall))} | ${ms(h.map((r) => r.cpu))} | ${ms(l.map((r) => r.wall))} | ${ms(l.map((r) => r.cpu))} |`
  }
  const lines = [
    '| variant | `--help` wall ms | `--help` CPU ms | start → listening wall ms | start → listening CPU ms |',
    '|---|---:|---:|---:|---:|',
    ...variants.map(row),
  ]
  const build = variants.find((v) => v.name.startsWith('build'))
  const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2)
  const wall = (m: Map<Variant, Array<{ wall: number }>>, v: Variant) =>
    (m.get(v) ?? []).map((r) => r.wall)
  lines.push('')
  for (const other of variants.filter((v) => v !== build)) {
    if (!build) break
    lines.push(
      `- build / ${other.name}: \`--help\` **${ratio(wall(help, build), wall(help, other))}×**, start → listening **${ratio(wall(listen, build), wall(listen, other))}×** (wall)`,
    )
  }
  const heading = `## ${new Date().toISOString().slice(0, 10)} — start-up, ${runs} interleaved runs (medians), Node ${process.version}, ${cpus().length} cores`
  const text = [
    heading,
    '',
    'Shared 2-core machine: absolute figures move with other load; compare the ratios, which are measured in one run.',
    '',
    ...lines,
  ].join('\n')
  process.stdout.write(`${text}\n`)
  if (values.write) appendFileSync(join(root, 'bench/RESULTS.md'), `\n${text}\n`)
}

main().catch((err: Error) => {
  process.stderr.write(`bench:startup: ${err.message}\n`)
  process.exitCode = 1
})
