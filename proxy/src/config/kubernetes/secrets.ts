/**
 * The certificates and CA bundles manifests refer to: a Gateway listener's
 * `tls.certificateRefs[]` to a core `Secret` of type `kubernetes.io/tls` (`data` `tls.crt` and
 * `tls.key`, base64), and a BackendTLSPolicy's `validation.caCertificateRefs[]` to a core
 * `ConfigMap` (`data` `ca.crt`, PEM). Both resolve as Gateway API resolves them: a reference into
 * another namespace needs a ReferenceGrant there (GEP-709: `RefNotPermitted`); a missing,
 * mistyped or unreadable one is `InvalidCertificateRef` / `InvalidCACertificateRef`.
 *
 * Secrets are keys: no message, dump or log says what they hold, only which one and which field.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { createSecureContext } from 'node:tls'
import type { ConfigIssue } from '../../errors.js'
import type { ObjectRef, RefProblem, ResourceIndex } from './references.js'
import { type Resource, resourceId } from './resources.js'

/** A listener's certificate, ready for `gateways.<name>.tls.certificates[]`. */
export interface ResolvedCertificate {
  certPem: string
  keyPem: string
  /** `Secret <namespace>/<name>`, for messages. */
  from: string
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/

/** A value of a Secret's `data` (base64), or of `stringData` (plain), as text. */
function secretValue(secret: Resource, key: string): string | undefined {
  const data = secret.data ?? {}
  const v = data[key]
  if (typeof v === 'string') {
    if (!BASE64.test(v)) return ''
    return Buffer.from(v, 'base64').toString('utf8')
  }
  const plain = secret.stringData?.[key]
  return typeof plain === 'string' ? plain : undefined
}

/**
 * Resolves one `tls.certificateRefs[]` entry of a Gateway listener to the certificate and key of
 * a Secret of type `kubernetes.io/tls`, each parsed (an X.509 certificate, a private key) so that a
 * bad one is refused here, naming the Secret and the field.
 */
export function resolveCertificateRef(
  ref: ObjectRef,
  gateway: Resource,
  index: ResourceIndex,
): ResolvedCertificate | RefProblem {
  const group = typeof ref.group === 'string' ? ref.group : ''
  const kind = typeof ref.kind === 'string' ? ref.kind : 'Secret'
  const name = String(ref.name)
  if (group !== '' || kind !== 'Secret') {
    return {
      reason: 'InvalidCertificateRef',
      message: `certificate reference to ${kind}${group ? `.${group}` : ''} "${name}": gatehouse reads certificates from core Secrets (group "", kind Secret) of type kubernetes.io/tls`,
    }
  }
  const namespace = typeof ref.namespace === 'string' ? ref.namespace : gateway.namespace
  const id = `Secret ${namespace}/${name}`
  if (
    namespace !== gateway.namespace &&
    !index.granted(gateway, { group: '', kind: 'Secret', namespace, name })
  ) {
    return {
      reason: 'RefNotPermitted',
      message: `${resourceId(gateway)} refers to ${id} in another namespace, and no ReferenceGrant in ${namespace} allows it (from Gateway in ${gateway.namespace}, to Secret)`,
    }
  }
  const secret = index.get('Secret', namespace, name)
  if (!secret) {
    return {
      reason: 'InvalidCertificateRef',
      message: `${id} not found (add it to the manifests: type kubernetes.io/tls, data tls.crt and tls.key)`,
    }
  }
  if (secret.type !== 'kubernetes.io/tls') {
    return {
      reason: 'InvalidCertificateRef',
      message: `${id}: type is ${secret.type === undefined ? 'unset (Opaque)' : JSON.stringify(secret.type)}, expected kubernetes.io/tls`,
    }
  }
  const certPem = secretValue(secret, 'tls.crt')
  const keyPem = secretValue(secret, 'tls.key')
  for (const [field, value] of [
    ['tls.crt', certPem],
    ['tls.key', keyPem],
  ] as const) {
    if (value === undefined) {
      return { reason: 'InvalidCertificateRef', message: `${id}: data.${field} is missing` }
    }
    if (value === '') {
      return {
        reason: 'InvalidCertificateRef',
        message: `${id}: data.${field} is not base64 (a Secret's data values are base64; use stringData for plain text)`,
      }
    }
  }
  try {
    new X509Certificate(certPem as string)
  } catch {
    return {
      reason: 'InvalidCertificateRef',
      message: `${id}: data.tls.crt is not a PEM certificate`,
    }
  }
  try {
    createPrivateKey(keyPem as string)
  } catch {
    return {
      reason: 'InvalidCertificateRef',
      message: `${id}: data.tls.key is not a PEM private key`,
    }
  }
  try {
    createSecureContext({ cert: certPem as string, key: keyPem as string })
  } catch {
    return {
      reason: 'InvalidCertificateRef',
      message: `${id}: data.tls.key does not belong to the certificate in data.tls.crt`,
    }
  }
  return { certPem: certPem as string, keyPem: keyPem as string, from: id }
}

/** A CA bundle, ready for `backends.<name>.tls.caCertificatePems[]`. */
export interface ResolvedCaBundle {
  pem: string
  /** `ConfigMap <namespace>/<name>`, for messages. */
  from: string
}

/**
 * Resolves one `validation.caCertificateRefs[]` entry of a BackendTLSPolicy (a local reference:
 * the policy's namespace) to the PEM bundle under `ca.crt` of a ConfigMap.
 */
export function resolveCaCertificateRef(
  ref: ObjectRef,
  policy: Resource,
  index: ResourceIndex,
): ResolvedCaBundle | RefProblem {
  const group = typeof ref.group === 'string' ? ref.group : ''
  const kind = typeof ref.kind === 'string' ? ref.kind : ''
  const name = String(ref.name)
  if (group !== '' || kind !== 'ConfigMap') {
    return {
      reason: 'InvalidKind',
      message: `CA certificate reference to ${kind || '(no kind)'}${group ? `.${group}` : ''} "${name}": gatehouse reads CA bundles from core ConfigMaps (group "", kind ConfigMap, key ca.crt)`,
    }
  }
  const id = `ConfigMap ${policy.namespace}/${name}`
  const map = index.get('ConfigMap', policy.namespace, name)
  if (!map) {
    return {
      reason: 'InvalidCACertificateRef',
      message: `${id} not found (add it to the manifests, with the PEM CA bundle under data ca.crt)`,
    }
  }
  const pem = map.data?.['ca.crt']
  if (typeof pem !== 'string') {
    return { reason: 'InvalidCACertificateRef', message: `${id}: data.ca.crt is missing` }
  }
  try {
    new X509Certificate(pem)
  } catch {
    return {
      reason: 'InvalidCACertificateRef',
      message: `${id}: data.ca.crt is not a PEM certificate`,
    }
  }
  return { pem, from: id }
}

/** A core Secret or ConfigMap (read only where something names it). */
export const isCoreObject = (r: Resource): boolean =>
  r.apiVersion === 'v1' && (r.kind === 'Secret' || r.kind === 'ConfigMap')

/**
 * Warnings for the Secrets and ConfigMaps no listener or BackendTLSPolicy of the translation
 * (`raw`) named: skipped, as other foreign kinds are (./kinds.ts).
 */
export function unnamedObjects(
  objects: readonly Resource[],
  raw: { gateways: Record<string, unknown>; backends: Record<string, unknown> },
): ConfigIssue[] {
  const named = new Set<unknown>()
  for (const gw of Object.values(raw.gateways) as {
    tls?: { certificates: { from?: unknown }[] }
  }[])
    for (const c of gw.tls?.certificates ?? []) named.add(c.from)
  for (const b of Object.values(raw.backends) as {
    tls?: { caCertificatePems?: { from?: unknown }[] }
  }[])
    for (const c of b.tls?.caCertificatePems ?? []) named.add(c.from)
  return objects
    .filter((r) => !named.has(resourceId(r)))
    .map((r) => ({
      path: `${resourceId(r)} (${r.apiVersion})`,
      message: `not named by an HTTPS listener's certificateRefs or a BackendTLSPolicy's caCertificateRefs; skipped, neither validated nor \${ENV}-substituted`,
    }))
}
