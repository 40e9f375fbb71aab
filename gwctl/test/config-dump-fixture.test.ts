import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
// The proxy's own schema of /config_dump: the saved fixture must stay a dump the proxy could
// produce, or the --file tests would render something no real proxy sends.
import { ConfigDump } from '../../proxy/src/admin/config-dump.js'
import { DUMP_FIXTURE } from './helpers.js'

describe('the config dump fixture', () => {
  it('matches the schema of the proxy /config_dump', async () => {
    const doc = JSON.parse(await readFile(DUMP_FIXTURE, 'utf8')) as unknown
    const result = ConfigDump.safeParse(doc)
    expect(result.error?.issues ?? []).toEqual([])
  })
})
