/**
 * gwctl as a library: the command runner used by the binary, and the admin client and
 * renderers for tools that want the same output.
 */

export type { AdminAddress, AdminResponse } from './admin-client.js'
export {
  AdminClient,
  formatAdminAddress,
  parseAdminAddress,
  resolveAdminAddress,
} from './admin-client.js'
export { run } from './cli.js'
export type { ConfigDump } from './config-dump.js'
export { asConfigDump, readConfigDumpFile } from './config-dump.js'
export type { GwctlErrorCode } from './errors.js'
export { GWCTL_ERROR_CODES, GwctlError } from './errors.js'
export type { CliIo } from './io.js'
export type { ConfigFormat } from './render/config.js'
export { renderConfig } from './render/config.js'
export type { TraceEvent } from './trace/events.js'
export { traceNextRequest } from './trace/stream.js'
