/**
 * CPU and heap profiles in the pprof format (gzipped `perftools.profiles.Profile` protobuf, as
 * `go tool pprof` and pprof viewers read), converted from V8's inspector profiles.
 * The seed registers the CPU profile on Linux builds only and gives heap samples on Linux only.
 * Loaded on the first profile request (profile-endpoints.ts), with `pprof-format` and the
 * inspector: a proxy nobody profiles never loads them.
 */
import { Session } from 'node:inspector/promises'
import { gzipSync } from 'node:zlib'
import {
  Line,
  Location,
  Function as PprofFunction,
  Profile,
  Sample,
  StringTable,
  ValueType,
} from 'pprof-format'

/** The bits of a V8 call frame the conversion uses. */
interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}

/** `Profiler.Profile` (Chrome DevTools Protocol). */
export interface V8CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; hitCount?: number; children?: number[] }>
  startTime: number
  endTime: number
  samples?: number[]
}

/** `HeapProfiler.SamplingHeapProfile` (Chrome DevTools Protocol). */
export interface V8HeapProfile {
  head: V8HeapNode
  samples?: Array<{ size: number; nodeId: number }>
}
interface V8HeapNode {
  id: number
  callFrame: CallFrame
  selfSize: number
  children: V8HeapNode[]
}

/** Builds locations and functions shared by both conversions (one location per V8 node). */
class Builder {
  readonly strings = new StringTable()
  readonly functions: PprofFunction[] = []
  readonly locations: Location[] = []
  readonly #fnIds = new Map<string, number>()
  readonly #locIds = new Map<number, number>()

  location(nodeId: number, frame: CallFrame): number {
    const known = this.#locIds.get(nodeId)
    if (known !== undefined) return known
    const name = frame.functionName || '(anonymous)'
    const key = `${name}\u0000${frame.url}\u0000${frame.lineNumber}`
    let fnId = this.#fnIds.get(key)
    if (fnId === undefined) {
      fnId = this.functions.length + 1
      this.#fnIds.set(key, fnId)
      this.functions.push(
        new PprofFunction({
          id: fnId,
          name: this.strings.dedup(name),
          systemName: this.strings.dedup(name),
          filename: this.strings.dedup(frame.url),
          // V8 lines and columns are 0-based; pprof's are 1-based.
          startLine: frame.lineNumber + 1,
        }),
      )
    }
    const id = this.locations.length + 1
    this.locations.push(
      new Location({
        id,
        line: [
          new Line({
            functionId: fnId,
            line: frame.lineNumber + 1,
            column: frame.columnNumber + 1,
          }),
        ],
      }),
    )
    this.#locIds.set(nodeId, id)
    return id
  }

  type(type: string, unit: string): ValueType {
    return new ValueType({ type: this.strings.dedup(type), unit: this.strings.dedup(unit) })
  }

  /** The profile of `samples` over the functions, locations and strings built so far. */
  profile(
    sampleType: ValueType[],
    samples: Sample[],
    timing: Pick<
      ConstructorParameters<typeof Profile>[0] & object,
      'timeNanos' | 'durationNanos' | 'periodType' | 'period'
    >,
  ): Profile {
    return new Profile({
      sampleType,
      sample: samples,
      location: this.locations,
      function: this.functions,
      stringTable: this.strings,
      ...timing,
    })
  }
}

/** V8 pseudo-frames that are not code the proxy runs. */
const SKIPPED = new Set(['(root)', '(idle)'])

/**
 * Converts a V8 CPU profile to pprof: one sample per distinct stack with `samples/count` and
 * `cpu/nanoseconds` (count × sampling interval). `(idle)` time is left out, so samples appear only
 * when the proxy works.
 */
export function cpuProfileToPprof(p: V8CpuProfile, intervalMicros: number): Profile {
  const b = new Builder()
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const hits = new Map<number, number>()
  if (p.samples) for (const id of p.samples) hits.set(id, (hits.get(id) ?? 0) + 1)
  else for (const n of p.nodes) if (n.hitCount) hits.set(n.id, n.hitCount)

  const periodNanos = Math.round(intervalMicros * 1000)
  const sampleType = [b.type('samples', 'count'), b.type('cpu', 'nanoseconds')]
  const samples: Sample[] = []
  for (const [id, count] of hits) {
    const leaf = byId.get(id)
    if (!leaf || SKIPPED.has(leaf.callFrame.functionName)) continue
    const stack: number[] = []
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur)
      if (!node || node.callFrame.functionName === '(root)') break
      stack.push(b.location(node.id, node.callFrame))
    }
    samples.push(new Sample({ locationId: stack, value: [count, count * periodNanos] }))
  }
  return b.profile(sampleType, samples, {
    timeNanos: BigInt(Math.round(p.startTime)) * 1000n,
    durationNanos: Math.max(0, Math.round((p.endTime - p.startTime) * 1000)),
    periodType: b.type('cpu', 'nanoseconds'),
    period: periodNanos,
  })
}

/**
 * Converts V8's sampling heap profile to pprof with `inuse_objects/count` and
 * `inuse_space/bytes`: the sampled allocations still alive, by allocating stack.
 * `undefined` gives a profile with the sample types and no samples (non-Linux builds).
 */
export function heapProfileToPprof(p: V8HeapProfile | undefined, intervalBytes: number): Profile {
  const b = new Builder()
  const sampleType = [b.type('inuse_objects', 'count'), b.type('inuse_space', 'bytes')]
  const samples: Sample[] = []
  if (p) {
    const counts = new Map<number, number>()
    for (const s of p.samples ?? []) counts.set(s.nodeId, (counts.get(s.nodeId) ?? 0) + 1)
    const walk = (node: V8HeapNode, stack: V8HeapNode[]) => {
      const path = node.callFrame.functionName === '(root)' ? stack : [node, ...stack]
      if (node.selfSize > 0 && path.length > 0) {
        samples.push(
          new Sample({
            locationId: path.map((n) => b.location(n.id, n.callFrame)),
            value: [counts.get(node.id) ?? 1, node.selfSize],
          }),
        )
      }
      for (const c of node.children) walk(c, path)
    }
    walk(p.head, [])
  }
  return b.profile(sampleType, samples, {
    timeNanos: BigInt(Date.now()) * 1_000_000n,
    periodType: b.type('space', 'bytes'),
    period: intervalBytes,
  })
}

/** Encodes a profile as pprof files are stored: protobuf, gzipped. */
export function encodePprof(profile: Profile): Buffer {
  return gzipSync(profile.encode())
}

/** Options of {@link takeCpuProfile}. */
export interface CpuProfileOptions {
  seconds: number
  /** Sampling frequency in Hz. */
  frequency: number
  /** Ends the profile early (client went away). */
  signal?: AbortSignal
}

/** Samples the CPU for `seconds` at `frequency` Hz and returns the gzipped pprof file. */
export async function takeCpuProfile(options: CpuProfileOptions): Promise<Buffer> {
  const session = new Session()
  session.connect()
  try {
    const intervalMicros = Math.max(1, Math.round(1e6 / options.frequency))
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: intervalMicros })
    await session.post('Profiler.start')
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.seconds * 1000)
      function done() {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', done)
        resolve()
      }
      options.signal?.addEventListener('abort', done, { once: true })
      if (options.signal?.aborted) done()
    })
    const { profile } = (await session.post('Profiler.stop')) as unknown as {
      profile: V8CpuProfile
    }
    await session.post('Profiler.disable')
    return encodePprof(cpuProfileToPprof(profile, intervalMicros))
  } finally {
    session.disconnect()
  }
}

/** Average bytes between heap samples (V8's default is 32 KiB; coarser keeps overhead low). */
export const HEAP_SAMPLING_INTERVAL = 128 * 1024

/** V8's sampling heap profiler in this process (started on demand: profile-endpoints.ts). */
export class HeapSampler {
  #session: Session | undefined

  /** Starts sampling allocations (the caller checks the platform). */
  async start(): Promise<void> {
    if (this.#session) return
    const session = new Session()
    session.connect()
    await session.post('HeapProfiler.enable')
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: HEAP_SAMPLING_INTERVAL,
    })
    this.#session = session
  }

  /** The current heap profile as a gzipped pprof file (no samples when not started). */
  async profile(): Promise<Buffer> {
    const raw = this.#session
      ? (
          (await this.#session.post('HeapProfiler.getSamplingProfile')) as unknown as {
            profile: V8HeapProfile
          }
        ).profile
      : undefined
    return encodePprof(heapProfileToPprof(raw, HEAP_SAMPLING_INTERVAL))
  }

  /** Stops sampling. */
  async stop(): Promise<void> {
    const s = this.#session
    this.#session = undefined
    if (!s) return
    await s.post('HeapProfiler.stopSampling').catch(() => undefined)
    s.disconnect()
  }
}
