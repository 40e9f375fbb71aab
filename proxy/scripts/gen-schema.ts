/**
 * `npm run schema`: writes every document generated from a zod schema — the configuration's JSON
 * Schema (proxy/config.schema.json), its reference (docs/configuration.md) and the JSON Schema of
 * `/config_dump` (proxy/src/admin/config-dump.schema.json) and the CustomResourceDefinitions of
 * GatewayBackend and GatewayPolicy (examples/kubernetes/crds/). Tests fail when a committed copy drifts.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { configDumpJsonSchema } from '../src/admin/config-dump-schema.js'
import { crdFiles } from '../src/config/kubernetes/crds.js'
import { configJsonSchema, renderConfigReference } from '../src/config/reference.js'

const root = new URL('../../', import.meta.url)
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
writeFileSync(new URL('proxy/config.schema.json', root), json(configJsonSchema()))
writeFileSync(new URL('docs/configuration.md', root), renderConfigReference())
writeFileSync(
  new URL('proxy/src/admin/config-dump.schema.json', root),
  json(configDumpJsonSchema()),
)
mkdirSync(new URL('examples/kubernetes/crds/', root), { recursive: true })
for (const [file, text] of Object.entries(crdFiles())) {
  writeFileSync(new URL(`examples/kubernetes/crds/${file}`, root), text)
}
console.log(
  'wrote proxy/config.schema.json, docs/configuration.md, proxy/src/admin/config-dump.schema.json and examples/kubernetes/crds/',
)
