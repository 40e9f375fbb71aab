import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LiveGatehouse, runGwctl, startLiveGatehouse } from '../helpers.js'

describe('gwctl proxy log against a running gatehouse', () => {
  let live: LiveGatehouse
  beforeAll(async () => {
    live = await startLiveGatehouse()
  })
  afterAll(async () => {
    await live.close()
  })

  it('prints the current filter', async () => {
    const r = await runGwctl(['-p', live.adminPort, 'proxy', 'log'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('current log level is error\n')
  })

  it('sets a per-module filter with --level and the proxy keeps it', async () => {
    const set = await runGwctl([
      '-p',
      live.adminPort,
      'proxy',
      'log',
      '--level',
      'warn,proxy::dataplane=debug',
    ])
    expect(set.code).toBe(0)
    expect(set.stdout).toBe('current log level is warn,proxy::dataplane=debug\n')
    expect(live.gatehouse.logging.filter()).toBe('warn,proxy::dataplane=debug')
    const get = await runGwctl(['--admin', live.admin, 'proxy', 'log'])
    expect(get.stdout).toBe('current log level is warn,proxy::dataplane=debug\n')
  })

  it('quotes the proxy refusing an invalid filter and exits 1', async () => {
    const r = await runGwctl(['-p', live.adminPort, 'proxy', 'log', '--level', 'loud'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      new RegExp(
        `^gwctl: the admin interface at ${live.admin} answered 400 to /logging: invalid log filter "loud"`,
      ),
    )
  })
})
