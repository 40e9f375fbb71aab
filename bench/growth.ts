/**
 * What `npm run bench:scale` grows and how it shows it (docs/design/performance.md, "Growth"): the
 * gatehouse configurations of each scenario at each size, the request paths that spread the load
 * over the configured routes, and the growth table and text plot of per-request CPU and p99
 * against the smallest size. Pure (bench/test/growth.test.ts); bench/scale.ts runs them.
 */
import { stringify } from 'yaml'

/**
 * The MCP-aware policies' rate limit: a bucket per user and tool, large enough never to answer 429
 * in a benchmark (what is measured is keeping and consulting it).
 */
export const PER_USER_TOOL_BUCKET = {
  name: 'per-user-tool',
  maxTokens: 1_000_000_000,
  tokensPerFill: 1_000_000_000,
  fillInterval: '1s',
  key: 'jwt.sub + "/" + mcp.tool.name',
  when: 'mcp.method == "tools/call"',
}

/** What grows: routes by match type, policies (one per route), CEL rules, distinct users. */
export type Scenario = 'prefix' | 'exact' | 'mixed' | 'policies' | 'rules' | 'users'

export const SCENARIOS: readonly Scenario[] = [
  'prefix',
  'exact',
  'mixed',
  'policies',
  'rules',
  'users',
]

/** What each scenario's size counts, for the table. */
export const SCENARIO_LABEL: Readonly<Record<Scenario, string>> = {
  prefix: 'routes, PathPrefix',
  exact: 'routes, Exact',
  mixed: 'routes, half PathPrefix half Exact',
  policies: 'routes, each with its own JWT + CEL policy',
  rules: 'CEL rules in one policy',
  users: 'distinct users (tokens), MCP policy with a per-user rate limit',
}

/** The issuer and audience of the growth configurations' JWT policies. */
export interface JwtSetup {
  issuer: string
  audience: string
  /** The public JWK of the key the tokens are signed with. */
  jwk: unknown
}

/** Route `i`'s path: `/t<i>/mcp`. */
export function routePath(i: number): string {
  return `/t${i}/mcp`
}

/** The match type of route `i` in a scenario. */
function matchType(s: Scenario, i: number): 'PathPrefix' | 'Exact' {
  if (s === 'exact') return 'Exact'
  if (s === 'mixed') return i % 2 === 0 ? 'PathPrefix' : 'Exact'
  return 'PathPrefix'
}

/** How many routes a scenario of `size` configures. */
export function routeCount(s: Scenario, size: number): number {
  return s === 'rules' || s === 'users' ? 1 : size
}

/**
 * The standalone configuration of scenario `s` at `size`, on 127.0.0.1:`port`, every route to
 * the benchmark upstream. Route scenarios are open (no auth: what grows is the matching);
 * `policies` puts a JWT + CEL policy on every route; `rules` one policy of `size` CEL rules, all
 * true for the benchmark's tokens (every one is evaluated); `users` the MCP-aware policy with a
 * rate-limit bucket per user and tool, as `npm run bench`'s /aware route.
 */
export function growthConfig(
  s: Scenario,
  size: number,
  port: number,
  upstreamPort: number,
  jwt: JwtSetup,
): Record<string, unknown> {
  const n = routeCount(s, size)
  const routes: Record<string, unknown> = {}
  for (let i = 0; i < n; i++) {
    routes[`r${i}`] = {
      rules: [
        {
          matches: [{ path: { type: matchType(s, i), value: routePath(i) } }],
          backendRefs: [{ name: 'upstream' }],
        },
      ],
      ...(isOpen(s) && { allowUnauthenticated: true }),
    }
  }
  const jwtAuthentication = {
    mode: 'Strict',
    providers: [
      { issuer: jwt.issuer, audiences: [jwt.audience], jwks: { inline: { keys: [jwt.jwk] } } },
    ],
  }
  const allow = (expressions: string[]) => ({
    action: 'Allow',
    policy: { matchExpressions: expressions },
  })
  const policies: Record<string, unknown> = {}
  if (s === 'policies') {
    for (let i = 0; i < n; i++) {
      policies[`p${i}`] = {
        targetRefs: [{ name: `r${i}` }],
        traffic: { jwtAuthentication, authorization: allow(['"AI-Users" in jwt.groups']) },
      }
    }
  } else if (s === 'rules') {
    policies.p = {
      targetRefs: [{ name: 'r0' }],
      traffic: {
        jwtAuthentication,
        authorization: allow(
          Array.from({ length: size }, (_, i) =>
            i === 0 ? '"AI-Users" in jwt.groups' : `jwt.sub != "nobody-${i}"`,
          ),
        ),
      },
    }
  } else if (s === 'users') {
    policies.p = {
      targetRefs: [{ name: 'r0' }],
      traffic: {
        jwtAuthentication,
        authorization: allow(['"AI-Users" in jwt.groups']),
        mcpAuthorization: { rules: ['mcp.tool.name in ["echo", "progress"]'] },
        localRateLimit: [PER_USER_TOOL_BUCKET],
      },
    }
  }
  return {
    // warn: no access line per request, so that a scenario's growth is not hidden under the cost
    // of the log, which does not grow; `npm run bench` measures with the log on.
    config: { adminAddr: 'off', logLevel: 'warn' },
    gateways: { default: { port, address: '127.0.0.1' } },
    backends: { upstream: { static: { host: '127.0.0.1', port: upstreamPort } } },
    routes,
    ...(Object.keys(policies).length > 0 && { policies }),
  }
}

/**
 * A growth configuration as YAML. The scenarios share objects (one key set in every policy): each
 * is written out where it is used, as YAML aliases would stand for the repeats otherwise, and the
 * gateway refuses a file of that many aliases ("too many aliases").
 */
export function growthYaml(config: Record<string, unknown>): string {
  return stringify(config, { aliasDuplicateObjects: false })
}

/** Whether a scenario's routes are open (no policy). */
export function isOpen(s: Scenario): boolean {
  return s === 'prefix' || s === 'exact' || s === 'mixed'
}

/**
 * The paths the load cycles through: at most `max` routes spread evenly over the configured ones
 * (first and last included), so that a lookup cost that grows with the route's position shows.
 */
export function requestPaths(s: Scenario, size: number, max = 1000): string[] {
  const n = routeCount(s, size)
  const k = Math.min(n, max)
  if (k === 1) return [routePath(n - 1)]
  return Array.from({ length: k }, (_, j) => routePath(Math.round((j * (n - 1)) / (k - 1))))
}

/** One measured size of a scenario. */
export interface GrowthRow {
  scenario: Scenario
  size: number
  /** CPU µs per request of gatehouse's process tree. */
  cpuUs: number
  p99: number
  rps: number
  /** RSS of gatehouse's process tree as the load ended, in bytes. */
  rss: number
}

const num = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '–')

/**
 * The growth table: each row's CPU per request and p99 beside the smallest size of its scenario
 * (× that), req/s, RSS, and the RSS each added route / policy / rule / user cost over the
 * smallest size (KiB).
 */
export function growthTable(rows: readonly GrowthRow[]): string[] {
  const out = [
    '| what grows | size | CPU µs/request | × smallest | p99 ms | × smallest | req/s | RSS MiB | KiB per added unit |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const r of rows) {
    const base = smallest(rows, r.scenario)
    const perUnit =
      base && r.size > base.size ? (r.rss - base.rss) / (r.size - base.size) / 1024 : Number.NaN
    out.push(
      `| ${SCENARIO_LABEL[r.scenario]} | ${r.size} | ${num(r.cpuUs, 1)} | ${num(base ? r.cpuUs / base.cpuUs : Number.NaN, 2)} | ${num(r.p99, 0)} | ${num(base && base.p99 > 0 ? r.p99 / base.p99 : Number.NaN, 2)} | ${num(r.rps, 0)} | ${num(r.rss / 1024 / 1024, 0)} | ${num(perUnit, 1)} |`,
    )
  }
  return out
}

function smallest(rows: readonly GrowthRow[], s: Scenario): GrowthRow | undefined {
  return rows
    .filter((r) => r.scenario === s)
    .reduce<GrowthRow | undefined>((m, r) => (m && m.size <= r.size ? m : r), undefined)
}

/**
 * A text plot of CPU µs per request by size, one bar per row (`#` per `scale` µs, the longest
 * bar `width` characters), grouped by scenario: readable in RESULTS.md inside a code block.
 */
export function textPlot(rows: readonly GrowthRow[], width = 50): string[] {
  const finite = rows.filter((r) => Number.isFinite(r.cpuUs))
  const top = Math.max(0, ...finite.map((r) => r.cpuUs))
  const label = Math.max(0, ...rows.map((r) => String(r.size).length))
  const out: string[] = []
  for (const s of SCENARIOS) {
    const of = rows.filter((r) => r.scenario === s)
    if (of.length === 0) continue
    out.push(`${SCENARIO_LABEL[s]} (CPU µs per request)`)
    for (const r of of) {
      const bar = top > 0 && Number.isFinite(r.cpuUs) ? Math.round((r.cpuUs / top) * width) : 0
      out.push(
        `  ${String(r.size).padStart(label)} |${'#'.repeat(bar)} ${num(r.cpuUs, 1)}`.trimEnd(),
      )
    }
  }
  return out
}
