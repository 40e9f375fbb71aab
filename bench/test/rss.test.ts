import { describe, expect, it } from 'vitest'
import { perStreamKiB, recovered } from '../rss.js'

describe('perStreamKiB', () => {
  it('divides what the streams added by their number, in KiB', () => {
    expect(perStreamKiB(100 * 1024 * 1024, 100 * 1024 * 1024 + 2000 * 16 * 1024, 2000)).toBe(16)
  })
})

describe('recovered', () => {
  const samples = [
    { at: 1, rss: 150 },
    { at: 2, rss: 111 },
    { at: 3, rss: 110 },
    { at: 4, rss: 105 },
  ]

  it('finds the first reading within the tolerance of the baseline', () => {
    expect(recovered(samples, 100, 0.1)).toEqual({ at: 3, rss: 110 })
  })

  it('is undefined when RSS never came back within it', () => {
    expect(recovered(samples, 100, 0.01)).toBeUndefined()
  })
})
