/**
 * Kubernetes resources among the configuration documents: a document with `apiVersion` and `kind`
 * is a resource (a `kind: List` contributes its `items`), one without both is a fragment of the
 * standalone configuration (`config:`, `gateways:`, ...) merged with what the resources translate
 * to. Each resource keeps where it was written, so that errors name its file and line.
 */
import type { ConfigIssue } from '../../errors.js'
import type { SourceDocument } from './documents.js'

/** The Gateway API group (HTTPRoute, Gateway, BackendTLSPolicy, ReferenceGrant). */
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io'

/**
 * The default API group of GatewayBackend and GatewayPolicy (the seed's `{gateway_api_group}`);
 * `gatehouse --api-group` sets another.
 */
export const DEFAULT_API_GROUP = 'gateway.example.dev'

/** A resource read from a manifest. */
export interface Resource {
  apiVersion: string
  /** The group of `apiVersion` (`''` for the core group). */
  group: string
  kind: string
  name: string
  /** `metadata.namespace`, default `default`. */
  namespace: string
  /** `metadata.generation`, default 1 (what `kubectl apply` starts at). */
  generation: number
  /** `metadata.annotations` whose values are strings. */
  annotations: Record<string, string>
  /**
   * `metadata.creationTimestamp` in milliseconds, when written and valid: Gateway API gives a
   * tie between routes to the oldest (then to `{namespace}/{name}` in alphabetical order).
   */
  created?: number
  spec: Record<string, unknown>
  /** A core Secret's `type`, when it has one. */
  type?: unknown
  /** A core Secret's or ConfigMap's `data` (base64 values in a Secret), when it has one. */
  data?: Record<string, unknown>
  /** A core Secret's `stringData` (plain values), when it has one. */
  stringData?: Record<string, unknown>
  /** The document it is in and its path there (`[]`, or `['items', 3]` inside a List). */
  source: SourceDocument
  path: (string | number)[]
}

/** `GatewayPolicy default/mcp-auth`: how messages and status name a resource. */
export function resourceId(r: Pick<Resource, 'kind' | 'namespace' | 'name'>): string {
  return `${r.kind} ${r.namespace}/${r.name}`
}

/** What the documents hold: resources, standalone fragments, and problems found on the way. */
export interface SortedDocuments {
  resources: Resource[]
  fragments: SourceDocument[]
  issues: ConfigIssue[]
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Sorts documents into resources and standalone fragments; `kind: List` is flattened. */
export function sortDocuments(docs: readonly SourceDocument[]): SortedDocuments {
  const out: SortedDocuments = { resources: [], fragments: [], issues: [] }
  for (const source of docs) {
    const v = source.value
    if (!isObject(v)) {
      out.issues.push({
        path: `${source.file} document ${source.index + 1}`,
        message: 'expected a mapping (a Kubernetes resource or the standalone configuration)',
      })
      continue
    }
    if (v.apiVersion === undefined && v.kind === undefined) {
      out.fragments.push(source)
      continue
    }
    collect(v, source, [], out)
  }
  return out
}

function collect(
  v: Record<string, unknown>,
  source: SourceDocument,
  path: (string | number)[],
  out: SortedDocuments,
): void {
  const where = `${source.file} document ${source.index + 1}${path.length ? ` ${path.join('.')}` : ''}`
  if (typeof v.apiVersion !== 'string' || typeof v.kind !== 'string') {
    out.issues.push({
      path: where,
      message: 'a resource needs both apiVersion and kind (strings)',
    })
    return
  }
  if (v.kind === 'List' && v.apiVersion === 'v1') {
    const items = Array.isArray(v.items) ? v.items : []
    items.forEach((item, i) => {
      if (isObject(item)) collect(item, source, [...path, 'items', i], out)
      else out.issues.push({ path: `${where} items[${i}]`, message: 'expected a resource' })
    })
    return
  }
  const metadata = isObject(v.metadata) ? v.metadata : {}
  if (typeof metadata.name !== 'string' || metadata.name === '') {
    out.issues.push({
      path: `${where} ${v.kind}: metadata.name`,
      message: 'required: every resource is named',
    })
    return
  }
  const slash = v.apiVersion.lastIndexOf('/')
  const annotations = isObject(metadata.annotations)
    ? Object.fromEntries(
        Object.entries(metadata.annotations).filter(
          (e): e is [string, string] => typeof e[1] === 'string',
        ),
      )
    : {}
  const created =
    typeof metadata.creationTimestamp === 'string' || metadata.creationTimestamp instanceof Date
      ? new Date(metadata.creationTimestamp as string | Date).getTime()
      : Number.NaN
  out.resources.push({
    apiVersion: v.apiVersion,
    group: slash < 0 ? '' : v.apiVersion.slice(0, slash),
    kind: v.kind,
    name: metadata.name,
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : 'default',
    generation: typeof metadata.generation === 'number' ? metadata.generation : 1,
    annotations,
    ...(Number.isFinite(created) ? { created } : {}),
    spec: isObject(v.spec) ? v.spec : {},
    ...(v.type !== undefined ? { type: v.type } : {}),
    ...(isObject(v.data) ? { data: v.data } : {}),
    ...(isObject(v.stringData) ? { stringData: v.stringData } : {}),
    source,
    path,
  })
}
