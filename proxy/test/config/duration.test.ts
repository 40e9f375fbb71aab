/** Durations (proxy/src/config/duration.ts). */
import { describe, expect, it } from 'vitest'
import { Duration, parseDuration } from '../../src/config/duration.js'

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

describe('Duration', () => {
  it('carries the milliseconds and the text as written, and dumps as the text', () => {
    const d = Duration.of('1m30s')
    expect(d.ms).toBe(90_000)
    expect(d.text).toBe('1m30s')
    expect(JSON.stringify({ drainTimeout: d })).toBe('{"drainTimeout":"1m30s"}')
    expect(`${d}`).toBe('1m30s')
  })

  it('refuses what is not a duration', () => {
    expect(Duration.parse('soon')).toBeUndefined()
    expect(() => Duration.of('soon')).toThrow('not a duration: soon')
  })
})
