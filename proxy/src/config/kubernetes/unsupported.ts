/**
 * HTTPRoute fields that Gateway API defines and gatehouse does not implement. The schema would
 * call them unknown ("check its spelling") or answer a raw "Invalid discriminator value"; the
 * author wrote them correctly, so the error says they are Gateway API, not supported here, and
 * what to do instead (docs/configuration.md, "Gateway API fields gatehouse does not support").
 */

/** A field found, where it is under the rule, and what to say. */
export interface UnsupportedField {
  /** Path under `spec.rules[i]`. */
  field: (string | number)[]
  message: string
}

const DOC = 'see docs/configuration.md#gateway-api-fields-gatehouse-does-not-support'

const RULE_FIELDS: Record<string, string> = {
  timeouts:
    'backend timeouts are set on the GatewayBackend (spec.timeouts.connect, spec.timeouts.response)',
  retry: 'gatehouse does not retry requests to a backend',
  sessionPersistence: 'MCP sessions are bound by Mcp-Session-Id, not by a cookie or header',
}

const MATCH_FIELDS: Record<string, string> = {
  headers: 'gatehouse matches requests by path only',
  queryParams: 'gatehouse matches requests by path only',
  method: 'gatehouse matches requests by path only',
}

const FILTERS = new Set([
  'RequestHeaderModifier',
  'ResponseHeaderModifier',
  'RequestRedirect',
  'URLRewrite',
  'RequestMirror',
  'ExtensionRef',
])

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The Gateway API fields of one HTTPRoute rule that gatehouse does not support, and the rule
 * without them (so that the schema does not report them a second time).
 */
export function unsupportedFields(rule: Record<string, unknown>): {
  found: UnsupportedField[]
  rule: Record<string, unknown>
} {
  const found: UnsupportedField[] = []
  const out: Record<string, unknown> = { ...rule }
  const say = (name: string, hint: string) =>
    `\`${name}\` is Gateway API but not supported by gatehouse (${hint}); remove it; ${DOC}`
  for (const [key, hint] of Object.entries(RULE_FIELDS)) {
    if (key in rule) {
      found.push({ field: [key], message: say(key, hint) })
      delete out[key]
    }
  }
  if (Array.isArray(rule.matches)) {
    out.matches = rule.matches.map((m, j) => {
      if (!isObject(m)) return m
      const copy = { ...m }
      for (const [key, hint] of Object.entries(MATCH_FIELDS)) {
        if (key in m) {
          found.push({ field: ['matches', j, key], message: say(`matches[].${key}`, hint) })
          delete copy[key]
        }
      }
      return copy
    })
  }
  if (Array.isArray(rule.filters)) {
    const kept: unknown[] = []
    rule.filters.forEach((f, k) => {
      if (isObject(f) && typeof f.type === 'string' && FILTERS.has(f.type)) {
        const hint =
          f.type === 'RequestHeaderModifier'
            ? 'a GatewayPolicy sets and removes request headers: spec.traffic.transformations.request'
            : 'the CORS filter is the one filter gatehouse applies'
        found.push({
          field: ['filters', k, 'type'],
          message: say(`filters[].type: ${f.type}`, hint),
        })
        return
      }
      kept.push(f)
    })
    out.filters = kept
  }
  if (Array.isArray(rule.backendRefs)) {
    rule.backendRefs.forEach((b, k) => {
      if (isObject(b) && 'filters' in b)
        found.push({
          field: ['backendRefs', k, 'filters'],
          message: say('backendRefs[].filters', 'filters apply to the whole rule'),
        })
    })
  }
  return { found, rule: out }
}
