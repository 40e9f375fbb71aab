/**
 * `gwctl proxy profile cpu|heap`: saves a pprof profile from the admin interface
 * (`/debug/pprof/profile`, `/debug/pprof/heap`). Seed, "Command-line tool" and "Limits": the CPU
 * profile lasts 1–300 s, 30 s by default in the tool (the endpoint's own default is 10 s); the
 * sampling `frequency` is deliberately not exposed (use the endpoint directly); without `-o` the
 * file is `gatehouse-cpu-<timestamp>.pb.gz` / `gatehouse-heap-<timestamp>.pb.gz` in the cwd.
 */
import { createWriteStream } from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Command, InvalidArgumentError } from 'commander'
import { type AdminClient, formatAdminAddress, unexpectedStatus } from '../admin-client.js'
import { GwctlError } from '../errors.js'
import { type CliIo, write } from '../io.js'
import { type Action, adminClientOf } from './context.js'

/** Tool default of `--seconds` (the seed: "default duration 30 seconds"). */
export const DEFAULT_CPU_SECONDS = 30
/** Product name in default file names (the seed's `<product>`). */
const PRODUCT = 'gatehouse'

/** `20261122T135500Z`: UTC, no separators, safe in every file system. */
export function profileTimestamp(d: Date): string {
  return d
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '')
}

/** The default file name of a profile kind at a time. */
export function defaultProfileName(kind: 'cpu' | 'heap', d: Date): string {
  return `${PRODUCT}-${kind}-${profileTimestamp(d)}.pb.gz`
}

function parseSeconds(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > 300) {
    throw new InvalidArgumentError('expected whole seconds from 1 to 300.')
  }
  return n
}

/** Builds `profile` with `cpu` and `heap`; `setAction` receives the action to run. */
export function profileCommand(setAction: (a: Action) => void): Command {
  const profile = new Command('profile').description('Save a pprof profile of the proxy')
  profile
    .command('cpu')
    .description('Record a CPU profile for --seconds and save it (Linux builds of gatehouse only)')
    .option('--local', 'profile the proxy of the local admin interface (the default)')
    .option('--seconds <n>', 'how long to record, 1-300', parseSeconds, DEFAULT_CPU_SECONDS)
    .option('-o, --output <file>', 'where to write (default gatehouse-cpu-<timestamp>.pb.gz)')
    .addHelpText(
      'after',
      `
The profile only has samples if traffic flows through the proxy while it records.
The sampling frequency is not exposed; for it, call the endpoint directly:
  curl -o cpu.pb.gz 'http://127.0.0.1:15000/debug/pprof/profile?seconds=30&frequency=500'

Examples:
  gwctl proxy profile cpu --local
  gwctl proxy profile cpu --local --seconds 10 -o cpu.pb.gz
  go tool pprof -top cpu.pb.gz`,
    )
    .action((opts: { seconds: number; output?: string }, cmd: Command) => {
      const client = adminClientOf(cmd)
      setAction(async (io) => {
        const path = resolve(io.cwd, opts.output ?? defaultProfileName('cpu', io.now()))
        const bytes = await saveProfile(io, client, '/debug/pprof/profile', path, {
          seconds: opts.seconds,
        })
        await write(io.stdout, `wrote CPU profile to ${path} (${bytes} bytes, ${opts.seconds}s)\n`)
        return 0
      })
    })
  profile
    .command('heap')
    .description('Save a heap profile (allocation samples on Linux builds only)')
    .option('--local', 'profile the proxy of the local admin interface (the default)')
    .option('-o, --output <file>', 'where to write (default gatehouse-heap-<timestamp>.pb.gz)')
    .addHelpText(
      'after',
      `
Examples:
  gwctl proxy profile heap --local
  gwctl proxy profile heap --local -o heap.pb.gz`,
    )
    .action((opts: { output?: string }, cmd: Command) => {
      const client = adminClientOf(cmd)
      setAction(async (io) => {
        const path = resolve(io.cwd, opts.output ?? defaultProfileName('heap', io.now()))
        const bytes = await saveProfile(io, client, '/debug/pprof/heap', path, {})
        await write(io.stdout, `wrote heap profile to ${path} (${bytes} bytes)\n`)
        return 0
      })
    })
  return profile
}

/**
 * Downloads a profile into `path` through a `.part` file, so a failed or interrupted download
 * never leaves a truncated profile under the final name.
 * @returns the size of the file written.
 */
async function saveProfile(
  io: CliIo,
  client: AdminClient,
  endpoint: string,
  path: string,
  query: Record<string, number>,
): Promise<number> {
  const interrupted = () =>
    new GwctlError('GWCTL_ERR_INTERRUPTED', `interrupted: ${path} not written`)
  let res: Awaited<ReturnType<AdminClient['request']>>
  try {
    res = await client.request(endpoint, {
      query,
      ...(io.signal ? { signal: io.signal } : {}),
    })
  } catch (err) {
    if (io.signal?.aborted) throw interrupted()
    throw err
  }
  if (res.status === 404 && endpoint === '/debug/pprof/profile') {
    await res.text().catch(() => '')
    throw new GwctlError(
      'GWCTL_ERR_PROFILING_UNAVAILABLE',
      `the admin interface at ${formatAdminAddress(client.address)} answered 404 to ${endpoint}: ` +
        'CPU profiling exists on Linux builds of gatehouse only. A heap profile (gwctl proxy profile heap) works everywhere.',
    )
  }
  if (res.status !== 200) throw await unexpectedStatus(client.address, endpoint, res)
  const part = `${path}.part`
  try {
    await pipeline(res.body, createWriteStream(part, { flags: 'wx' }))
    await rename(part, path)
  } catch (err) {
    await rm(part, { force: true })
    if (io.signal?.aborted) throw interrupted()
    throw new GwctlError('GWCTL_ERR_WRITE', `cannot write ${path}: ${(err as Error).message}`, {
      cause: err,
    })
  }
  return (await stat(path)).size
}
