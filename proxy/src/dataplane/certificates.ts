/**
 * The certificates of an HTTPS listener (`gateways.<name>.tls`, Gateway API `protocol: HTTPS`
 * with `tls.certificateRefs`): read from their files (or given inline, from a Kubernetes Secret), checked (the key matches the certificate,
 * a parseable X.509 chain), and chosen per connection by the server name the client sends (SNI,
 * RFC 6066 §3): an exact name first, then a `*.` wildcard covering one label, else the default.
 *
 * Nothing here logs or returns the files' content: errors name the file and the problem.
 */
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createSecureContext, type SecureContext } from 'node:tls'
import type { Logger } from 'pino'
import type { GatewayTlsConfig } from '../config/schema.js'
import { type SourceWatch, watchSources } from '../config/watch.js'
import { tlsReloadChannel } from '../telemetry/channels.js'

/** One certificate with its key and the TLS context serving it. */
interface Loaded {
  hostname: string | undefined
  cert: string
  key: string
  context: SecureContext
  /** SHA-256 fingerprint of the leaf (logs and tests tell certificates apart by it). */
  fingerprint: string
}

/** The loaded certificates of one listener. */
export class ServerCertificates {
  readonly #byName: ReadonlyMap<string, Loaded>
  readonly #default: Loaded
  /** The configuration they were read from (read again on a file change). */
  readonly config: GatewayTlsConfig

  private constructor(config: GatewayTlsConfig, loaded: Loaded[]) {
    this.config = config
    this.#byName = new Map(
      loaded.filter((l) => l.hostname).map((l) => [(l.hostname as string).toLowerCase(), l]),
    )
    this.#default = loaded.find((l) => !l.hostname) ?? (loaded[0] as Loaded)
  }

  /**
   * Reads and checks every certificate of `config`.
   * @throws Error naming the entry (`certificates[i]`), the file and what is wrong.
   */
  static load(config: GatewayTlsConfig): ServerCertificates {
    return new ServerCertificates(
      config,
      config.certificates.map((c, i) => loadOne(c, i, config.minVersion)),
    )
  }

  /** The files to watch. */
  get files(): string[] {
    return this.config.certificates.flatMap((c) =>
      c.certFile && c.keyFile ? [c.certFile, c.keyFile] : [],
    )
  }

  /** The default certificate and key (clients that send no server name). */
  get defaultPair(): { cert: string; key: string } {
    return { cert: this.#default.cert, key: this.#default.key }
  }

  /** Leaf fingerprints, in configuration order (unchanged files, unchanged fingerprints). */
  get fingerprints(): string[] {
    return [this.#default, ...this.#byName.values()].map((l) => l.fingerprint)
  }

  /** The context for a connection that asked for `servername` (SNI), or the default. */
  select(servername: string | undefined): SecureContext {
    if (!servername) return this.#default.context
    const name = servername.toLowerCase()
    const exact = this.#byName.get(name)
    if (exact) return exact.context
    const dot = name.indexOf('.')
    const wildcard = dot > 0 ? this.#byName.get(`*${name.slice(dot)}`) : undefined
    return (wildcard ?? this.#default).context
  }
}

function loadOne(
  c: GatewayTlsConfig['certificates'][number],
  i: number,
  minVersion: GatewayTlsConfig['minVersion'],
): Loaded {
  const where = `certificates[${i}]`
  // Inline PEM (a Kubernetes Secret's): messages name where it came from, never its content.
  const inline = c.certPem !== undefined
  const cert = c.certPem ?? readPem(c.certFile as string, `${where}.certFile`)
  const key = c.keyPem ?? readPem(c.keyFile as string, `${where}.keyFile`)
  const certName = inline ? `certPem${c.from ? ` of ${c.from}` : ''}` : `certFile ${c.certFile}`
  const pairName = inline
    ? `certPem and keyPem${c.from ? ` of ${c.from}` : ''}`
    : `${c.certFile} and ${c.keyFile}`
  let fingerprint: string
  try {
    fingerprint = new X509Certificate(cert).fingerprint256
  } catch (cause) {
    throw new Error(`${where}.${certName}: not a PEM certificate`, { cause })
  }
  let context: SecureContext
  try {
    context = createSecureContext({ cert, key, minVersion })
  } catch (cause) {
    const why = /mismatch/i.test((cause as Error).message)
      ? 'the key does not belong to the certificate'
      : `not a usable certificate and key (${(cause as Error).message})`
    throw new Error(`${where}: ${pairName}: ${why}`, { cause })
  }
  return { hostname: c.hostname, cert, key, context, fingerprint }
}

function readPem(file: string, field: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (cause) {
    throw new Error(`${field}: cannot read ${file}: ${(cause as Error).message}`, { cause })
  }
}

/**
 * Reads the certificates again whenever one of their files changes (`../config/watch.ts`:
 * directories watched, so a renamed-into-place file or a Kubernetes Secret volume's symlink swap
 * counts), and hands new ones to `install`. A read that fails (a half-written file, a key that no
 * longer matches) keeps the certificates in use and logs why; the next change tries again.
 */
export function watchCertificates(
  gateway: string,
  current: () => ServerCertificates | undefined,
  install: (next: ServerCertificates) => void,
  log: Logger,
): SourceWatch {
  const now = current()
  if (!now) return { close() {} }
  const reread = () => {
    const running = current()
    if (!running) return
    let next: ServerCertificates
    try {
      next = ServerCertificates.load(running.config)
    } catch (err) {
      log.error(
        { gateway, code: 'GW_ERR_TLS_CERTIFICATE', err: (err as Error).message },
        `gateways.${gateway}.tls: ${(err as Error).message}; the certificates in use stay`,
      )
      return
    }
    if (next.fingerprints.join() === running.fingerprints.join()) return
    install(next)
    log.info(
      { gateway, fingerprints: next.fingerprints },
      `gateways.${gateway}.tls: certificates changed on disk, serving the new ones`,
    )
    if (tlsReloadChannel.hasSubscribers) {
      tlsReloadChannel.publish({ gateway, fingerprints: next.fingerprints })
    }
  }
  return watchSources(now.files, reread, { log })
}
