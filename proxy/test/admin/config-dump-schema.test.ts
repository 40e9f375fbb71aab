/**
 * admin/config-dump-schema.ts: the zod schema of `/config_dump` is what the committed JSON Schema
 * is generated from, and the module gwctl shares imports nothing of the proxy.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configDumpJsonSchema } from '../../src/admin/config-dump-schema.js'

const SOURCE = new URL('../../src/admin/config-dump-schema.ts', import.meta.url)
const SCHEMA_FILE = new URL('../../src/admin/config-dump.schema.json', import.meta.url)

describe('config dump schema', () => {
  it('matches the committed config-dump.schema.json (run `npm run schema`)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(
      `${JSON.stringify(configDumpJsonSchema(), null, 2)}\n`,
    )
  })

  it('imports only zod, so gwctl shares it without loading the proxy', () => {
    const imports = [...readFileSync(SOURCE, 'utf8').matchAll(/^import .* from '([^']+)'/gm)]
    expect(imports.map((m) => m[1])).toEqual(['zod'])
  })
})
