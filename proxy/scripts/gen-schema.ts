/**
 * `npm run schema`: writes every document generated from a zod schema — the configuration's JSON
 * Schema (proxy/config.schema.json), its reference (docs/configuration.md) and the JSON Schema of
 * `/config_dump` (proxy/src/admin/config-dump.schema.json). Tests fail when a committed copy drifts.
 */
import { writeFileSync } from 'node:fs'
import { configDumpJsonSchema } from '../src/admin/config-dump.js'
import { configJsonSchema, renderConfigReference } from '../src/config/reference.js'

const root = new URL('../../', import.meta.url)
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
writeFileSync(new URL('proxy/config.schema.json', root), json(configJsonSchema()))
writeFileSync(new URL('docs/configuration.md', root), renderConfigReference())
writeFileSync(
  new URL('proxy/src/admin/config-dump.schema.json', root),
  json(configDumpJsonSchema()),
)
console.log(
  'wrote proxy/config.schema.json, docs/configuration.md and proxy/src/admin/config-dump.schema.json',
)
