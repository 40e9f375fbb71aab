/** Validates a JSON report against the schema the package ships (conformance/report.schema.json). */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { PACKAGE_ROOT } from '../src/gatehouse-process.js'

/** The validation errors of `report` against the schema at `schemaFile` (none: valid). */
export function reportSchemaErrors(
  report: unknown,
  schemaFile: string = join(PACKAGE_ROOT, 'report.schema.json'),
): string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')))
  if (validate(report)) return []
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
}
