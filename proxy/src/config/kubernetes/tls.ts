/**
 * BackendTLSPolicy (Gateway API, `gateway.networking.k8s.io/v1`) → `backends.<name>.tls`: TLS is
 * originated to the targeted GatewayBackend and its certificate validated (seed: BackendTLSPolicy).
 * `validation.caCertificateRefs` name ConfigMaps (key `ca.crt`) beside the policy, translated to
 * `tls.caCertificatePems`; one that does not resolve fails the configuration rather than fall
 * back to the system CAs. What gatehouse cannot honour (subject alt names) is refused rather than
 * ignored: ignoring it would weaken the validation the author asked for.
 */
import type { ConfigIssue } from '../../errors.js'
import { type Findings, notOk, ok } from './findings.js'
import type { Origins } from './origins.js'
import type { ObjectRef, RefProblem, ResourceIndex } from './references.js'
import type { Resource } from './resources.js'
import { type ResolvedCaBundle, resolveCaCertificateRef } from './secrets.js'

/** Adds `tls` to the backends the BackendTLSPolicies target. */
export function translateTls(
  index: ResourceIndex,
  apiGroup: string,
  keyOf: (r: Resource) => string,
  backends: Record<string, unknown>,
  t: { findings: Findings; origins: Origins; warnings: ConfigIssue[] },
  fail: (r: Resource, field: (string | number)[], message: string) => void,
): void {
  const owner = new Map<string, Resource>()
  for (const policy of index.all('BackendTLSPolicy')) {
    const { caCertificateRefs, ...validation } = (policy.spec.validation ?? {}) as Record<
      string,
      unknown
    >
    if (validation.subjectAltNames !== undefined) {
      fail(
        policy,
        ['spec', 'validation', 'subjectAltNames'],
        'not supported by gatehouse: the certificate is validated against hostname',
      )
      continue
    }
    if (caCertificateRefs !== undefined) {
      // Gateway API: caCertificateRefs and wellKnownCACertificates are exclusive; each ref is a
      // ConfigMap of the policy's namespace with the PEM bundle under ca.crt.
      const refs = Array.isArray(caCertificateRefs) ? (caCertificateRefs as ObjectRef[]) : []
      const bundles: ResolvedCaBundle[] = []
      let problem: RefProblem | undefined
      refs.forEach((ref, i) => {
        const resolved = resolveCaCertificateRef(ref, policy, index)
        if ('reason' in resolved) {
          problem ??= {
            reason: resolved.reason,
            message: `caCertificateRefs[${i}]: ${resolved.message}`,
          }
        } else bundles.push(resolved)
      })
      if (problem || bundles.length === 0) {
        // Fail closed: the backend is not reached with weaker validation than asked for.
        const why = problem ?? {
          reason: 'InvalidCACertificateRef',
          message: 'caCertificateRefs is empty',
        }
        t.findings.set(policy, notOk('ResolvedRefs', why.reason, why.message))
        fail(policy, ['spec', 'validation', 'caCertificateRefs'], `${why.reason}: ${why.message}`)
        continue
      }
      validation.caCertificatePems = bundles.map(({ pem, from }) => ({ pem, from }))
    }
    const refs = Array.isArray(policy.spec.targetRefs)
      ? (policy.spec.targetRefs as Record<string, unknown>[])
      : []
    refs.forEach((ref, i) => {
      if (ref.group !== apiGroup || ref.kind !== 'GatewayBackend') {
        fail(
          policy,
          ['spec', 'targetRefs', i],
          `gatehouse originates TLS to GatewayBackends (group ${apiGroup}, kind GatewayBackend) only`,
        )
        return
      }
      const backend = index.get('GatewayBackend', policy.namespace, String(ref.name))
      if (!backend) {
        t.findings.set(
          policy,
          notOk(
            'Accepted',
            'TargetNotFound',
            `GatewayBackend ${policy.namespace}/${String(ref.name)} not found`,
          ),
        )
        return
      }
      const key = keyOf(backend)
      const entry = backends[key] as Record<string, unknown>
      const first = owner.get(key)
      if (first || entry.tls !== undefined) {
        // Gateway API: of conflicting policies the older one wins; in a file, the first.
        t.findings.set(
          policy,
          notOk(
            'Accepted',
            'Conflicted',
            `GatewayBackend ${backend.namespace}/${backend.name} already has TLS settings${first ? ` from BackendTLSPolicy ${first.namespace}/${first.name}` : ''}`,
          ),
        )
        return
      }
      owner.set(key, policy)
      entry.tls = validation
      t.origins.add(['backends', key, 'tls'], policy, ['spec', 'validation'])
    })
    if (!t.findings.failed(policy)) {
      t.findings.set(policy, ok('Accepted', 'Accepted', 'TLS is originated to its targets'))
    }
  }
}
