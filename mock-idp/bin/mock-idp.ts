#!/usr/bin/env node
/**
 * `mock-idp [--port 9000] [--host 127.0.0.1] [--public-url <url>] [--https] [--api-token <t>]
 * [--trusted-origin <origin>]... [--auto-sign-in <user>] [--open-registration] [--rfc8414]
 * [--resource-indicators] [--cimd] [--no-test-mode]`: runs the bridged-IdP simulator until
 * SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util'
import { onShutdownSignals } from '@gatehouse/support'
import { startMockIdp } from '../src/index.js'

const USAGE = `usage: mock-idp [options]

  --port <port>         port to listen on (default 9000; 0 picks a free one)
  --host <address>      address to bind (default 127.0.0.1)
  --public-url <url>    org URL (an origin) as clients see it, e.g. http://localhost:9000
                        behind docker: the issuer and every endpoint URL use it
  --https               serve HTTPS with a generated test CA (its path is printed)
  --api-token <token>   API token org-level client registration requires (default test-api-token)
  --trusted-origin <o>  a web origin allowed to call the token endpoint from a browser
                        (CORS), e.g. http://localhost:6274; repeatable
  --auto-sign-in <user> sign this user in on every authorization request, no page: the
                        authorize endpoint redirects back to the client at once (test mode)
  --open-registration   client registration needs no API token (RFC 7591 open registration)
  --rfc8414             serve RFC 8414 path-form metadata (the bridged IdP has none)
  --resource-indicators RFC 8707: the resource parameter becomes the token's aud
  --cimd                accept Client ID Metadata Documents (https client_id URLs)
  --no-test-mode        disable /__control and the headless login_hint sign-in
  -h, --help            show this help
`

function fail(message: string, code: number): never {
  process.stderr.write(`mock-idp: ${message}\n`)
  process.exit(code)
}

let values: {
  port: string
  host: string
  'public-url'?: string
  https: boolean
  'api-token': string
  'trusted-origin': string[]
  'auto-sign-in'?: string
  'open-registration': boolean
  rfc8414: boolean
  'resource-indicators': boolean
  cimd: boolean
  'no-test-mode': boolean
  help: boolean
}
try {
  values = parseArgs({
    options: {
      port: { type: 'string', default: '9000' },
      host: { type: 'string', default: '127.0.0.1' },
      'public-url': { type: 'string' },
      https: { type: 'boolean', default: false },
      'api-token': { type: 'string', default: 'test-api-token' },
      'trusted-origin': { type: 'string', multiple: true, default: [] },
      'auto-sign-in': { type: 'string' },
      'open-registration': { type: 'boolean', default: false },
      rfc8414: { type: 'boolean', default: false },
      'resource-indicators': { type: 'boolean', default: false },
      cimd: { type: 'boolean', default: false },
      'no-test-mode': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values as typeof values
} catch (err) {
  fail(`${(err as Error).message}\n\n${USAGE}`, 2)
}
if (values.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`--port: expected an integer 0-65535, got "${values.port}"`, 2)
for (const origin of values['trusted-origin']) {
  if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
    fail(`--trusted-origin: expected an origin such as http://localhost:6274, got "${origin}"`, 2)
  }
}
const publicUrl = values['public-url']
if (
  publicUrl !== undefined &&
  (!URL.canParse(publicUrl) || new URL(publicUrl).origin !== publicUrl.replace(/\/$/, ''))
) {
  fail(`--public-url: expected an origin such as http://localhost:9000, got "${publicUrl}"`, 2)
}

try {
  const idp = await startMockIdp({
    port,
    host: values.host,
    https: values.https,
    apiToken: values['api-token'],
    testMode: !values['no-test-mode'],
    trustedOrigins: values['trusted-origin'],
    registration: values['open-registration'] ? 'open' : 'api-token',
    rfc8414PathForm: values.rfc8414,
    resourceIndicators: values['resource-indicators'],
    ...(values.cimd ? { clientIdMetadataDocuments: {} } : {}),
    ...(values['auto-sign-in'] ? { autoSignIn: values['auto-sign-in'] } : {}),
    ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
  })
  const lines = [
    `mock-idp listening: ${idp.orgUrl}`,
    `  issuer        ${idp.issuer}`,
    `  discovery     ${idp.discoveryUrl}`,
    `  keys          ${idp.jwksUri}`,
    `  registration  ${idp.registrationUrl}${values['open-registration'] ? ' (open)' : ' (Authorization: SSWS <api token>)'}`,
    `  public client ${idp.publicClientId}; users alice (AI-Users), bob`,
  ]
  if (idp.caCertPath) lines.push(`  CA bundle     ${idp.caCertPath}`)
  if (!values['no-test-mode']) {
    lines.push(
      `  test token    curl -s -X POST ${idp.controlUrl}/token -H 'content-type: application/json' -d '{"sub":"alice"}'`,
    )
  }
  process.stdout.write(`${lines.join('\n')}\n`)
  onShutdownSignals(() => idp.stop(), { name: 'mock-idp' })
} catch (err) {
  const e = err as NodeJS.ErrnoException
  const hint = e.code === 'EADDRINUSE' ? ` (port ${port} is in use; pick another with --port)` : ''
  fail(`cannot start on ${values.host}:${port}: ${e.message}${hint}`, 1)
}
