/**
 * Writes the committed JSON Schema of `/config_dump` (`config-dump.schema.json` beside this file)
 * from the zod source. Run after changing the dump: `npx tsx proxy/src/admin/write-dump-schema.ts`.
 */
import { writeFileSync } from 'node:fs'
import { configDumpJsonSchema } from './config-dump.js'

writeFileSync(
  new URL('./config-dump.schema.json', import.meta.url),
  `${JSON.stringify(configDumpJsonSchema(), null, 2)}\n`,
)
