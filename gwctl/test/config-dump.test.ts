import { readFile } from 'node:fs/promises'
// The proxy's own schema of /config_dump: the saved fixture must stay a dump the proxy could
// produce, or the --file tests would render something no real proxy sends.
import { ConfigDumpSchema } from '@gatehouse/proxy/config-dump-schema'
import { describe, expect, it } from 'vitest'
import { asConfigDump } from '../src/config-dump.js'
import { DUMP_FIXTURE } from './helpers.js'

describe('the config dump fixture', () => {
  it('matches the schema of the proxy /config_dump', async () => {
    const doc = JSON.parse(await readFile(DUMP_FIXTURE, 'utf8')) as unknown
    const result = ConfigDumpSchema.safeParse(doc)
    expect(result.error?.issues ?? []).toEqual([])
  })
})

describe('asConfigDump', () => {
  it('names the list entry that has no name', () => {
    const doc = { binds: [], routes: [{ rules: [] }], backends: [], policies: [] }
    expect(() => asConfigDump(doc, 'dump.json')).toThrow(
      'dump.json is not a config dump: routes[0] has no name',
    )
  })

  it('says a JSON array is not a config dump', () => {
    expect(() => asConfigDump([], 'dump.json')).toThrow(
      'dump.json is not a config dump: expected a JSON object as saved from GET /config_dump',
    )
  })

  it('keeps fields it does not know, so a newer dump renders in full', () => {
    const doc = { binds: [], routes: [], backends: [], policies: [], future: { x: 1 } }
    expect(asConfigDump(doc, 'dump.json').future).toEqual({ x: 1 })
  })
})
