#!/usr/bin/env node
/**
 * `npx tsx peers/bin/sdk-resource-server.ts --issuer <url> --audience <aud> [--jwks-url <url>]
 * [--port <n>] [--required-scope <s>]…`: the SDK-built example resource server
 * (peers/src/sdk-resource-server.ts) as a process, for `npm run conformance -- --target`. Each
 * flag may come from the environment instead: ISSUER, AUDIENCE, JWKS_URL, PORT. Prints
 * `listening <mcp url>` once it listens; Ctrl-C stops it.
 */
import { parseArgs } from 'node:util'
import { onShutdownSignals } from '@gatehouse/support'
import { startSdkResourceServer } from '../src/sdk-resource-server.js'

const { values } = parseArgs({
  options: {
    issuer: { type: 'string', default: process.env.ISSUER },
    audience: { type: 'string', default: process.env.AUDIENCE },
    'jwks-url': { type: 'string', default: process.env.JWKS_URL },
    port: { type: 'string', default: process.env.PORT ?? '0' },
    'required-scope': { type: 'string', multiple: true, default: [] },
  },
})
if (!values.issuer || !values.audience) {
  console.error(
    'sdk-resource-server: --issuer and --audience (or ISSUER and AUDIENCE) are required',
  )
  process.exit(2)
}
const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`sdk-resource-server: --port must be an integer 0-65535, got "${values.port}"`)
  process.exit(2)
}
const rs = await startSdkResourceServer({
  issuer: values.issuer,
  audience: values.audience,
  port,
  requiredScopes: values['required-scope'],
  ...(values['jwks-url'] ? { jwksUrl: values['jwks-url'] } : {}),
})
console.log(`listening ${rs.url}`)
onShutdownSignals(() => rs.stop(), { name: 'sdk-resource-server', announce: false })
