/**
 * BackendTLSPolicy (Gateway API, `gateway.networking.k8s.io/v1`) → `backends.<name>.tls`: TLS is
 * originated to the targeted GatewayBackend and its certificate validated (seed: BackendTLSPolicy).
 * What gatehouse cannot honour from a file (CA certificates in ConfigMaps, subject alt names) is
 * refused rather than ignored: ignoring it would weaken the validation the author asked for.
 */
import type { ConfigIssue } from '../../errors.js'
import { type Findings, notOk, ok } from './findings.js'
import type { Origins } from './origins.js'
import type { ResourceIndex } from './references.js'
import type { Resource } from './resources.js'

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
    const validation = (policy.spec.validation ?? {}) as Record<string, unknown>
    let refused = false
    for (const field of ['caCertificateRefs', 'subjectAltNames']) {
      if (validation[field] === undefined) continue
      refused = true
      fail(
        policy,
        ['spec', 'validation', field],
        'not supported by gatehouse: use wellKnownCACertificates: System, or a standalone backend with tls.caCertificates (paths of PEM files)',
      )
    }
    if (refused) continue
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
