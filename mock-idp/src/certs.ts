/**
 * A throw-away test CA and a server certificate for 127.0.0.1/localhost, so the proxy's TLS
 * origination (the seed's BackendTLSPolicy) can be tested against a real HTTPS IdP. The CA
 * certificate is written to a temporary file whose path is returned (a CA bundle).
 */
import { webcrypto } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as x509 from '@peculiar/x509'

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n')
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`
}

/** Test certificates. */
export interface TestCertificates {
  caCertPem: string
  caCertPath: string
  certPem: string
  keyPem: string
}

/** Generates a CA and a server certificate valid for `host`, localhost and 127.0.0.1. */
export async function createTestCertificates(host: string): Promise<TestCertificates> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])
  const notBefore = new Date(Date.now() - 60_000)
  const notAfter = new Date(Date.now() + 7 * 24 * 3600_000)
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=mock-idp test CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  })
  const leafKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])
  const names: Array<{ type: 'ip' | 'dns'; value: string }> = [
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
  ]
  if (host !== 'localhost' && host !== '127.0.0.1')
    names.push({ type: /^[\d.]+$/.test(host) ? 'ip' : 'dns', value: host })
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=mock-idp',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey,
    publicKey: leafKeys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.SubjectAlternativeNameExtension(names),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  })
  const caCertPem = ca.toString('pem')
  const caCertPath = join(mkdtempSync(join(tmpdir(), 'mock-idp-ca-')), 'ca.pem')
  writeFileSync(caCertPath, caCertPem)
  return {
    caCertPem,
    caCertPath,
    certPem: leaf.toString('pem'),
    keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)),
  }
}
