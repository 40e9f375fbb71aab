// Over 300 lines but one job (translating the Kubernetes resources into one configuration): kept whole.
/**
 * Kubernetes resources → the standalone configuration (docs/design/kubernetes.md: a translation in `config/`, never
 * a second pipeline). GatewayBackend → `backends`, BackendTLSPolicy → `backends.<name>.tls`,
 * Gateway listeners → `gateways`, HTTPRoute → `routes`, GatewayPolicy → `policies`; the result is
 * validated by the same schema and checks as a standalone file. Specs are carried over as written
 * (so the schema's errors name their fields), references are resolved and rewritten to names.
 *
 * What the API server would refuse (a field gatehouse does not know, an unsupported kind of
 * target) is an error; what a controller reports in status (a reference to something missing or
 * not granted) is a finding, and the resource is left out. Fail closed: a route whose policy is
 * left out is withheld too, so that it never serves unprotected.
 */
import type { ConfigIssue } from '../../errors.js'
import type { SourceDocument } from './documents.js'
import { Findings, notOk, ok } from './findings.js'
import { resolveParentRef, translateGateways } from './gateways.js'
import { admitResources } from './kinds.js'
import { Origins } from './origins.js'
import {
  byPrecedence,
  canonical,
  type PathMatch,
  protectedConflicts,
  type RouteCandidate,
} from './precedence.js'
import { type ObjectRef, type RefProblem, ResourceIndex, resolveBackendRef } from './references.js'
import { GATEWAY_API_GROUP, type Resource, resourceId } from './resources.js'
import { isCoreObject, unnamedObjects } from './secrets.js'
import { translateTls } from './tls.js'
import { unsupportedFields } from './unsupported.js'

/** The result of a translation. */
export interface Translation {
  /** The standalone configuration, before validation. */
  raw: Record<string, unknown>
  origins: Origins
  findings: Findings
  warnings: ConfigIssue[]
  /** Problems that refuse the whole configuration, located. */
  errors: ConfigIssue[]
}

/** Options of {@link translateResources}. */
export interface TranslateOptions {
  /** The API group of GatewayBackend and GatewayPolicy. */
  apiGroup: string
}

const list = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? (v as Record<string, unknown>[]) : []

/** Translates resources (and standalone fragments) into one standalone configuration. */
export function translateResources(
  resources: readonly Resource[],
  fragments: readonly SourceDocument[],
  options: TranslateOptions,
): Translation {
  const { apiGroup } = options
  const groups = new Map<string, string>([
    ['GatewayBackend', apiGroup],
    ['GatewayPolicy', apiGroup],
    ['Gateway', GATEWAY_API_GROUP],
    ['HTTPRoute', GATEWAY_API_GROUP],
    ['BackendTLSPolicy', GATEWAY_API_GROUP],
    ['ReferenceGrant', GATEWAY_API_GROUP],
  ])
  const t: Translation = {
    raw: { gateways: {}, backends: {}, routes: {}, policies: {} },
    origins: new Origins(),
    findings: new Findings(),
    warnings: [],
    errors: [],
  }
  const fail = (r: Resource, field: (string | number)[], message: string) =>
    t.errors.push(t.origins.locate(r, field, message))

  // Core Secrets and ConfigMaps are read where a listener's certificateRefs or a BackendTLSPolicy's
  // caCertificateRefs name them (./secrets.ts).
  const known = admitResources(
    resources.filter((r) => !isCoreObject(r)),
    groups,
    apiGroup,
    (w) => t.warnings.push(w),
    fail,
  )
  const index = new ResourceIndex(known, groups)
  const objects = new ResourceIndex(
    [...known, ...resources.filter(isCoreObject)],
    new Map([...groups, ['Secret', ''], ['ConfigMap', '']]),
  )
  const keyOf = keys(known)
  const raw = t.raw as Record<
    'gateways' | 'backends' | 'routes' | 'policies',
    Record<string, unknown>
  >

  // Backends, with their TLS policies.
  for (const b of index.all('GatewayBackend')) {
    const key = keyOf(b)
    raw.backends[key] = { ...b.spec }
    t.origins.add(['backends', key], b, ['spec'])
    t.findings.of(b).key = key
    t.findings.set(b, ok('Accepted', 'Accepted', 'backend is valid'))
  }
  translateTls(objects, apiGroup, keyOf, raw.backends, t, fail)

  const listenersOf = translateGateways(
    index,
    keyOf,
    raw.gateways,
    t.findings,
    t.origins,
    objects,
    fail,
  )
  const publicAnnotation = `${apiGroup}/allow-unauthenticated`
  /** Whether a resource says it is public (the annotation), reporting a value other than "true". */
  const saysPublic = (r: Resource): boolean => {
    const value = r.annotations[publicAnnotation]
    if (value === undefined) return false
    if (value === 'true') return true
    fail(
      r,
      ['metadata', 'annotations', publicAnnotation],
      `expected "true" (the ${r.kind === 'Gateway' ? "Gateway's routes are" : 'route is'} meant to serve without authentication) or no annotation (authentication required), not ${JSON.stringify(value)}`,
    )
    return false
  }
  for (const gw of index.all('Gateway')) {
    if (!saysPublic(gw)) continue
    for (const l of listenersOf.get(`${gw.namespace}/${gw.name}`) ?? [])
      (raw.gateways[l.key] as Record<string, unknown>).allowUnauthenticated = true
  }
  t.warnings.push(...unnamedObjects(resources.filter(isCoreObject), raw))
  const standaloneGateways = new Set(
    fragments.flatMap((f) => Object.keys((f.value as { gateways?: object }).gateways ?? {})),
  )

  // Policies first decide what they can: a route whose policy is left out is withheld.
  const withheld = new Map<string, string>()
  const policyTargets = new Map<Resource, Resource[]>()
  const policyProblems = new Map<Resource, RefProblem>()
  for (const p of index.all('GatewayPolicy')) {
    const targets: Resource[] = []
    list(p.spec.targetRefs).forEach((ref, i) => {
      if (
        (ref.group ?? GATEWAY_API_GROUP) !== GATEWAY_API_GROUP ||
        (ref.kind ?? 'HTTPRoute') !== 'HTTPRoute'
      ) {
        fail(
          p,
          ['spec', 'targetRefs', i],
          `gatehouse attaches policies to HTTPRoutes (group ${GATEWAY_API_GROUP}, kind HTTPRoute) only, not ${String(ref.kind)}; target each route`,
        )
        return
      }
      if (ref.namespace !== undefined) {
        fail(
          p,
          ['spec', 'targetRefs', i, 'namespace'],
          'a policy targets resources in its own namespace (GEP-713 LocalPolicyTargetReference); remove namespace',
        )
        return
      }
      const route = index.get('HTTPRoute', p.namespace, String(ref.name))
      if (route) targets.push(route)
      else
        t.findings.set(
          p,
          notOk(
            'Accepted',
            'TargetNotFound',
            `HTTPRoute ${p.namespace}/${String(ref.name)} not found`,
          ),
        )
    })
    policyTargets.set(p, targets)
    const traffic = p.spec.traffic as { jwtAuthentication?: { providers?: unknown } } | undefined
    for (const provider of list(traffic?.jwtAuthentication?.providers)) {
      const remote = (provider.jwks as { remote?: { backendRef?: ObjectRef } } | undefined)?.remote
      if (!remote?.backendRef) continue
      const resolved = resolveBackendRef(remote.backendRef, p, apiGroup, index)
      if ('reason' in resolved && !policyProblems.has(p)) policyProblems.set(p, resolved)
    }
    const problem = policyProblems.get(p)
    if (problem) {
      t.findings.set(p, notOk('ResolvedRefs', problem.reason, problem.message))
      for (const route of targets)
        withheld.set(
          resourceId(route),
          `GatewayPolicy ${p.namespace}/${p.name} is not valid (${problem.reason}): ${problem.message}`,
        )
    } else {
      t.findings.set(p, ok('ResolvedRefs', 'ResolvedRefs', 'every reference resolved'))
    }
  }

  // The authentication each route is covered by, for the cross-namespace conflicts: the policy's
  // traffic with its key-set backends resolved, so that two policies naming "idp" in their own
  // namespaces (two backends) are not equal.
  const protection = new Map<Resource, { traffic: Set<string>; by: string[] }>()
  for (const [p, targets] of policyTargets) {
    const written = p.spec.traffic as { jwtAuthentication?: unknown } | undefined
    if (policyProblems.has(p) || written?.jwtAuthentication === undefined) continue
    const traffic = structuredClone(written) as {
      jwtAuthentication: { providers?: unknown }
    }
    for (const provider of list(traffic.jwtAuthentication.providers)) {
      const remote = (provider.jwks as { remote?: { backendRef?: ObjectRef } } | undefined)?.remote
      if (!remote?.backendRef) continue
      const resolved = resolveBackendRef(remote.backendRef, p, apiGroup, index)
      if ('backend' in resolved) remote.backendRef = { name: resourceId(resolved.backend) }
    }
    for (const route of targets) {
      const entry = protection.get(route) ?? { traffic: new Set<string>(), by: [] }
      entry.traffic.add(canonical(traffic))
      entry.by.push(`GatewayPolicy ${p.namespace}/${p.name}`)
      protection.set(route, entry)
    }
  }
  const candidates: Array<RouteCandidate & { key: string; value: Record<string, unknown> }> = []

  for (const route of index.all('HTTPRoute')) {
    const key = keyOf(route)
    t.findings.of(route).key = key
    const parents = list(route.spec.parentRefs).map((ref) =>
      resolveParentRef(ref, route, listenersOf, standaloneGateways),
    )
    const rules: unknown[] = []
    let refProblem: RefProblem | undefined
    list(route.spec.rules).forEach((written, i) => {
      const { found, rule } = unsupportedFields(written)
      for (const u of found) fail(route, ['spec', 'rules', i, ...u.field], u.message)
      const refs = list(rule.backendRefs).map((ref) =>
        resolveBackendRef(ref, route, apiGroup, index),
      )
      const problem = refs.find((r): r is RefProblem => 'reason' in r)
      if (problem) {
        refProblem ??= problem
        return
      }
      t.origins.add(['routes', key, 'rules', String(rules.length)], route, ['spec', 'rules', i])
      rules.push({
        ...rule,
        matches: rule.matches ?? [{ path: { type: 'PathPrefix', value: '/' } }],
        backendRefs: refs.map((r, b) => {
          const port = list(rule.backendRefs)[b]?.port
          return {
            name: keyOf((r as { backend: Resource }).backend),
            ...(port !== undefined ? { port } : {}),
          }
        }),
      })
    })
    const resolvedRefs = refProblem
      ? notOk('ResolvedRefs', refProblem.reason, refProblem.message)
      : ok('ResolvedRefs', 'ResolvedRefs', 'every backend reference resolved')
    t.findings.of(route).parents = parents.map((p) => ({
      parentRef: p.parentRef,
      conditions: [
        p.keys.length > 0
          ? ok('Accepted', 'Accepted', p.message)
          : notOk('Accepted', p.reason, p.message),
        resolvedRefs,
      ],
    }))
    const attached = [...new Set(parents.flatMap((p) => p.keys))]
    if (attached.length > 0)
      t.findings.set(route, ok('Accepted', 'Accepted', `attached to ${attached.join(', ')}`))
    else if (parents.length === 0)
      t.findings.set(
        route,
        notOk(
          'Accepted',
          'NoMatchingParent',
          'spec.parentRefs is empty: the route attaches to no Gateway',
        ),
      )
    else
      t.findings.set(
        route,
        notOk(
          'Accepted',
          parents[0]?.reason ?? 'NoMatchingParent',
          parents.map((p) => p.message).join('; '),
        ),
      )
    t.findings.set(route, resolvedRefs)
    const reason = withheld.get(resourceId(route))
    if (reason)
      t.findings.set(
        route,
        notOk('Programmed', 'Invalid', `withheld so that it does not serve unprotected: ${reason}`),
      )
    if (attached.length === 0 || rules.length === 0 || reason) continue
    if (Array.isArray(route.spec.hostnames) && route.spec.hostnames.length > 0) {
      t.warnings.push({
        path: `${resourceId(route)}: spec.hostnames`,
        message:
          'gatehouse does not match requests by host name; the route serves every host on its listeners',
      })
    }
    const value: Record<string, unknown> = {
      parentRefs: attached.map((name) => ({ name })),
      rules,
      ...(saysPublic(route) ? { allowUnauthenticated: true } : {}),
    }
    candidates.push({
      route,
      key,
      value,
      listeners: attached,
      matches: rules
        .flatMap((r) => list((r as { matches?: unknown }).matches))
        .flatMap((m) => {
          const path = m.path as Partial<PathMatch> | undefined
          return typeof path?.value === 'string'
            ? [{ type: path.type === 'Exact' ? 'Exact' : 'PathPrefix', value: path.value } as const]
            : []
        }),
      protection: protection.get(route)?.traffic ?? new Set(),
      protectedBy: protection.get(route)?.by ?? [],
    })
  }

  // Gateway API precedence: routes are written oldest first, then by namespace/name, and the
  // router keeps the first of equal matches. A route that would take a protected path of another
  // namespace is left out, with a condition saying why.
  const conflicts = protectedConflicts(candidates)
  for (const c of [...candidates].sort((a, b) => byPrecedence(a.route, b.route))) {
    const conflict = conflicts.get(c.route)
    if (conflict) {
      const refused = notOk('Accepted', 'ProtectedPathConflict', conflict)
      t.findings.set(c.route, refused)
      for (const parent of t.findings.of(c.route).parents ?? [])
        parent.conditions = parent.conditions.map((cond) =>
          cond.type === 'Accepted' && cond.status === 'True' ? refused : cond,
        )
      continue
    }
    raw.routes[c.key] = c.value
    t.origins.add(['routes', c.key], c.route, ['spec'])
    t.origins.add(['routes', c.key, 'parentRefs'], c.route, ['spec', 'parentRefs'])
  }

  for (const p of index.all('GatewayPolicy')) {
    const key = keyOf(p)
    t.findings.of(p).key = key
    if (t.findings.failed(p)) continue
    const targets = (policyTargets.get(p) ?? []).filter((r) => raw.routes[keyOf(r)] !== undefined)
    if (targets.length === 0) {
      t.findings.set(p, ok('Accepted', 'Accepted', 'policy is valid'))
      t.findings.set(
        p,
        notOk('Attached', 'TargetNotFound', 'none of its target routes is attached to a listener'),
      )
      continue
    }
    const spec = structuredClone(p.spec) as Record<string, unknown>
    const traffic = spec.traffic as { jwtAuthentication?: { providers?: unknown } } | undefined
    for (const provider of list(traffic?.jwtAuthentication?.providers)) {
      const remote = (provider.jwks as { remote?: { backendRef?: ObjectRef } } | undefined)?.remote
      if (!remote?.backendRef) continue
      const resolved = resolveBackendRef(remote.backendRef, p, apiGroup, index) as {
        backend: Resource
      }
      const port = remote.backendRef.port
      remote.backendRef = { name: keyOf(resolved.backend), ...(port !== undefined ? { port } : {}) }
    }
    raw.policies[key] = {
      ...spec,
      targetRefs: targets.map((r) => ({ kind: 'HTTPRoute', name: keyOf(r) })),
    }
    t.origins.add(['policies', key], p, ['spec'])
    t.findings.set(p, ok('Accepted', 'Accepted', 'policy is valid'))
  }

  mergeFragments(t, fragments)
  return t
}

/** The gatehouse name of each resource: its own name, or `<namespace>-<name>` when it is not unique. */
function keys(resources: readonly Resource[]): (r: Resource) => string {
  const count = new Map<string, number>()
  for (const r of resources)
    count.set(`${r.kind}/${r.name}`, (count.get(`${r.kind}/${r.name}`) ?? 0) + 1)
  return (r) => ((count.get(`${r.kind}/${r.name}`) ?? 0) > 1 ? `${r.namespace}-${r.name}` : r.name)
}

const SECTIONS = ['gateways', 'backends', 'routes', 'policies'] as const

/** Merges standalone fragments (`config:`, `gateways:`, ...) into the translation. */
function mergeFragments(t: Translation, fragments: readonly SourceDocument[]): void {
  for (const f of fragments) {
    const value = f.value as Record<string, unknown>
    for (const [section, content] of Object.entries(value)) {
      if (
        (SECTIONS as readonly string[]).includes(section) &&
        typeof content === 'object' &&
        content
      ) {
        const target = t.raw[section] as Record<string, unknown>
        for (const [name, entry] of Object.entries(content)) {
          if (target[name] !== undefined) {
            t.errors.push({
              path: `${section}.${name}`,
              message: `defined twice: by a resource and in ${f.file}; rename one`,
            })
            continue
          }
          target[name] = entry
          t.origins.addFragment([section, name], f)
        }
      } else if (
        t.raw[section] !== undefined &&
        !(SECTIONS as readonly string[]).includes(section)
      ) {
        t.errors.push({
          path: section,
          message: `set in more than one standalone document (${f.file})`,
        })
      } else {
        t.raw[section] = content
        t.origins.addFragment([section], f)
      }
    }
  }
}
