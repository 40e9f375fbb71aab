/**
 * `npx tsx bench/yaml-load-cpu.ts`: the CPU time of reading a large standalone configuration on a
 * worker thread, as the reload's load thread does (`proxy/src/config/load-thread.ts`), split into
 * the `yaml` library's parse (`parseAllDocuments` + `toJS`), the fast path's
 * (`proxy/src/config/yaml-fast.ts`) and the whole `configSourceOf` (parse, schema, cross-references).
 * CPU time of the thread (`process.threadCpuUsage` where Node has it, else the process's), so that
 * the figure carries less of the machine's load than wall time. Nothing here asserts speed.
 *
 * Options: `--routes 10000`, `--young <MiB>` (the worker's `resourceLimits.maxYoungGenerationSizeMb`;
 * default none), `--repeat 3`.
 */

import { parseArgs } from 'node:util'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

interface Job {
  text: string
  repeat: number
}

async function work({ text, repeat }: Job): Promise<string[]> {
  const { parseAllDocuments } = await import('yaml')
  const { fastDocumentValues } = await import('@gatehouse/proxy/config/yaml-fast')
  const { configSourceOf } = await import('@gatehouse/proxy/config/sources')
  const usage = (): number => {
    const u =
      (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.() ??
      process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const time = (f: () => unknown): number => {
    const start = usage()
    f()
    return Math.round(usage() - start)
  }
  const out: string[] = []
  for (let i = 0; i < repeat; i++) {
    const slow = time(() => parseAllDocuments(text, { uniqueKeys: false }).map((d) => d.toJS()))
    const fast = time(() => fastDocumentValues(text))
    const whole = time(() =>
      configSourceOf([{ path: 'c.yaml', file: 'c.yaml', text }], ['c.yaml'], { env: {} }),
    )
    out.push(
      `run ${i + 1}: yaml ${slow} ms, fast path ${fast} ms, configSourceOf ${whole} ms (CPU)`,
    )
  }
  return out
}

if (isMainThread) {
  const { values } = parseArgs({
    options: {
      routes: { type: 'string', default: '10000' },
      young: { type: 'string' },
      repeat: { type: 'string', default: '3' },
    },
  })
  const { manyRoutesYaml } = await import('./many-routes.js')
  const n = Number(values.routes)
  const text = `${[
    `config: { adminAddr: "127.0.0.1:1", logLevel: error, maxRoutes: ${Math.max(20_000, n + 1)} }`,
    'gateways:\n  default: { port: 2, address: 127.0.0.1 }',
    'backends:\n  b: { static: { host: 127.0.0.1, port: 3 } }',
    'routes:',
    manyRoutesYaml(n, 600),
  ].join('\n')}\n`
  const young = values.young === undefined ? undefined : Number(values.young)
  // tsx's loader does not reach worker threads: the worker registers it (as load-thread.ts does).
  const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}) })`
  const worker = new Worker(code, {
    eval: true,
    workerData: { text, repeat: Number(values.repeat) } satisfies Job,
    ...(young === undefined ? {} : { resourceLimits: { maxYoungGenerationSizeMb: young } }),
  })
  worker.on('message', (lines: string[]) => {
    console.log(
      `${n} routes, ${(text.length / 1e6).toFixed(1)} MB, young generation ${young ?? 'default'} MiB`,
    )
    for (const line of lines) console.log(line)
  })
  worker.on('error', (err) => {
    console.error(err)
    process.exitCode = 1
  })
} else {
  parentPort?.postMessage(await work(workerData as Job))
}
