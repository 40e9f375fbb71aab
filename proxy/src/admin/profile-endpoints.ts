/**
 * `GET /debug/pprof/profile` and `GET /debug/pprof/heap` (seed, Admin interface table):
 * parameter checks, one CPU profile at a time, heap sampling started on demand, and the file
 * download. The profilers and the pprof encoder (pprof.ts) are imported on first use.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { HeapSampler } from './pprof.js'
import { requestUrl, sendTextError } from './reply.js'

/** Where profiling is available (seed: "Linux builds only"). */
export const PROFILING_SUPPORTED = process.platform === 'linux'

/** The header of a heap profile that says since when allocations are sampled. */
export const HEAP_SAMPLING_HEADER = 'gatehouse-heap-sampling'

/**
 * V8's sampling heap profiler, started by the first heap profile request rather than with the
 * admin interface: always on, it cost every proxied request 4–9 µs (docs/design/performance.md). The profile of that
 * first request holds no samples yet (its answer says so in {@link HEAP_SAMPLING_HEADER});
 * later ones hold the sampled allocations made since, still alive.
 */
export class HeapProfiling {
  #sampler: Promise<HeapSampler | undefined> | undefined
  #since: Date | undefined

  /** Since when allocations are sampled; `undefined` before the first heap profile request. */
  get since(): Date | undefined {
    return this.#since
  }

  /**
   * The profile, gzipped pprof; starts sampling on the first call (Linux only).
   * @returns the file, and whether this call started the sampling.
   * @throws Error when the inspector refuses to start sampling (the caller answers 500).
   */
  async profile(): Promise<{ body: Buffer; startedNow: boolean }> {
    const startedNow = this.#sampler === undefined
    this.#sampler ??= this.#start()
    const [sampler, pprof] = await Promise.all([this.#sampler, import('./pprof.js')])
    const body =
      startedNow || !sampler
        ? pprof.encodePprof(pprof.heapProfileToPprof(undefined, pprof.HEAP_SAMPLING_INTERVAL))
        : await sampler.profile()
    return { body, startedNow }
  }

  async #start(): Promise<HeapSampler | undefined> {
    if (!PROFILING_SUPPORTED) return undefined
    const { HeapSampler } = await import('./pprof.js')
    const sampler = new HeapSampler()
    try {
      await sampler.start()
    } catch (err) {
      this.#sampler = undefined
      throw err
    }
    this.#since = new Date()
    return sampler
  }

  /** Stops sampling (the admin server closes). */
  async stop(): Promise<void> {
    const sampler = await this.#sampler?.catch(() => undefined)
    this.#sampler = undefined
    this.#since = undefined
    await sampler?.stop()
  }
}

/** Seed: `seconds` integer 1–300, default 10; `frequency` integer 1–1000 Hz, default 100. */
export const CPU_PROFILE_LIMITS = {
  seconds: { min: 1, max: 300, default: 10 },
  frequency: { min: 1, max: 1000, default: 100 },
} as const

type Param = keyof typeof CPU_PROFILE_LIMITS

/** A parameter value, or the message of a 400. */
export function profileParam(url: URL, name: Param): { value: number } | { error: string } {
  const limits = CPU_PROFILE_LIMITS[name]
  const raw = url.searchParams.get(name)
  if (raw === null) return { value: limits.default }
  if (!/^\d+$/.test(raw)) {
    return { error: `${name} must be an integer from ${limits.min} to ${limits.max}, got "${raw}"` }
  }
  const n = Number(raw)
  if (n < limits.min || n > limits.max) {
    return { error: `${name} must be from ${limits.min} to ${limits.max}, got ${n}` }
  }
  return { value: n }
}

function stamp(): string {
  return new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
}

function sendProfile(reply: FastifyReply, kind: 'cpu' | 'heap', body: Buffer): FastifyReply {
  return reply
    .code(200)
    .type('application/octet-stream')
    .header('content-disposition', `attachment; filename="gatehouse-${kind}-${stamp()}.pb.gz"`)
    .send(body)
}

/** Options of {@link serveCpuProfile}. */
export interface CpuEndpointOptions {
  /** Shared by the server: one profile at a time. */
  state: { running: boolean }
  /** Aborts a running profile when the admin server closes. */
  closing?: AbortSignal
}

/**
 * Serves a CPU profile: 400 on bad parameters, 409 while another profile runs. A client that goes
 * away stops the profile early; the admin server closing stops it and sends what was sampled.
 */
export async function serveCpuProfile(
  request: FastifyRequest,
  reply: FastifyReply,
  options: CpuEndpointOptions,
): Promise<FastifyReply | undefined> {
  const url = requestUrl(request)
  const seconds = profileParam(url, 'seconds')
  const frequency = profileParam(url, 'frequency')
  if ('error' in seconds) return sendTextError(reply, 'GW_ERR_ADMIN_PARAMETER', seconds.error)
  if ('error' in frequency) return sendTextError(reply, 'GW_ERR_ADMIN_PARAMETER', frequency.error)
  if (options.state.running) {
    return sendTextError(
      reply,
      'GW_ERR_ADMIN_BUSY',
      'a CPU profile is already running; retry when it has finished',
    )
  }
  options.state.running = true
  const stop = new AbortController()
  const onGone = () => stop.abort()
  const socket = request.raw.socket
  socket.once('close', onGone)
  options.closing?.addEventListener('abort', onGone, { once: true })
  try {
    const { takeCpuProfile } = await import('./pprof.js')
    const body = await takeCpuProfile({
      seconds: seconds.value,
      frequency: frequency.value,
      signal: stop.signal,
    })
    // The client went away: nobody to send to. (When the server closes, what was sampled so
    // far is still sent.)
    if (reply.raw.destroyed || request.raw.socket.destroyed) {
      reply.hijack()
      return undefined
    }
    return sendProfile(reply, 'cpu', body)
  } finally {
    options.state.running = false
    socket.off('close', onGone)
    options.closing?.removeEventListener('abort', onGone)
  }
}

/**
 * Serves the heap profile. {@link HEAP_SAMPLING_HEADER} says `started` on the request that
 * started sampling (its profile holds no samples: ask again after the workload), and
 * `since=<ISO time>` afterwards; off Linux it is absent (no sampling there).
 */
export async function serveHeapProfile(
  reply: FastifyReply,
  heap: HeapProfiling,
  onStarted?: () => void,
): Promise<FastifyReply> {
  const { body, startedNow } = await heap.profile()
  if (startedNow && heap.since) onStarted?.()
  if (heap.since) {
    reply.header(HEAP_SAMPLING_HEADER, startedNow ? 'started' : `since=${heap.since.toISOString()}`)
  }
  return sendProfile(reply, 'heap', body)
}
