import { gunzipSync } from 'node:zlib'
import { Profile } from 'pprof-format'
import { describe, expect, it } from 'vitest'
import {
  cpuProfileToPprof,
  encodePprof,
  heapProfileToPprof,
  type V8CpuProfile,
} from '../../src/admin/pprof.js'

const frame = (functionName: string, lineNumber = 0) => ({
  functionName,
  url: 'file:///app.js',
  lineNumber,
  columnNumber: 0,
})

describe('cpuProfileToPprof', () => {
  const v8: V8CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 4] },
      { id: 2, callFrame: frame('outer', 9), children: [3] },
      { id: 3, callFrame: frame('inner', 19) },
      { id: 4, callFrame: frame('(idle)') },
    ],
    startTime: 1_000,
    endTime: 11_000,
    samples: [3, 3, 2, 4, 4, 4],
  }

  it('turns each sampled stack into a sample, leaf first, and leaves idle time out', () => {
    const p = Profile.decode(gunzipSync(encodePprof(cpuProfileToPprof(v8, 1000))))
    const names = (ids: unknown[]) =>
      ids.map((id) => {
        const loc = p.location.find((l) => Number(l.id) === Number(id))
        const fn = p.function.find((f) => Number(f.id) === Number(loc?.line[0]?.functionId))
        return p.stringTable.strings[Number(fn?.name)]
      })
    const samples = p.sample.map((s) => ({
      stack: names(s.locationId),
      value: s.value.map(Number),
    }))
    expect(samples).toEqual([
      { stack: ['inner', 'outer'], value: [2, 2_000_000] },
      { stack: ['outer'], value: [1, 1_000_000] },
    ])
    expect(Number(p.durationNanos)).toBe(10_000_000)
    const inner = p.location.find((l) => names([l.id])[0] === 'inner')
    expect(Number(inner?.line[0]?.line)).toBe(20)
  })
})

describe('heapProfileToPprof', () => {
  it('gives a profile with sample types and no samples when there is no sampler', () => {
    const p = Profile.decode(gunzipSync(encodePprof(heapProfileToPprof(undefined, 1024))))
    expect(p.sample).toEqual([])
    expect(p.sampleType.map((t) => p.stringTable.strings[Number(t.type)])).toEqual([
      'inuse_objects',
      'inuse_space',
    ])
  })

  it('attributes self size to the allocating stack', () => {
    const p = heapProfileToPprof(
      {
        head: {
          id: 1,
          callFrame: frame('(root)'),
          selfSize: 0,
          children: [
            {
              id: 2,
              callFrame: frame('alloc'),
              selfSize: 4096,
              children: [],
            },
          ],
        },
        samples: [
          { size: 2048, nodeId: 2 },
          { size: 2048, nodeId: 2 },
        ],
      },
      1024,
    )
    expect(p.sample.map((s) => s.value.map(Number))).toEqual([[2, 4096]])
  })
})
