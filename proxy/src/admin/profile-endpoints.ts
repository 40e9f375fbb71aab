/**
 * `GET /debug/pprof/profile` and `GET /debug/pprof/heap` (seed, Admin interface table):
 * parameter checks, one CPU profile at a time, and the file download.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type HeapSampler, takeCpuProfile } from './pprof.js'
import { requestUrl, sendText } from './reply.js'

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
  if ('error' in seconds) return sendText(reply, 400, seconds.error)
  if ('error' in frequency) return sendText(reply, 400, frequency.error)
  if (options.state.running) {
    return sendText(reply, 409, 'a CPU profile is already running; retry when it has finished')
  }
  options.state.running = true
  const stop = new AbortController()
  const onGone = () => stop.abort()
  const socket = request.raw.socket
  socket.once('close', onGone)
  options.closing?.addEventListener('abort', onGone, { once: true })
  try {
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

/** Serves the heap profile. */
export async function serveHeapProfile(
  reply: FastifyReply,
  heap: HeapSampler,
): Promise<FastifyReply> {
  return sendProfile(reply, 'heap', await heap.profile())
}
