/** Writes proxy/config.schema.json and docs/configuration.md from the zod schema. */
import { writeFileSync } from 'node:fs'
import { configJsonSchema, renderConfigReference } from '../src/config/reference.js'

const root = new URL('../../', import.meta.url)
writeFileSync(
  new URL('proxy/config.schema.json', root),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
)
writeFileSync(new URL('docs/configuration.md', root), renderConfigReference())
console.log('wrote proxy/config.schema.json and docs/configuration.md')
