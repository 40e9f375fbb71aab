/**
 * Certificates and CA bundles from manifests (proxy/src/config/kubernetes/secrets.ts): a Gateway's
 * HTTPS listeners served with the Secrets of type kubernetes.io/tls they name (SNI by listener
 * hostname), a backend reached over TLS validated against the CA of a BackendTLSPolicy's
 * ConfigMap — on real servers — and each broken reference refused with its Gateway API reason,
 * naming the resource and field and never what the Secret holds.
 */
import { X509Certificate } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { createTestCertificates, type TestCertificates } from '@gatehouse/mock-idp'
import { Agent, fetch as undiciFetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfigSources } from '../../../src/config/sources.js'
import { ConfigError } from '../../../src/errors.js'
import { type Gatehouse, startGatehouse } from '../../../src/index.js'
import { capturedLogging } from '../../helpers.js'
import {
  backend,
  condition,
  GROUP,
  GW,
  load,
  publicly,
  res,
  route,
  withMetadata,
  writeDir,
  yamlOf,
} from './manifests.js'

let a: TestCertificates
let b: TestCertificates
let upstreamCerts: TestCertificates
let stranger: TestCertificates
let upstream: Server

const b64 = (s: string) => Buffer.from(s).toString('base64')

const secret = (name: string, c: TestCertificates, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': b64(c.certPem), 'tls.key': b64(c.keyPem) },
  ...extra,
})

const configMap = (name: string, pem: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { 'ca.crt': pem },
})

const httpsListener = (name: string, hostname: string, secretRef: Record<string, unknown>) => ({
  name,
  protocol: 'HTTPS',
  port: 3443,
  hostname,
  tls: { mode: 'Terminate', certificateRefs: [{ kind: 'Secret', ...secretRef }] },
})

const httpsGateway = (listeners = [httpsListener('a', 'a.example.test', { name: 'cert-a' })]) =>
  res(`${GW}/v1`, 'Gateway', 'gw', { gatewayClassName: 'gatehouse', listeners })

const tlsPolicy = (caRefs: unknown) =>
  res(`${GW}/v1`, 'BackendTLSPolicy', 'upstream-tls', {
    targetRefs: [{ group: GROUP, kind: 'GatewayBackend', name: 'mcp-backend' }],
    validation: { hostname: 'localhost', caCertificateRefs: caRefs },
  })

/** Everything healthy: two HTTPS listeners on one port, a TLS backend with its CA in a ConfigMap. */
const manifests = (caPem: string) => [
  httpsGateway([
    httpsListener('a', 'a.example.test', { name: 'cert-a' }),
    httpsListener('b', 'b.example.test', { name: 'cert-b' }),
  ]),
  secret('cert-a', a),
  secret('cert-b', b),
  backend('mcp-backend', (upstream.address() as { port: number }).port),
  tlsPolicy([{ group: '', kind: 'ConfigMap', name: 'upstream-ca' }]),
  configMap('upstream-ca', caPem),
  publicly(route(undefined, { name: 'gw', sectionName: 'a' })),
]

async function errorOf(docs: readonly unknown[]): Promise<ConfigError> {
  try {
    await load(docs)
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

async function start(caPem: string): Promise<{ gh: Gatehouse; logs: Record<string, unknown>[] }> {
  const s = await load(manifests(caPem))
  const logs: Record<string, unknown>[] = []
  const gh = await startGatehouse({
    config: { ...s.config, config: { ...s.config.config, adminAddr: '127.0.0.1:0' } },
    ephemeralPorts: true,
    logging: capturedLogging(logs, 'debug'),
  })
  return { gh, logs }
}

/** undici's fetch trusting `ca` only, sending `servername` (SNI). */
const trusting = (ca: string, servername: string) => {
  const dispatcher = new Agent({ connect: { ca, servername } })
  return (url: string) => undiciFetch(url, { dispatcher })
}

function presented(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false })
    socket.once('secureConnect', () => {
      resolve(socket.getPeerCertificate().subjectaltname ?? '')
      socket.end()
    })
    socket.once('error', reject)
  })
}

beforeAll(async () => {
  ;[a, b, upstreamCerts, stranger] = await Promise.all([
    createTestCertificates('a.example.test'),
    createTestCertificates('b.example.test'),
    createTestCertificates('localhost'),
    createTestCertificates('localhost'),
  ])
  upstream = createServer({ cert: upstreamCerts.certPem, key: upstreamCerts.keyPem }, (_q, r) =>
    r.end('upstream over TLS'),
  )
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  await new Promise((resolve) => upstream?.close(resolve))
})

describe('HTTPS listeners from Secrets and backend CAs from ConfigMaps', () => {
  it('serves each listener hostname its Secret (SNI) and reaches a TLS backend with the ConfigMap CA', async () => {
    const { gh, logs } = await start(upstreamCerts.caCertPem)
    try {
      const port = gh.gateways[0]?.port as number
      expect(gh.gateways).toHaveLength(1)
      expect(await presented(port, 'a.example.test')).toContain('DNS:a.example.test')
      expect(await presented(port, 'b.example.test')).toContain('DNS:b.example.test')
      const res = await trusting(a.caCertPem, 'a.example.test')(`https://127.0.0.1:${port}/mcp`)
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('upstream over TLS')
      // Nothing the Secrets hold reaches the logs or the admin dump.
      const dump = await (await fetch(`${gh.adminUrl}/config_dump`)).text()
      expect(dump).toContain('"HTTPS"')
      const text = JSON.stringify(logs) + dump
      for (const c of [a, b]) {
        expect(text).not.toContain(c.keyPem.split('\n')[1])
        expect(text).not.toContain(b64(c.keyPem).slice(0, 40))
      }
    } finally {
      await gh.stop()
    }
  })

  it('refuses the TLS backend when the ConfigMap holds a CA that did not sign its certificate', async () => {
    const { gh } = await start(stranger.caCertPem)
    try {
      const port = gh.gateways[0]?.port as number
      const res = await trusting(a.caCertPem, 'a.example.test')(`https://127.0.0.1:${port}/mcp`)
      expect(res.status).toBe(502)
      expect(await res.text()).not.toContain('upstream over TLS')
    } finally {
      await gh.stop()
    }
  })
})

describe('a Secret changed in the manifests', () => {
  it('is served after a reload without a restart; a broken one is refused and the old one stays', async () => {
    const next = await createTestCertificates('a.example.test')
    const dir = writeDir({ 'm.yaml': yamlOf([httpsGateway(), secret('cert-a', a)]) })
    const loadConfig = () => loadConfigSources([join(dir, 'm.yaml')], { env: {} })
    const first = await loadConfig()
    const gh = await startGatehouse({
      config: first.config,
      source: first,
      loadConfig,
      ephemeralPorts: true,
      logging: capturedLogging([], 'info'),
    })
    try {
      const port = gh.gateways[0]?.port as number
      const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256
      expect(await presentedFingerprint(port, 'a.example.test')).toBe(fingerprint(a.certPem))
      writeFileSync(join(dir, 'm.yaml'), yamlOf([httpsGateway(), secret('cert-a', next)]))
      expect((await gh.reload()).result).toBe('success')
      expect(await presentedFingerprint(port, 'a.example.test')).toBe(fingerprint(next.certPem))
      writeFileSync(
        join(dir, 'm.yaml'),
        yamlOf([httpsGateway(), secret('cert-a', next, { type: 'Opaque' })]),
      )
      expect((await gh.reload()).result).not.toBe('success')
      expect(await presentedFingerprint(port, 'a.example.test')).toBe(fingerprint(next.certPem))
    } finally {
      await gh.stop()
    }
  })
})

function presentedFingerprint(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false })
    socket.once('secureConnect', () => {
      resolve(socket.getPeerCertificate().fingerprint256)
      socket.end()
    })
    socket.once('error', reject)
  })
}

describe('broken references, each with its reason and never the content', () => {
  const planted = () => [a.keyPem.split('\n')[1] as string, b64(a.keyPem).slice(0, 40)]

  it('InvalidCertificateRef: a missing Secret, named with the listener field', async () => {
    const err = await errorOf([httpsGateway()])
    expect(err.message).toContain('Gateway default/gw: spec.listeners[0].tls.certificateRefs[0]')
    expect(err.message).toContain('InvalidCertificateRef')
    expect(err.message).toContain('Secret default/cert-a not found')
  })

  it('InvalidCertificateRef: a Secret that is not of type kubernetes.io/tls', async () => {
    const err = await errorOf([httpsGateway(), secret('cert-a', a, { type: 'Opaque' })])
    expect(err.message).toContain(
      'Secret default/cert-a: type is "Opaque", expected kubernetes.io/tls',
    )
    for (const p of planted()) expect(err.message).not.toContain(p)
  })

  it('InvalidCertificateRef: tls.crt that is no PEM certificate, and a key that is no key', async () => {
    const badCert = secret('cert-a', a)
    ;(badCert.data as Record<string, string>)['tls.crt'] = b64('not a certificate')
    expect((await errorOf([httpsGateway(), badCert])).message).toContain(
      'Secret default/cert-a: data.tls.crt is not a PEM certificate',
    )
    const badKey = secret('cert-a', a)
    ;(badKey.data as Record<string, string>)['tls.key'] = b64(
      '-----BEGIN PRIVATE KEY-----\nplanted-secret-value\n-----END PRIVATE KEY-----\n',
    )
    const err = await errorOf([httpsGateway(), badKey])
    expect(err.message).toContain('Secret default/cert-a: data.tls.key is not a PEM private key')
    expect(err.message).not.toContain('planted-secret-value')
  })

  it('a key that does not belong to the certificate names the Secret, not the key', async () => {
    const mixed = secret('cert-a', a)
    ;(mixed.data as Record<string, string>)['tls.key'] = b64(b.keyPem)
    const err = await errorOf([httpsGateway(), mixed])
    expect(err.message).toContain('InvalidCertificateRef')
    expect(err.message).toContain(
      'Secret default/cert-a: data.tls.key does not belong to the certificate in data.tls.crt',
    )
    expect(err.message).not.toContain(b.keyPem.split('\n')[1])
  })

  it('RefNotPermitted: a Secret in another namespace without a ReferenceGrant; granted, it is served', async () => {
    const gw = httpsGateway([
      httpsListener('a', 'a.example.test', { name: 'cert-a', namespace: 'certs' }),
    ])
    const inCerts = withMetadata(secret('cert-a', a), { name: 'cert-a', namespace: 'certs' })
    const err = await errorOf([gw, inCerts])
    expect(err.message).toContain('RefNotPermitted')
    expect(err.message).toContain('Secret certs/cert-a in another namespace')
    const grant = res(
      `${GW}/v1beta1`,
      'ReferenceGrant',
      'gateways-read-certs',
      {
        from: [{ group: GW, kind: 'Gateway', namespace: 'default' }],
        to: [{ group: '', kind: 'Secret' }],
      },
      'certs',
    )
    const s = await load([gw, inCerts, grant])
    expect(s.config.gateways.gw?.tls?.certificates[0]).toMatchObject({
      hostname: 'a.example.test',
      from: 'Secret certs/cert-a',
    })
    expect(condition(s, 'Gateway', 'gw', 'Accepted')?.status).toBe('True')
  })

  it('InvalidCACertificateRef and InvalidKind for a BackendTLSPolicy, failing closed', async () => {
    const base = [backend('mcp-backend', 8443)]
    const missing = await errorOf([
      ...base,
      tlsPolicy([{ group: '', kind: 'ConfigMap', name: 'nope' }]),
    ])
    expect(missing.message).toContain(
      'BackendTLSPolicy default/upstream-tls: spec.validation.caCertificateRefs',
    )
    expect(missing.message).toContain(
      'InvalidCACertificateRef: caCertificateRefs[0]: ConfigMap default/nope not found',
    )
    const secretKind = await errorOf([
      ...base,
      tlsPolicy([{ group: '', kind: 'Secret', name: 'x' }]),
    ])
    expect(secretKind.message).toContain('InvalidKind')
    const notPem = await errorOf([
      ...base,
      tlsPolicy([{ group: '', kind: 'ConfigMap', name: 'ca' }]),
      configMap('ca', 'garbage'),
    ])
    expect(notPem.message).toContain('ConfigMap default/ca: data.ca.crt is not a PEM certificate')
  })

  it('the manifests directory form loads Secrets untouched by ${VAR} substitution', async () => {
    const dir = writeDir({ 'm.yaml': yamlOf([httpsGateway(), secret('cert-a', a)]) })
    const s = await loadConfigSources([join(dir, 'm.yaml')], { env: {} })
    expect(s.config.gateways.gw?.tls?.certificates[0]?.certPem).toBe(a.certPem)
  })
})
