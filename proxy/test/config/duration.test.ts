/** Durations (proxy/src/config/duration.ts). */
import { describe, expect, it } from 'vitest'
import { durationMs, parseDuration } from '../../src/config/duration.js'

describe('parseDuration', () => {
  it('reads each unit and compounds', () => {
    expect(parseDuration('250ms')).toBe(250)
    expect(parseDuration('30s')).toBe(30_000)
    expect(parseDuration('5m')).toBe(300_000)
    expect(parseDuration('1h')).toBe(3_600_000)
    expect(parseDuration('1m30s')).toBe(90_000)
    expect(parseDuration('1.5s')).toBe(1500)
    expect(parseDuration('0s')).toBe(0)
  })

  it('refuses what is not a duration', () => {
    for (const bad of ['', '30', 's', '30 s', '-1s', '1d', '1s ', ' 1s', '1sx', '1m30']) {
      expect(parseDuration(bad), bad).toBeUndefined()
    }
  })
})

describe('durationMs', () => {
  it('throws on a value the schema should have refused', () => {
    expect(durationMs('2s')).toBe(2000)
    expect(() => durationMs('soon')).toThrow('not a duration: soon')
  })
})
