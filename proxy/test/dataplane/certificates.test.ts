/**
 * HTTPS listeners (proxy/src/dataplane/certificates.ts, `gateways.<name>.tls`): the demo served
 * over TLS with a generated certificate to a real client (undici's fetch trusting that CA),
 * certificates chosen by SNI, TLS 1.2 as the floor, and a certificate changed on disk served
 * without a restart — awaited on the listener's reload event (`gatehouse:tls:reload`), no timer.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect, type PeerCertificate } from 'node:tls'
import {
  controlClient,
  createTestCertificates,
  type MockIdp,
  startMockIdp,
  type TestCertificates,
} from '@gatehouse/mock-idp'
import { type McpBackend, startMcpBackend } from '@gatehouse/mock-mcp'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.js'
import { ServerCertificates } from '../../src/dataplane/certificates.js'
import { compile } from '../../src/lifecycle/compile.js'
import { type TlsReloadMessage, tlsReloadChannel } from '../../src/telemetry/channels.js'
import { authConfig } from '../auth/config.js'
import { startTestGatehouse, type TestGatehouse } from '../helpers.js'

let idp: MockIdp
let backend: McpBackend
let gh: TestGatehouse
let dir: string
let main: TestCertificates
let other: TestCertificates

/** Writes a certificate and key as a deployment tool would: new files renamed into place. */
function install(certs: TestCertificates, name: string): { certFile: string; keyFile: string } {
  const certFile = join(dir, `${name}.crt`)
  const keyFile = join(dir, `${name}.key`)
  writeFileSync(`${certFile}.new`, certs.certPem)
  writeFileSync(`${keyFile}.new`, certs.keyPem)
  renameSync(`${keyFile}.new`, keyFile)
  renameSync(`${certFile}.new`, certFile)
  return { certFile, keyFile }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-tls-'))
  ;[main, other] = await Promise.all([
    createTestCertificates('127.0.0.1'),
    createTestCertificates('other.example.test'),
  ])
  idp = await startMockIdp()
  backend = await startMcpBackend()
  const config = authConfig({ idpPort: idp.port, backendPort: backend.port, issuer: idp.issuer })
  gh = await startTestGatehouse({
    ...config,
    gateways: {
      default: {
        port: 3000,
        address: '127.0.0.1',
        tls: {
          certificates: [
            install(main, 'main'),
            { hostname: 'other.example.test', ...install(other, 'other') },
          ],
        },
      },
    },
  })
})
afterAll(async () => {
  await gh?.stop()
  await backend?.stop()
  await idp?.stop()
})

/** undici's fetch trusting `ca` only. */
function trusting(
  ca: string,
): (url: string, init?: Parameters<typeof undiciFetch>[1]) => ReturnType<typeof undiciFetch> {
  const dispatcher = new Agent({ connect: { ca } })
  return (url, init) => undiciFetch(url, { ...init, dispatcher })
}

/** The certificate the listener presents for `servername` (none: no SNI). */
function presented(options: {
  servername?: string
  ca: string
  maxVersion?: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'
}): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port: gh.gateways[0]?.port ?? 0,
      ca: options.ca,
      ...(options.servername ? { servername: options.servername } : {}),
      ...(options.maxVersion ? { maxVersion: options.maxVersion, minVersion: 'TLSv1' } : {}),
      rejectUnauthorized: false,
    })
    socket.once('secureConnect', () => {
      resolve(socket.getPeerCertificate())
      socket.end()
    })
    socket.once('error', reject)
  })
}

function nextReload(): Promise<TlsReloadMessage> {
  return new Promise((resolve) => {
    const listener = (m: unknown) => {
      unsubscribe(tlsReloadChannel.name, listener)
      resolve(m as TlsReloadMessage)
    }
    subscribe(tlsReloadChannel.name, listener)
  })
}

describe('an HTTPS listener', () => {
  it('serves the demo over TLS to a client that trusts the generated CA: 401, then 200 with a token', async () => {
    expect(gh.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    const get = trusting(main.caCertPem)
    const metadata = await get(`${gh.url}/.well-known/oauth-protected-resource/mcp`)
    expect(metadata.status).toBe(200)
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'tls-test', version: '1' },
      },
    }
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    const denied = await get(`${gh.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify(initialize),
    })
    expect(denied.status).toBe(401)
    const { access_token } = await controlClient(idp.controlUrl).token({ sub: 'alice' })
    const allowed = await get(`${gh.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${access_token}` },
      body: JSON.stringify(initialize),
    })
    expect(allowed.status).toBe(200)
    await allowed.body?.cancel()
  })

  it('is refused by a client that does not trust its CA', async () => {
    const get = trusting(other.caCertPem)
    await expect(get(`${gh.url}/mcp`)).rejects.toThrow(/fetch failed/)
  })

  it('presents the certificate of the server name the client asks for (SNI), else the default', async () => {
    const byName = await presented({ servername: 'other.example.test', ca: other.caCertPem })
    expect(byName.subjectaltname).toContain('DNS:other.example.test')
    const byDefault = await presented({ servername: 'unknown.example.test', ca: main.caCertPem })
    expect(byDefault.subjectaltname).toContain('IP Address:127.0.0.1')
    expect(byDefault.subjectaltname).not.toContain('other.example.test')
  })

  it('refuses TLS 1.1 and accepts TLS 1.2', async () => {
    await expect(presented({ ca: main.caCertPem, maxVersion: 'TLSv1.1' })).rejects.toThrow()
    const cert = await presented({ ca: main.caCertPem, maxVersion: 'TLSv1.2' })
    expect(cert.subjectaltname).toContain('IP Address:127.0.0.1')
  })

  it('serves a certificate changed on disk without a restart', async () => {
    const renewed = await createTestCertificates('127.0.0.1')
    const reloaded = nextReload()
    install(renewed, 'main')
    const message = await reloaded
    expect(message.gateway).toBe('default')
    const res = await trusting(renewed.caCertPem)(
      `${gh.url}/.well-known/oauth-protected-resource/mcp`,
    )
    expect(res.status).toBe(200)
    // The old CA no longer vouches for what the listener serves.
    await expect(
      trusting(main.caCertPem)(`${gh.url}/.well-known/oauth-protected-resource/mcp`),
    ).rejects.toThrow(/fetch failed/)
    main = renewed
  })
})

describe('ServerCertificates.load', () => {
  it('names the entry and both files when the key does not belong to the certificate', async () => {
    const certFile = join(dir, 'main.crt')
    const keyFile = join(dir, 'other.key')
    expect(() =>
      ServerCertificates.load({ certificates: [{ certFile, keyFile }], minVersion: 'TLSv1.2' }),
    ).toThrow(
      `certificates[0]: ${certFile} and ${keyFile}: the key does not belong to the certificate`,
    )
  })

  it('makes compile report an unreadable file at gateways.<name>.tls, without its content', async () => {
    const config = parseConfig(
      `gateways:\n  g:\n    port: 8443\n    tls:\n      certificates:\n        - certFile: ${dir}/missing.crt\n          keyFile: ${dir}/main.key\n`,
      'test.yaml',
    )
    const result = await compile(config)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.issues).toEqual([
      {
        path: 'gateways.g.tls',
        message: expect.stringMatching(
          /^certificates\[0\]\.certFile: cannot read .*missing\.crt: ENOENT/,
        ),
      },
    ])
  })
})

describe('ServerCertificates.load with inline PEM (a Kubernetes Secret translated)', () => {
  it('serves certPem and keyPem, chosen by hostname as files are', () => {
    const loaded = ServerCertificates.load({
      certificates: [
        { certPem: main.certPem, keyPem: main.keyPem, from: 'Secret default/main' },
        {
          hostname: 'other.example.test',
          certPem: other.certPem,
          keyPem: other.keyPem,
          from: 'Secret default/other',
        },
      ],
      minVersion: 'TLSv1.2',
    })
    expect(loaded.files).toEqual([])
    expect(loaded.defaultPair).toEqual({ cert: main.certPem, key: main.keyPem })
    expect(loaded.select('other.example.test')).not.toBe(loaded.select(undefined))
  })

  it('names the Secret, never the key, when the key does not belong to the certificate', () => {
    let message = ''
    try {
      ServerCertificates.load({
        certificates: [{ certPem: main.certPem, keyPem: other.keyPem, from: 'Secret ns1/tls' }],
        minVersion: 'TLSv1.2',
      })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toBe(
      'certificates[0]: certPem and keyPem of Secret ns1/tls: the key does not belong to the certificate',
    )
    const keyBody = other.keyPem.split('\n')[1] as string
    expect(message).not.toContain(keyBody.slice(0, 16))
  })

  it('is refused by the schema with both a file and inline PEM, or half a pair', () => {
    const yaml = (entry: string) =>
      `gateways:\n  g:\n    port: 8443\n    tls:\n      certificates:\n        - ${entry}\n`
    expect(() =>
      parseConfig(yaml('{certFile: a, keyFile: b, certPem: c, keyPem: d}'), 't.yaml'),
    ).toThrow(/give certFile and keyFile, or certPem and keyPem, not both/)
    expect(() => parseConfig(yaml('{certPem: c}'), 't.yaml')).toThrow(
      /certPem and keyPem go together/,
    )
  })
})
