/**
 * CustomResourceDefinitions of GatewayBackend and GatewayPolicy, generated from the same zod
 * schemas that validate the configuration (`npm run schema` writes examples/kubernetes/crds/; a
 * test fails when the committed files drift). The JSON Schema zod produces is made structural, as
 * apiextensions.k8s.io/v1 requires: every node typed, no `additionalProperties: false` beside
 * `properties` (the API server prunes unknown fields; `kubectl --validate=strict` refuses them),
 * no defaults (gatehouse applies them), unions of a string and an object kept as
 * `x-kubernetes-preserve-unknown-fields`. Constraints zod states as refinements are restated as
 * CEL rules (`x-kubernetes-validations`), so the API server refuses what gatehouse would.
 */
import { stringify } from 'yaml'
import { z } from 'zod'
import { BackendConfigSchema, PolicyConfigSchema } from '../schema.js'
import { DEFAULT_API_GROUP, GATEWAY_API_GROUP } from './resources.js'

type Schema = Record<string, unknown>

/** Makes a zod-generated schema structural (apiextensions.k8s.io/v1). */
export function structural(node: Schema): Schema {
  const out: Schema = {}
  const anyOf = node.anyOf as Schema[] | undefined
  if (anyOf) {
    // A string-or-object union (a JWKS given inline, an MCP rule): no single structural type.
    return {
      ...(node.description ? { description: node.description } : {}),
      'x-kubernetes-preserve-unknown-fields': true,
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (['default', 'format', '$schema', 'id'].includes(key)) continue
    if (key === 'additionalProperties') {
      if (value === false) continue
      if (typeof value === 'object' && value && Object.keys(value).length === 0) {
        out['x-kubernetes-preserve-unknown-fields'] = true
        continue
      }
      out[key] = structural(value as Schema)
      continue
    }
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, structural(v)]),
      )
      continue
    }
    if (key === 'items') {
      out[key] = structural(value as Schema)
      continue
    }
    out[key] = value
  }
  return out
}

/** The node at a path of property names (`[]` items are written `'*'`). */
function at(schema: Schema, path: readonly string[]): Schema {
  let node = schema
  for (const key of path) {
    node = (key === '*' ? node.items : (node.properties as Record<string, Schema>)[key]) as Schema
    if (!node) throw new Error(`no schema at ${path.join('.')}`)
  }
  return node
}

/** Adds a CEL rule to the node at `path`. */
function rule(schema: Schema, path: readonly string[], cel: string, message: string): void {
  const node = at(schema, path)
  const rules = (node['x-kubernetes-validations'] as Schema[] | undefined) ?? []
  rules.push({ rule: cel, message })
  node['x-kubernetes-validations'] = rules
}

const specOf = (schema: z.ZodType): Schema =>
  structural(z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0' }) as Schema)

/** `spec` of GatewayBackend: a backend of the standalone configuration. */
export function gatewayBackendSpec(): Schema {
  return specOf(BackendConfigSchema)
}

/** `spec` of GatewayPolicy: a policy, with Kubernetes references. */
export function gatewayPolicySpec(): Schema {
  const spec = specOf(PolicyConfigSchema)
  // GEP-713 LocalPolicyTargetReference: group, kind and name, all required; same namespace.
  at(spec, ['targetRefs']).items = {
    type: 'object',
    properties: {
      group: { type: 'string', enum: [GATEWAY_API_GROUP] },
      kind: { type: 'string', enum: ['HTTPRoute'] },
      name: { type: 'string', minLength: 1, maxLength: 253 },
    },
    required: ['group', 'kind', 'name'],
  }
  const provider = ['traffic', 'jwtAuthentication', 'providers', '*']
  const backendRef = at(spec, [...provider, 'jwks', 'remote', 'backendRef'])
  ;(backendRef.properties as Schema).namespace = {
    type: 'string',
    description: 'Namespace of the GatewayBackend; another one needs a ReferenceGrant there.',
  }
  rule(
    spec,
    [...provider, 'jwks'],
    '(has(self.remote) ? 1 : 0) + (has(self.inline) ? 1 : 0) + (has(self.file) ? 1 : 0) == 1',
    'expected exactly one of jwks.remote, jwks.inline or jwks.file',
  )
  rule(
    spec,
    provider,
    "!self.issuer.endsWith('/') || (has(self.preset) && self.preset != 'okta')",
    "the issuer has no trailing slash with the okta preset (the default); it must equal the token's iss. Set preset for an IdP whose issuer ends in /",
  )
  rule(
    spec,
    [...provider, 'jwks', 'remote', 'jwksPath'],
    "!self.endsWith('/.well-known/jwks.json')",
    'the bridged IdP does not publish keys at /.well-known/jwks.json; it serves them at /oauth2/<auth_server_id>/v1/keys',
  )
  rule(
    spec,
    ['traffic', 'localRateLimit', '*'],
    '!has(self.tokensPerFill) || self.tokensPerFill <= self.maxTokens',
    'tokensPerFill cannot exceed maxTokens (a fill never holds more than the bucket)',
  )
  return spec
}

const condition = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: { type: 'string' },
    message: { type: 'string' },
    observedGeneration: { type: 'integer' },
    lastTransitionTime: { type: 'string', format: 'date-time' },
  },
  required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
}

/** One CustomResourceDefinition. */
function crd(kind: string, plural: string, group: string, spec: Schema): Schema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        categories: ['gatehouse'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            {
              name: 'Accepted',
              type: 'string',
              jsonPath: '.status.conditions[?(@.type=="Accepted")].status',
            },
            {
              name: 'Programmed',
              type: 'string',
              jsonPath: '.status.conditions[?(@.type=="Programmed")].status',
            },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec,
                status: {
                  type: 'object',
                  properties: {
                    conditions: {
                      type: 'array',
                      items: condition,
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                    },
                  },
                },
              },
              required: ['spec'],
            },
          },
        },
      ],
    },
  }
}

/** The CRDs by file name (under examples/kubernetes/crds/). */
export function customResourceDefinitions(
  group: string = DEFAULT_API_GROUP,
): Record<string, Schema> {
  return {
    'gatewaybackends.yaml': crd('GatewayBackend', 'gatewaybackends', group, gatewayBackendSpec()),
    'gatewaypolicies.yaml': crd('GatewayPolicy', 'gatewaypolicies', group, gatewayPolicySpec()),
  }
}

/** The CRD files as written to examples/kubernetes/crds/: a header, then the YAML. */
export function crdFiles(group: string = DEFAULT_API_GROUP): Record<string, string> {
  const header =
    '# Generated by `npm run schema` from the zod schemas in proxy/src/config/schema/ (crds.ts).\n# Do not edit: a test fails when this file and the schemas drift.\n'
  return Object.fromEntries(
    Object.entries(customResourceDefinitions(group)).map(([file, doc]) => [
      file,
      header + stringify(doc, { lineWidth: 0 }),
    ]),
  )
}
