/**
 * Loading the standalone configuration file: read, parse YAML, substitute `${ENV}` inside the
 * parsed scalars, validate against the schema, check cross-references, then freeze. Every problem found is reported at
 * once, each with the path of the offending field and what to do.
 */
import { readFile } from 'node:fs/promises'
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Scalar,
  visit,
} from 'yaml'
import type { z } from 'zod'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { GatehouseConfig } from './schema.js'

/** The three path prefixes a route carrying an `mcp` policy must have (seed, Endpoints). */
export const MCP_PATH_PREFIXES = [
  '/mcp',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server/mcp',
] as const

/**
 * Replaces `${NAME}` and `${NAME:-default}` in one string with environment variables. `$${` is a
 * literal `${`. A variable that is unset and has no default is an error naming it.
 */
export function substituteEnv(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): { text: string; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = []
  const out = text.replace(
    /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (whole, escaped: string, key: string, fallback: string | undefined) => {
      if (escaped) return whole.slice(1)
      const value = env[key]
      if (value !== undefined && value !== '') return value
      if (fallback !== undefined) return fallback
      issues.push({
        path: '',
        message: `environment variable ${key} is not set (referenced as \${${key}}); set it or write \${${key}:-default}`,
      })
      return ''
    },
  )
  return { text: out, issues }
}

/**
 * Substitutes `${ENV}` inside the string scalars of a parsed document, never in its raw text: a
 * value cannot add keys (`X="a\nadminAddr: 0.0.0.0:15000"` stays one string), and a `${…}` in a
 * comment or a key is left alone. A plain (unquoted) scalar that is wholly a number, boolean or
 * null after substitution takes that type, as YAML would have read it (`port: ${PORT}`); a quoted
 * one stays a string.
 */
function substituteScalars(doc: Document, env: NodeJS.ProcessEnv): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return
      const sub = substituteEnv(node.value, env)
      const path = fieldPath(ancestors, key, node)
      for (const issue of sub.issues) issues.push({ ...issue, path })
      node.value = node.type === 'PLAIN' ? plainValue(sub.text) : sub.text
    },
  })
  return issues
}

/** YAML 1.2 core schema resolution of a plain scalar's text (int, float, bool, null). */
function plainValue(text: string): unknown {
  if (/^(null|Null|NULL|~)$/.test(text)) return null
  if (/^(true|True|TRUE)$/.test(text)) return true
  if (/^(false|False|FALSE)$/.test(text)) return false
  if (
    /^[-+]?[0-9]+$/.test(text) ||
    /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)
  )
    return Number(text)
  return text
}

/** `gateways.default.port` for a scalar, from the visitor's ancestors. */
function fieldPath(
  ancestors: readonly unknown[],
  key: number | 'value' | null,
  node: Scalar,
): string {
  const parts: Array<string | number> = []
  const chain = [...ancestors, node]
  chain.forEach((item, i) => {
    const next = chain[i + 1]
    if (isPair(item) && isScalar(item.key)) parts.push(String(item.key.value))
    else if (isSeq(item) && next !== undefined) parts.push(item.items.indexOf(next as never))
  })
  if (typeof key === 'number' && parts.at(-1) !== key) parts.push(key)
  return formatPath(parts)
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`
    else out += out ? `.${String(p)}` : String(p)
  }
  return out
}

function describeInput(input: unknown): string {
  if (input === undefined) return 'nothing'
  const s = JSON.stringify(input)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

/** Turns zod issues into path-named, actionable messages. */
export function formatZodIssues(error: z.ZodError): ConfigIssue[] {
  const out: ConfigIssue[] = []
  for (const issue of error.issues) {
    const path = formatPath(issue.path)
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          out.push({
            path: path ? `${path}.${key}` : key,
            message: 'unknown field; check its spelling and place against docs/configuration.md',
          })
        }
        break
      case 'invalid_type': {
        const custom = !issue.message.startsWith('Invalid input')
        out.push({
          path,
          message: custom
            ? issue.message
            : issue.input === undefined
              ? `required field is missing (expected ${issue.expected})`
              : `expected ${issue.expected}, got ${describeInput(issue.input)}`,
        })
        break
      }
      case 'invalid_key':
        // A record key (a gateway, route, backend or policy name): say the rule it broke.
        out.push({
          path,
          message: issue.issues[0]?.message ?? issue.message,
        })
        break
      case 'invalid_union':
        out.push({ path, message: `${issue.message}, got ${describeInput(issue.input)}` })
        break
      case 'invalid_value':
        out.push({
          path,
          message: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeInput(issue.input)}`,
        })
        break
      default:
        out.push({ path, message: issue.message })
    }
  }
  return out
}

/** Cross-reference checks the schema alone cannot express. */
export function checkReferences(config: GatehouseConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const gatewayNames = Object.keys(config.gateways)
  if (gatewayNames.length === 0) {
    issues.push({ path: 'gateways', message: 'at least one gateway is required' })
  }
  const ports = new Map<string, string>()
  for (const [name, gw] of Object.entries(config.gateways)) {
    const key = `${gw.address}:${gw.port}`
    const other = ports.get(key)
    if (other) {
      issues.push({
        path: `gateways.${name}.port`,
        message: `${key} is already used by gateway "${other}"; give each gateway its own port`,
      })
    }
    ports.set(key, name)
  }
  for (const [routeName, route] of Object.entries(config.routes)) {
    if (!route.parentRefs && gatewayNames.length > 1) {
      issues.push({
        path: `routes.${routeName}.parentRefs`,
        message: `required when there is more than one gateway (have: ${gatewayNames.join(', ')})`,
      })
    }
    route.parentRefs?.forEach((ref, i) => {
      if (!config.gateways[ref.name]) {
        issues.push({
          path: `routes.${routeName}.parentRefs[${i}].name`,
          message: `no gateway named "${ref.name}" (have: ${gatewayNames.join(', ') || 'none'})`,
        })
      }
    })
    route.rules.forEach((rule, r) => {
      rule.backendRefs.forEach((ref, b) => {
        if (!config.backends[ref.name]) {
          issues.push({
            path: `routes.${routeName}.rules[${r}].backendRefs[${b}].name`,
            message: `no backend named "${ref.name}" (have: ${Object.keys(config.backends).join(', ') || 'none'})`,
          })
        }
      })
    })
  }
  for (const [policyName, policy] of Object.entries(config.policies)) {
    policy.targetRefs.forEach((ref, i) => {
      const route = config.routes[ref.name]
      if (!route) {
        issues.push({
          path: `policies.${policyName}.targetRefs[${i}].name`,
          message: `no route named "${ref.name}" (have: ${Object.keys(config.routes).join(', ') || 'none'})`,
        })
        return
      }
      if (policy.traffic.jwtAuthentication?.mcp) {
        const prefixes = new Set(
          route.rules.flatMap((rule) =>
            rule.matches.filter((m) => m.path.type === 'PathPrefix').map((m) => m.path.value),
          ),
        )
        const missing = MCP_PATH_PREFIXES.filter((p) => !prefixes.has(p))
        if (missing.length > 0) {
          issues.push({
            path: `routes.${ref.name}.rules`,
            message: `policy "${policyName}" serves MCP OAuth discovery, so the route needs PathPrefix matches for all of ${MCP_PATH_PREFIXES.join(', ')}; missing: ${missing.join(', ')}`,
          })
        }
      }
    })
    policy.traffic.jwtAuthentication?.providers.forEach((p, i) => {
      const ref = p.jwks.remote?.backendRef
      if (ref && !config.backends[ref.name]) {
        issues.push({
          path: `policies.${policyName}.traffic.jwtAuthentication.providers[${i}].jwks.remote.backendRef.name`,
          message: `no backend named "${ref.name}"; declare the JWKS backend (the org domain, port 443) under backends`,
        })
      }
      const path = p.jwks.remote?.jwksPath
      if (path === '/.well-known/jwks.json' || path?.endsWith('/.well-known/jwks.json')) {
        issues.push({
          path: `policies.${policyName}.traffic.jwtAuthentication.providers[${i}].jwks.remote.jwksPath`,
          message:
            'the bridged IdP does not publish keys at /.well-known/jwks.json; it serves them at /oauth2/<auth_server_id>/v1/keys',
        })
      }
    })
  }
  if (config.ui?.gateway && !config.gateways[config.ui.gateway]) {
    issues.push({ path: 'ui.gateway', message: `no gateway named "${config.ui.gateway}"` })
  }
  return issues
}

function yamlPathOf(
  doc: ReturnType<typeof parseDocument>,
  lc: LineCounter,
  path: string[],
): string {
  // Best effort: line numbers help people find a field in a large file.
  let node: unknown = doc.contents
  for (const key of path) {
    if (isMap(node)) node = node.get(key, true)
    else if (isSeq(node)) node = node.get(Number(key), true)
    else return ''
  }
  const range = (node as { range?: [number, number, number] } | undefined)?.range
  if (!range) return ''
  const pos = lc.linePos(range[0])
  return ` (line ${pos.line})`
}

/**
 * Parses and validates configuration text. Throws {@link ConfigError} listing every problem.
 * @param text - YAML (JSON is YAML too)
 * @param file - the file name, used in messages
 */
export function parseConfig(
  text: string,
  file?: string,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<GatehouseConfig> {
  const lc = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length > 0) {
    throw new ConfigError(
      'GW_ERR_CONFIG_PARSE',
      doc.errors.map((e) => ({ path: '', message: `YAML: ${e.message.split('\n')[0]}` })),
      file,
    )
  }
  const envIssues = substituteScalars(doc, env)
  if (envIssues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', envIssues, file)
  const raw = doc.toJS() ?? {}
  const result = GatehouseConfig.safeParse(raw, { reportInput: true })
  if (!result.success) {
    const issues = formatZodIssues(result.error).map((i) => ({
      ...i,
      message: i.message + yamlPathOf(doc, lc, i.path.replace(/\[(\d+)\]/g, '.$1').split('.')),
    }))
    throw new ConfigError('GW_ERR_CONFIG_INVALID', issues, file)
  }
  const refIssues = checkReferences(result.data)
  if (refIssues.length > 0) throw new ConfigError('GW_ERR_CONFIG_INVALID', refIssues, file)
  return deepFreeze(result.data)
}

/** Reads, parses and validates a configuration file. */
export async function loadConfigFile(file: string): Promise<Readonly<GatehouseConfig>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (cause) {
    const reason =
      (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(cause)
    throw new ConfigError(
      'GW_ERR_CONFIG_READ',
      [{ path: '', message: `cannot read the configuration file: ${reason}` }],
      file,
      { cause },
    )
  }
  return parseConfig(text, file)
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
