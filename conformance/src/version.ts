/** The package's version, and the version of the JSON report's format (report.schema.json). */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PACKAGE_ROOT } from './gatehouse-process.js'

/** The package's version (conformance/package.json), in a checkout or installed. */
export const VERSION = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version

/**
 * The JSON report's `formatVersion`: raised when a member is removed or changes meaning (new
 * members may appear without it). The package ships the format's JSON Schema,
 * `@gatehouse/conformance/report.schema.json`.
 */
export const REPORT_FORMAT_VERSION = 1
