/**
 * The harness's gatehouse configuration as Kubernetes resources (`--config-format kubernetes`):
 * the same gateways, backends, routes and policies as Gateway, GatewayBackend, BackendTLSPolicy,
 * HTTPRoute and GatewayPolicy manifests, plus a standalone document with what no resource carries
 * (`config:`: the admin address, log level and drain timeout). The reference proxy loads both from
 * one directory, so the catalogue judges it started from manifests as from its own YAML.
 */
import { readFileSync } from 'node:fs'
import { stringify } from 'yaml'

const GATEWAY_API = 'gateway.networking.k8s.io'
/** The API group of GatewayBackend and GatewayPolicy the reference proxy reads by default. */
export const API_GROUP = 'gateway.example.dev'

type Obj = Record<string, unknown>

const resource = (
  apiVersion: string,
  kind: string,
  name: string,
  spec: Obj,
  annotations?: Record<string, string>,
): Obj => ({
  apiVersion,
  kind,
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec,
})

/** `allowUnauthenticated: true` of a gateway or route, as the reference proxy's annotation. */
const PUBLIC = { 'gateway.example.dev/allow-unauthenticated': 'true' }

const backendRef = (ref: Obj): Obj => ({ group: API_GROUP, kind: 'GatewayBackend', ...ref })

/**
 * Files of a directory holding `config` as manifests: `process.yaml` (the standalone `config:`
 * section) and `manifests.yaml` (every resource, `---`-separated).
 */
export function kubernetesFiles(config: Obj): Record<string, string> {
  const docs: Obj[] = []
  for (const [name, gw] of Object.entries((config.gateways ?? {}) as Record<string, Obj>)) {
    const { port, address, allowUnauthenticated, tls, ...rest } = gw
    if (Object.keys(rest).length > 0)
      throw new Error(
        `gateways.${name}: only port, address, allowUnauthenticated and tls translate`,
      )
    // An HTTPS gateway: one listener per certificate on the same port, its hostname the server
    // name (SNI), its certificate a Secret of type kubernetes.io/tls.
    const certificates = ((tls as Obj | undefined)?.certificates ?? []) as Obj[]
    const listeners = tls
      ? certificates.map((c, i) => {
          const secret = `${name}-cert-${i}`
          docs.push({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: secret },
            type: 'kubernetes.io/tls',
            data: {
              'tls.crt': readFileSync(String(c.certFile)).toString('base64'),
              'tls.key': readFileSync(String(c.keyFile)).toString('base64'),
            },
          })
          return {
            name: `https-${i}`,
            protocol: 'HTTPS',
            port,
            ...(c.hostname ? { hostname: c.hostname } : {}),
            tls: { mode: 'Terminate', certificateRefs: [{ kind: 'Secret', name: secret }] },
          }
        })
      : [{ name: 'http', protocol: 'HTTP', port }]
    docs.push(
      resource(
        `${GATEWAY_API}/v1`,
        'Gateway',
        name,
        {
          gatewayClassName: 'gatehouse',
          ...(address ? { addresses: [{ type: 'IPAddress', value: address }] } : {}),
          listeners,
        },
        allowUnauthenticated === true ? PUBLIC : undefined,
      ),
    )
  }
  for (const [name, b] of Object.entries((config.backends ?? {}) as Record<string, Obj>)) {
    const { tls, ...spec } = b
    docs.push(resource(`${API_GROUP}/v1alpha1`, 'GatewayBackend', name, spec))
    if (tls) {
      docs.push(
        resource(`${GATEWAY_API}/v1`, 'BackendTLSPolicy', `${name}-tls`, {
          targetRefs: [{ group: API_GROUP, kind: 'GatewayBackend', name }],
          validation: tls,
        }),
      )
    }
  }
  for (const [name, r] of Object.entries((config.routes ?? {}) as Record<string, Obj>)) {
    const parentRefs = ((r.parentRefs ?? []) as Obj[]).map((p) => ({
      group: GATEWAY_API,
      kind: 'Gateway',
      name: p.name,
    }))
    const rules = (r.rules as Obj[]).map((rule) => ({
      ...rule,
      backendRefs: (rule.backendRefs as Obj[]).map(backendRef),
    }))
    docs.push(
      resource(
        `${GATEWAY_API}/v1`,
        'HTTPRoute',
        name,
        { parentRefs, rules },
        r.allowUnauthenticated === true ? PUBLIC : undefined,
      ),
    )
  }
  for (const [name, p] of Object.entries((config.policies ?? {}) as Record<string, Obj>)) {
    const spec = structuredClone(p) as { targetRefs: Obj[]; traffic: Obj }
    spec.targetRefs = spec.targetRefs.map((t) => ({
      group: GATEWAY_API,
      kind: 'HTTPRoute',
      name: t.name,
    }))
    const jwt = spec.traffic.jwtAuthentication as { providers?: Obj[] } | undefined
    for (const provider of jwt?.providers ?? []) {
      const remote = (provider.jwks as { remote?: { backendRef: Obj } }).remote
      if (remote) remote.backendRef = backendRef(remote.backendRef)
    }
    docs.push(resource(`${API_GROUP}/v1alpha1`, 'GatewayPolicy', name, spec))
  }
  return {
    'process.yaml': stringify({ config: config.config ?? {} }),
    'manifests.yaml': docs.map((d) => stringify(d)).join('---\n'),
  }
}
