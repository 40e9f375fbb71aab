import { describe, expect, it } from 'vitest'
import { setLogFilter } from '../../src/admin/logging.js'
import { createLogging } from '../../src/telemetry/logging.js'

describe('setLogFilter', () => {
  it('refuses a missing or invalid level with GW_ERR_ADMIN_PARAMETER and keeps the filter', () => {
    const logging = createLogging({ filter: 'info' })
    const missing = setLogFilter(logging, null)
    expect([missing.status, missing.code]).toEqual([400, 'GW_ERR_ADMIN_PARAMETER'])
    const invalid = setLogFilter(logging, 'loud')
    expect([invalid.status, invalid.code]).toEqual([400, 'GW_ERR_ADMIN_PARAMETER'])
    expect(invalid.text).toMatch(/^invalid log filter "loud": .*; the log level stays info$/)
    expect(logging.filter()).toBe('info')
  })

  it('sets a valid level and answers 200 without a code', () => {
    const logging = createLogging({ filter: 'info' })
    expect(setLogFilter(logging, 'debug')).toEqual({
      status: 200,
      text: 'current log level is debug',
    })
  })
})
