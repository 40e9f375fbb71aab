/**
 * The conformance suite's vocabulary: requirements with stable IDs, the target they are judged
 * against, and results with evidence.
 */

import type { SpecRevision } from './spec-version.js'

/** RFC 2119 level. Only a failed MUST makes the run fail. */
export type Level = 'MUST' | 'SHOULD' | 'MAY'

/** Groups of requirements a gateway may claim. */
export const PROFILES = [
  'core',
  'bridged-idp',
  'flow',
  'cors',
  'transport',
  'mcp-policy',
  'admin',
  'broker',
  'tls',
] as const
/** One of {@link PROFILES}. */
export type Profile = (typeof PROFILES)[number]

/** One recorded HTTP exchange, shown as evidence when a check fails. */
export interface Exchange {
  method: string
  url: string
  requestHeaders: Record<string, string>
  /** An excerpt of the request body, credentials redacted, when it matters (client mode). */
  requestBody?: string
  /** 0 when no answer arrived. */
  status: number
  headers: Record<string, string>
  bodyExcerpt: string
  /** What went wrong on the wire: no answer at all, or a body that broke off. */
  networkError?: string
}

/** Why a check failed. */
export class CheckFailure extends Error {
  constructor(
    /** What was expected, in words. */
    readonly expected: string,
    /** What was seen instead. */
    readonly actual: string,
  ) {
    super(`expected ${expected}; got ${actual}`)
  }
}

/** Fails the running check unless `ok`, with what was expected and what was seen. */
export function must(ok: unknown, expected: string, actual: string): asserts ok {
  if (!ok) throw new CheckFailure(expected, actual)
}

/** A check needs something the target does not offer (e.g. no admin URL): skipped, not failed. */
export class CheckSkipped extends Error {}

/** The mock IdP's control API as the checks use it. */
export interface IdpControl {
  token(req: Record<string, unknown>): Promise<{ access_token: string }>
  registrations(): Promise<Array<{ status: number }>>
  requests(): Promise<Array<{ method: string; path: string; query: string }>>
  clearRequests(): Promise<void>
}

/** What the checks are run against. */
export interface Target {
  /** Where to send requests for the protected MCP route (`<base>/mcp`). */
  base: string
  /** The base as configured in the policy's resource (`<configured base>/mcp`), may differ. */
  configuredBase: string
  /** A gateway/route whose policy has no `clientId` (registration is proxied), if any. */
  proxiedBase?: string
  proxiedConfiguredBase?: string
  /**
   * A gateway/route whose policy requires the scope `mcp:tools` (rule `"mcp:tools" in jwt.scp`)
   * and names it in its 403 challenge, if any.
   */
  scopedBase?: string
  /**
   * A gateway/route in broker mode (docs/design/broker.md: the gateway is the authorization server its
   * clients see), if any; its resource is `<brokerConfiguredBase>/mcp`.
   */
  brokerBase?: string
  brokerConfiguredBase?: string
  /**
   * A gateway/route that accepts opaque access tokens by RFC 7662 introspection (OPQ-*), if any,
   * and how a check gets such a token: the client-credentials grant at `tokenEndpoint`.
   */
  opaque?: { base: string; tokenEndpoint: string; clientId: string; clientSecret: string }
  /** A path prefix protected by a policy whose `jwksPath` is wrong, if configured. */
  brokenPath?: string
  /**
   * An HTTPS listener, when the tls profile is judged: its base (`https://host:port`), the CA
   * certificates (PEM) its certificates chain to, and the server names it has a certificate for
   * (sent as SNI; empty when it is addressed by IP and names none).
   */
  tls?: { base: string; ca: string[]; serverNames: string[] }
  /** Admin interface URL, when the admin profile is judged. */
  admin?: string
  idp: {
    issuer: string
    audience: string
    orgUrl: string
    /** A client id pre-registered at the IdP, for a flow without a registration endpoint. */
    publicClientId?: string
    control: IdpControl
  }
  /** The MCP backend's observation endpoints (mcp-backend), when it is ours. */
  backendOrigin?: string
  /** Secret values planted in the configuration that must never appear in `/config_dump`. */
  secrets: string[]
  /** Whether `/quitquitquit` may be exercised (it stops the target). */
  allowShutdown: boolean
}

/** What a check receives. */
export interface CheckContext {
  target: Target
  /** HTTP with evidence recording. */
  http(url: string, init?: RequestInit & { timeoutMs?: number }): Promise<HttpResult>
}

/** A response with its body read. */
export interface HttpResult {
  status: number
  headers: Headers
  text: string
  json<T = Record<string, unknown>>(): T
}

/** A requirement of the catalogue. */
export interface Requirement {
  /** Stable ID, e.g. `PRM-001`. Never reused. */
  id: string
  level: Level
  profile: Profile
  /** Where the requirement comes from: seed section or RFC/spec section. */
  source: string
  /** The requirement, stated so a reader of the report understands a failure. */
  text: string
  /**
   * The sentence of {@link source} it checks, verbatim (markup dropped). Its RFC 2119 keyword
   * is {@link level}; a seed sentence states none (conformance/test/levels.test.ts).
   */
  quote?: string
  /**
   * Why {@link level} is below the keyword of {@link quote}, when it is (never above it): the one
   * place a level and its sentence may differ, said in the open.
   */
  levelNote?: string
  /** Runs the check; throws CheckFailure / CheckSkipped. */
  check(ctx: CheckContext): Promise<void>
  /** Runs after every other check (it may stop the target). */
  last?: boolean
  /**
   * One of the MCP authorization duties every resource server has, whoever built it: judged in
   * the `resource-server` target profile (profiles.ts), the default of `--target`. Its quote is
   * an MCP or RFC sentence with a keyword, never a gatehouse feature (levels.test.ts).
   */
  resourceServer?: true
  /**
   * The MCP revisions whose rules the check follows (and whose traffic it sends), for
   * `--spec-version` (spec-version.ts); absent: rules every selectable revision shares (an RFC,
   * the seed, a gatehouse feature), judged in every run.
   */
  specVersions?: readonly SpecRevision[]
}

/** Outcome of one requirement. */
export interface Result extends ReportRow {
  profile: Profile
}

/**
 * A judged requirement as the reports show it: grouped by `profile` — a profile of the server
 * catalogue, or a scenario of the client mode.
 */
export interface ReportRow {
  id: string
  level: Level
  /** The group it is reported under. */
  profile: string
  source: string
  text: string
  status: 'passed' | 'failed' | 'skipped'
  /** Baseline: a listed failure (passes the run) or a listed requirement that now passes. */
  baseline?: 'expected-failure' | 'stale'
  message?: string
  evidence?: Exchange
  durationMs: number
}
