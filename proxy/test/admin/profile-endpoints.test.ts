import { gunzipSync } from 'node:zlib'
import { Profile } from 'pprof-format'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdminGatehouse, startBackend, type TestBackend } from './helpers.js'

function decode(body: ArrayBuffer): Profile {
  return Profile.decode(gunzipSync(Buffer.from(body)))
}

function str(p: Profile, i: unknown): string {
  return p.stringTable.strings[Number(i)] ?? ''
}

describe.runIf(process.platform === 'linux')('pprof endpoints (Linux)', () => {
  let backend: TestBackend
  let gh: Awaited<ReturnType<typeof startAdminGatehouse>>
  beforeAll(async () => {
    backend = await startBackend()
    gh = await startAdminGatehouse(backend.port)
  })
  afterAll(async () => {
    await gh.stop()
    await backend.close()
  })

  it('takes a CPU profile under load that decodes and has samples of proxy code', async () => {
    let loading = true
    const load = (async () => {
      let n = 0
      while (loading) {
        await Promise.all(
          Array.from({ length: 8 }, () => fetch(`${gh.url}/mcp/load`).then((r) => r.arrayBuffer())),
        )
        n += 8
      }
      return n
    })()
    const res = await fetch(`${gh.admin}/debug/pprof/profile?seconds=1&frequency=500`)
    loading = false
    expect(await load).toBeGreaterThan(0)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/octet-stream')
    expect(res.headers.get('content-disposition')).toMatch(/gatehouse-cpu-\d{8}T\d{6}Z\.pb\.gz/)
    const p = decode(await res.arrayBuffer())
    expect(p.sampleType.map((t) => [str(p, t.type), str(p, t.unit)])).toEqual([
      ['samples', 'count'],
      ['cpu', 'nanoseconds'],
    ])
    expect(Number(p.period)).toBe(2_000_000)
    expect(p.sample.length).toBeGreaterThan(0)
    for (const s of p.sample) expect(s.locationId.length).toBeGreaterThan(0)
    const files = p.function.map((f) => str(p, f.filename))
    expect(files.some((f) => f.includes('/proxy/src/'))).toBe(true)
  })

  it('answers 409 to a second CPU profile while one runs', async () => {
    const answers = await Promise.all(
      [1, 2].map(async () => {
        const res = await fetch(`${gh.admin}/debug/pprof/profile?seconds=1`)
        return { status: res.status, body: Buffer.from(await res.arrayBuffer()) }
      }),
    )
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses).toEqual([200, 409])
    const conflict = answers.find((a) => a.status === 409)
    expect(conflict?.body.toString()).toContain('already running')
  })

  it('answers 400 for out-of-range or non-integer parameters', async () => {
    for (const query of [
      'seconds=0',
      'seconds=301',
      'seconds=1.5',
      'seconds=abc',
      'seconds=',
      'frequency=0',
      'frequency=1001',
      'frequency=-5',
    ]) {
      const res = await fetch(`${gh.admin}/debug/pprof/profile?${query}`)
      expect(res.status, query).toBe(400)
      expect(await res.text(), query).toMatch(/^(seconds|frequency) must be/)
    }
  })

  it('starts heap sampling on the first heap profile request, says so, then serves samples', async () => {
    const first = await fetch(`${gh.admin}/debug/pprof/heap`)
    expect(first.status).toBe(200)
    expect(first.headers.get('gatehouse-heap-sampling')).toBe('started')
    expect(first.headers.get('content-disposition')).toMatch(/gatehouse-heap-.*\.pb\.gz/)
    const empty = decode(await first.arrayBuffer())
    expect(empty.sampleType.map((t) => str(empty, t.type))).toEqual([
      'inuse_objects',
      'inuse_space',
    ])
    expect(empty.sample).toHaveLength(0)

    const keep: unknown[] = []
    for (let i = 0; i < 2000; i++) keep.push({ i, data: new Array(64).fill(i) })
    const res = await fetch(`${gh.admin}/debug/pprof/heap`)
    expect(res.status).toBe(200)
    expect(res.headers.get('gatehouse-heap-sampling')).toMatch(/^since=\d{4}-\d\d-\d\dT/)
    const p = decode(await res.arrayBuffer())
    expect(p.sampleType.map((t) => str(p, t.type))).toEqual(['inuse_objects', 'inuse_space'])
    expect(p.sample.length).toBeGreaterThan(0)
    expect(p.sample.every((s) => Number(s.value[1]) > 0)).toBe(true)
    expect(keep.length).toBe(2000)
  })
})

describe('CPU profile registration', () => {
  it('is registered on Linux only (404 elsewhere)', async () => {
    const backend = await startBackend()
    const gh = await startAdminGatehouse(backend.port)
    try {
      const res = await fetch(`${gh.admin}/debug/pprof/profile?seconds=0`)
      expect(res.status).toBe(process.platform === 'linux' ? 400 : 404)
      const index = (await (await fetch(`${gh.admin}/nope`)).json()) as {
        endpoints: Array<{ path: string }>
      }
      expect(index.endpoints.some((e) => e.path === '/debug/pprof/profile')).toBe(
        process.platform === 'linux',
      )
    } finally {
      await gh.stop()
      await backend.close()
    }
  })
})
