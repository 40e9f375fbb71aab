/**
 * Reads a V8 `.cpuprofile` (what `node --cpu-prof` writes) into self time per function, the
 * figure that names what a request spends its CPU on. Pure (bench/test/cpuprofile.test.ts).
 */

/** The part of a `.cpuprofile` read here. */
export interface CpuProfile {
  nodes: Array<{
    id: number
    callFrame: { functionName: string; url: string; lineNumber: number }
  }>
  samples: number[]
  /** µs since the previous sample, one per sample. */
  timeDeltas: number[]
}

/** One function's self time. */
export interface SelfTime {
  /** `name (file:line)`, file relative to the repository or to node_modules. */
  fn: string
  us: number
  /** Share of all sampled time, 0–1. */
  share: number
}

function label(f: CpuProfile['nodes'][number]['callFrame']): string {
  const name = f.functionName || '(anonymous)'
  if (!f.url) return name.startsWith('(') ? name : `${name} (native)`
  const file = f.url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(proxy|bench)\//, '$1/')
  return `${name} (${file}:${f.lineNumber + 1})`
}

/**
 * The `n` functions with the most self time, most first (a function's nodes summed); `(idle)`,
 * time the process was waiting rather than using CPU, is left out of the list and of the shares.
 */
export function topSelfTime(profile: CpuProfile, n: number): SelfTime[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, label(node.callFrame)]))
  const self = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const fn = byId.get(id) ?? '(unknown)'
    if (fn === '(idle)') return
    const us = Math.max(0, profile.timeDeltas[i] ?? 0)
    total += us
    self.set(fn, (self.get(fn) ?? 0) + us)
  })
  return [...self]
    .map(([fn, us]) => ({ fn, us, share: total > 0 ? us / total : 0 }))
    .sort((a, b) => b.us - a.us)
    .slice(0, n)
}

/** Where a frame's code comes from: an npm package, gatehouse's build, Node's own, or native. */
function moduleOf(f: CpuProfile['nodes'][number]['callFrame']): string {
  if (f.functionName === '(garbage collector)') return '(garbage collector)'
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)'
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f.url)
  if (pkg) return pkg[1] as string
  if (f.url.startsWith('node:')) return 'node (JS)'
  if (/\/proxy\/(dist|src)\//.test(f.url)) return 'gatehouse'
  return f.url.replace(/^file:\/\//, '')
}

/** Self time summed per {@link moduleOf} (idle left out), most first. */
export function selfTimeByModule(profile: CpuProfile): SelfTime[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const self = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)
    if (!frame || frame.functionName === '(idle)') return
    const us = Math.max(0, profile.timeDeltas[i] ?? 0)
    total += us
    const m = moduleOf(frame)
    self.set(m, (self.get(m) ?? 0) + us)
  })
  return [...self]
    .map(([fn, us]) => ({ fn, us, share: total > 0 ? us / total : 0 }))
    .sort((a, b) => b.us - a.us)
}
