/**
 * Profile `tls`: an HTTPS listener (Gateway API `protocol: HTTPS`) as clients meet it — TLS 1.2
 * spoken, TLS 1.0 and 1.1 never negotiated (RFC 8996, part of BCP 195 with RFC 9325), and the
 * certificate chosen by the server name the client sends (SNI, RFC 6066 §3). Judged with
 * `node:tls` handshakes against the target's HTTPS base (`Target.tls`): the embedded stack serves
 * a gateway over HTTPS with a generated CA; `--target https://… --ca <pem>` judges another.
 */
import { checkServerIdentity, connect, type PeerCertificate } from 'node:tls'
import { CheckFailure, CheckSkipped, must, type Requirement, type Target } from '../types.js'

/** What one handshake ended with. */
interface Handshake {
  /** The negotiated version (`TLSv1.2`), when the handshake completed. */
  protocol?: string
  /** Why the certificate was not trusted for the name asked, when it was not. */
  untrusted?: string
  /** Why the handshake failed, when it did. */
  error?: NodeJS.ErrnoException
  /** The subject alternative names of the certificate served. */
  altNames?: string
}

type TlsTarget = NonNullable<Target['tls']>

const tlsOf = (target: Target): TlsTarget => {
  if (!target.tls)
    throw new CheckSkipped('no HTTPS listener to judge (--target https://… or the embedded stack)')
  return target.tls
}

/**
 * A handshake trusting each CA of the target in turn (CAs that share a subject name would
 * otherwise hide one another): the first that vouches for the certificate, else the last answer.
 */
async function handshake(tls: TlsTarget, options: HandshakeOptions): Promise<Handshake> {
  let last: Handshake = { error: new Error('no CA to trust') }
  for (const ca of tls.ca.length > 0 ? tls.ca.map((c) => [c]) : [[]]) {
    last = await handshakeWith(tls.base, ca, options)
    if (last.error || last.untrusted === undefined) return last
  }
  return last
}

interface HandshakeOptions {
  servername?: string
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2'
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'
}

/**
 * One handshake with the target's HTTPS listener. `SECLEVEL=0` lets this client offer the old
 * versions a server must refuse (OpenSSL 3 refuses to offer them otherwise).
 */
function handshakeWith(base: string, ca: string[], options: HandshakeOptions): Promise<Handshake> {
  const url = new URL(base)
  const old = options.maxVersion === 'TLSv1' || options.maxVersion === 'TLSv1.1'
  return new Promise((resolve) => {
    const socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 443),
      ca,
      ...(options.servername ? { servername: options.servername } : {}),
      minVersion: options.minVersion ?? 'TLSv1.2',
      ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
      ...(old ? { ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    })
    socket.setTimeout(10_000, () => socket.destroy(new Error('no handshake within 10 s')))
    socket.once('secureConnect', () => {
      const cert: PeerCertificate = socket.getPeerCertificate()
      let untrusted = socket.authorized ? undefined : String(socket.authorizationError)
      if (!untrusted && options.servername) {
        const mismatch = checkIdentity(options.servername, cert)
        if (mismatch) untrusted = mismatch
      }
      resolve({
        protocol: socket.getProtocol() ?? undefined,
        ...(untrusted ? { untrusted } : {}),
        altNames: cert.subjectaltname ?? '',
      })
      socket.end()
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve({ error }))
  })
}

/** The name check HTTPS clients make (RFC 9110 §4.3.4), as node:tls makes it. */
function checkIdentity(name: string, cert: PeerCertificate): string | undefined {
  return checkServerIdentity(name, cert)?.message
}

/** A refusal came from the server (an alert), not from this client failing to offer the version. */
const refusedByServer = (h: Handshake): boolean =>
  h.error !== undefined && !/NO_PROTOCOLS_AVAILABLE|UNSUPPORTED_PROTOCOL/.test(h.error.code ?? '')

function refusesOld(version: 'TLSv1' | 'TLSv1.1') {
  return async (ctx: Parameters<Requirement['check']>[0]) => {
    const tls = tlsOf(ctx.target)
    const h = await handshake(tls, {
      minVersion: version,
      maxVersion: version,
      servername: tls.serverNames[0],
    })
    if (h.error && !refusedByServer(h)) {
      throw new CheckSkipped(
        `this client could not offer ${version} (${h.error.code ?? h.error.message})`,
      )
    }
    must(
      h.error !== undefined,
      `the handshake offering only ${version} refused`,
      `${h.protocol} negotiated`,
    )
  }
}

/** Profile `tls`: the HTTPS listener. */
export const tlsProfile: Requirement[] = [
  {
    id: 'TLS-001',
    level: 'MUST',
    profile: 'tls',
    source: 'RFC 9325 §3.1.1 (BCP 195)',
    quote: 'Implementations MUST support TLS 1.2 [RFC5246].',
    text: 'The HTTPS listener completes a TLS 1.2 handshake, with a certificate the configured CA vouches for.',
    async check(ctx) {
      const tls = tlsOf(ctx.target)
      const h = await handshake(tls, {
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.2',
        servername: tls.serverNames[0],
      })
      if (h.error)
        throw new CheckFailure('a TLS 1.2 handshake', `${h.error.code ?? ''} ${h.error.message}`)
      must(h.protocol === 'TLSv1.2', 'TLSv1.2 negotiated', String(h.protocol))
      must(h.untrusted === undefined, 'a certificate valid for the name asked', String(h.untrusted))
    },
  },
  {
    id: 'TLS-002',
    level: 'MUST',
    profile: 'tls',
    source: 'RFC 8996 §4 (BCP 195)',
    quote: 'Negotiation of TLS 1.0 from any TLS version MUST NOT be permitted.',
    text: 'A client offering only TLS 1.0 is refused at the handshake.',
    check: refusesOld('TLSv1'),
  },
  {
    id: 'TLS-003',
    level: 'MUST',
    profile: 'tls',
    source: 'RFC 8996 §5 (BCP 195)',
    quote: 'Negotiation of TLS 1.1 from any TLS version MUST NOT be permitted.',
    text: 'A client offering only TLS 1.1 is refused at the handshake.',
    check: refusesOld('TLSv1.1'),
  },
  {
    id: 'TLS-004',
    level: 'MUST',
    profile: 'tls',
    source: 'docs/configuration.md (TLS listeners); RFC 6066 §3 (server_name)',
    quote:
      'TLS listeners: protocol: HTTPS Gateway listeners with certificates from files (standalone) or kind: Secret manifests of type kubernetes.io/tls (Kubernetes form, certificateRefs), SNI by hostname',
    text: 'Each server name the listener has a certificate for is answered with that certificate (SNI): valid for the name, from the configured CA.',
    async check(ctx) {
      const tls = tlsOf(ctx.target)
      if (tls.serverNames.length === 0) {
        throw new CheckSkipped(
          'the target is addressed by IP: no server name to send (give a DNS name)',
        )
      }
      for (const servername of tls.serverNames) {
        const h = await handshake(tls, { servername })
        if (h.error)
          throw new CheckFailure(
            `a handshake for ${servername}`,
            `${h.error.code ?? ''} ${h.error.message}`,
          )
        must(
          h.untrusted === undefined,
          `the certificate for ${servername}`,
          `${h.untrusted} (served: ${h.altNames})`,
        )
      }
    },
  },
]
