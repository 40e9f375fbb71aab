/**
 * The CRDs of GatewayBackend and GatewayPolicy: generated from the zod schemas (a drift test),
 * structural, and accepting every example manifest — checked with a JSON Schema validator (ajv)
 * with unknown fields refused (`kubectl --validate=strict`) and with their CEL rules evaluated.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { kubernetesFiles } from '@gatehouse/conformance/internal/kubernetes-config'
import { gatehouseConfig, kubernetesManifests } from '@gatehouse/conformance/internal/stack'
import { evaluate } from '@marcbachmann/cel-js'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { crdFiles, customResourceDefinitions } from '../../../src/config/kubernetes/crds.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))
type Schema = Record<string, unknown>

const schemaOf = (file: string): Schema => {
  const crd = customResourceDefinitions()[file] as {
    spec: { versions: Array<{ schema: { openAPIV3Schema: Schema } }> }
  }
  return crd.spec.versions[0]?.schema.openAPIV3Schema as Schema
}

/** The schema as `kubectl --validate=strict` applies it: unknown fields are errors. */
function strict(node: Schema, path = ''): Schema {
  const out: Schema = { ...node }
  if (node.properties && !node['x-kubernetes-preserve-unknown-fields'] && path !== '.metadata') {
    out.additionalProperties = false
  }
  if (node.properties) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Schema>).map(([k, v]) => [
        k,
        strict(v, `${path}.${k}`),
      ]),
    )
  }
  if (node.items) out.items = strict(node.items as Schema, `${path}[]`)
  return out
}

const ajv = new Ajv({ allErrors: true, strict: true, validateFormats: false })
for (const k of [
  'x-kubernetes-validations',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
])
  ajv.addKeyword(k)
const validators = {
  GatewayBackend: ajv.compile(strict(schemaOf('gatewaybackends.yaml'))),
  GatewayPolicy: ajv.compile(strict(schemaOf('gatewaypolicies.yaml'))),
}

/** Every CEL rule of the schema evaluated on the value: the messages of those that fail. */
function celViolations(schema: Schema, value: unknown, path = ''): string[] {
  if (value === undefined || value === null) return []
  const out: string[] = []
  for (const r of (schema['x-kubernetes-validations'] as Array<{
    rule: string
    message: string
  }>) ?? []) {
    if (evaluate(r.rule, { self: value }) !== true) out.push(`${path}: ${r.message}`)
  }
  if (schema.properties && typeof value === 'object') {
    for (const [k, s] of Object.entries(schema.properties as Record<string, Schema>))
      out.push(...celViolations(s, (value as Record<string, unknown>)[k], `${path}.${k}`))
  }
  if (schema.items && Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push(...celViolations(schema.items as Schema, v, `${path}[${i}]`))
    })
  }
  return out
}

/** Problems of one resource against its CRD; `[]` when it is valid. */
function problems(doc: Record<string, unknown>): string[] {
  const kind = doc.kind as keyof typeof validators
  const validate = validators[kind]
  const ok = validate(doc)
  const schema = schemaOf(
    kind === 'GatewayBackend' ? 'gatewaybackends.yaml' : 'gatewaypolicies.yaml',
  )
  return [
    ...(ok
      ? []
      : (validate.errors ?? []).map(
          (e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
        )),
    ...celViolations(schema, doc),
  ]
}

/** The GatewayBackend and GatewayPolicy documents of a YAML text (Lists flattened). */
function customResources(text: string): Array<Record<string, unknown>> {
  const flat = (d: Record<string, unknown>): Array<Record<string, unknown>> =>
    d.kind === 'List' ? (d.items as Array<Record<string, unknown>>).flatMap(flat) : [d]
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Record<string, unknown> | null)
    .filter((d): d is Record<string, unknown> => !!d)
    .flatMap(flat)
    .filter((d) => d.kind === 'GatewayBackend' || d.kind === 'GatewayPolicy')
}

function exampleFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((n) => {
    const p = join(dir, n)
    if (statSync(join(root, p)).isDirectory()) return n === 'crds' ? [] : exampleFiles(p)
    return n.endsWith('.yaml') ? [p] : []
  })
}

describe('examples/kubernetes/crds', () => {
  it.each(Object.keys(crdFiles()))(
    '%s is generated from the zod schemas (run `npm run schema`)',
    (file) => {
      expect(readFileSync(join(root, 'examples/kubernetes/crds', file), 'utf8')).toBe(
        crdFiles()[file],
      )
    },
  )

  it('are structural: every node typed (or preserving unknown fields), no unions, no defaults', () => {
    const walk = (node: Schema, path: string): string[] => {
      const bad: string[] = []
      if (!node.type && !node['x-kubernetes-preserve-unknown-fields']) bad.push(`${path}: no type`)
      for (const k of ['anyOf', 'oneOf', 'allOf', 'default', '$ref'])
        if (k in node) bad.push(`${path}: ${k}`)
      if (node.properties && node.additionalProperties !== undefined)
        bad.push(`${path}: additionalProperties beside properties`)
      for (const [k, v] of Object.entries((node.properties as Record<string, Schema>) ?? {}))
        bad.push(...walk(v, `${path}.${k}`))
      if (node.items) bad.push(...walk(node.items as Schema, `${path}[]`))
      return bad
    }
    for (const file of Object.keys(crdFiles())) expect(walk(schemaOf(file), file)).toEqual([])
  })

  it('accept every GatewayBackend and GatewayPolicy of the example manifests', () => {
    const files = exampleFiles('examples/kubernetes')
    expect(files.length).toBeGreaterThan(3)
    let checked = 0
    for (const file of files) {
      for (const doc of customResources(readFileSync(join(root, file), 'utf8'))) {
        expect(
          problems(doc),
          `${file} ${String(doc.kind)} ${JSON.stringify(doc.metadata)}`,
        ).toEqual([])
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8)
  })

  it('accept the manifests conformance prints for --target and runs with --config-format kubernetes', () => {
    const f = {
      idp: {
        orgUrl: 'https://idp.example.com:8443',
        issuer: 'https://idp.example.com:8443/oauth2/default',
        audience: 'api://default',
        publicClientId: 'c',
      },
      backend: { port: 8090 },
    } as unknown as Parameters<typeof kubernetesManifests>[0]
    const texts = [
      kubernetesManifests(f, 'https://gw.example/mcp'),
      kubernetesFiles(gatehouseConfig(f as never, { gateway: 1, proxied: 2, scoped: 3, admin: 4 }))[
        'manifests.yaml'
      ] ?? '',
    ]
    for (const text of texts) {
      const docs = customResources(text)
      expect(docs.length).toBeGreaterThan(2)
      for (const doc of docs) expect(problems(doc), JSON.stringify(doc.metadata)).toEqual([])
    }
  })

  it('refuse an unknown field, a missing required one, and what a CEL rule forbids', () => {
    const [policy] = customResources(
      readFileSync(join(root, 'examples/kubernetes/mcp-auth.yaml'), 'utf8'),
    ).filter((d) => d.kind === 'GatewayPolicy')
    type Provider = { jwks: Record<string, unknown>; issuer: string; audiences?: string[] }
    const bad = structuredClone(policy) as {
      spec: { traffic: { jwtAuthentication: { providers: Provider[]; mood?: string } } }
    }
    const jwt = bad.spec.traffic.jwtAuthentication
    const first = jwt.providers[0] as Provider
    first.jwks.inline = '{"keys":[]}'
    first.issuer = 'https://idp.example.com/oauth2/default/'
    delete first.audiences
    jwt.mood = 'Strict'
    const found = problems(bad as never).join('\n')
    expect(found).toContain('must NOT have additional properties {"additionalProperty":"mood"}')
    expect(found).toContain("must have required property 'audiences'")
    expect(found).toContain('expected exactly one of jwks.remote, jwks.inline or jwks.file')
    expect(found).toContain('the issuer has no trailing slash')
  })
})
