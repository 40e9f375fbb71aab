import { describe, expect, it } from 'vitest'
import { selfTimeByModule, topSelfTime } from '../cpuprofile.js'

describe('topSelfTime', () => {
  const frame = (functionName: string, url = '', lineNumber = 0) => ({
    functionName,
    url,
    lineNumber,
  })
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)') },
      { id: 2, callFrame: frame('verify', 'file:///work/x/proxy/dist/gatehouse.js', 9) },
      { id: 3, callFrame: frame('verify', 'file:///work/x/proxy/dist/gatehouse.js', 9) },
      { id: 4, callFrame: frame('', 'file:///work/x/node_modules/undici/lib/pool.js', 4) },
      { id: 5, callFrame: frame('(idle)') },
    ],
    samples: [2, 3, 4, 5, 2],
    timeDeltas: [100, 200, 50, 600, 50],
  }

  it('sums each function over its nodes, orders by self time and leaves idle time out', () => {
    expect(topSelfTime(profile, 3)).toEqual([
      { fn: 'verify (proxy/dist/gatehouse.js:10)', us: 350, share: 0.875 },
      { fn: '(anonymous) (undici/lib/pool.js:5)', us: 50, share: 0.125 },
    ])
  })

  it('keeps only the first n', () => {
    expect(topSelfTime(profile, 1)).toHaveLength(1)
  })

  it('sums self time per package, gatehouse and native code', () => {
    const withNative = {
      nodes: [...profile.nodes, { id: 6, callFrame: frame('writev') }],
      samples: [...profile.samples, 6],
      timeDeltas: [...profile.timeDeltas, 100],
    }
    expect(selfTimeByModule(withNative)).toEqual([
      { fn: 'gatehouse', us: 350, share: 0.7 },
      { fn: '(native)', us: 100, share: 0.2 },
      { fn: 'undici', us: 50, share: 0.1 },
    ])
  })
})
