import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_STORE_FILE, effectiveStore } from '../../src/broker/store.js'

describe('effectiveStore', () => {
  it('is SQLite at <state directory>/state.sqlite when no store is configured', () => {
    expect(effectiveStore(undefined, '/var/lib/gatehouse')).toEqual({
      sqlite: { path: join('/var/lib/gatehouse', DEFAULT_STORE_FILE), maxEntries: 100_000 },
    })
    expect(DEFAULT_STORE_FILE).toBe('state.sqlite')
  })

  it('is the configured store whatever the state directory', () => {
    const memory = { memory: { maxEntries: 500 } }
    expect(effectiveStore(memory, '/var/lib/gatehouse')).toBe(memory)
    const sqlite = { sqlite: { path: 'elsewhere.db', maxEntries: 100 } }
    expect(effectiveStore(sqlite, '/var/lib/gatehouse')).toBe(sqlite)
  })

  it('is memory for the library used without a state directory', () => {
    expect(effectiveStore(undefined, undefined)).toEqual({ memory: { maxEntries: 10_000 } })
  })
})
