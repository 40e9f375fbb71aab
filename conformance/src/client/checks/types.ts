/**
 * The vocabulary of the client checks: like the server catalogue's requirements (stable ID,
 * level, source, text), judged from one client run's recorded traffic instead of from requests
 * the suite makes.
 */
import type { Level } from '../../types.js'
import type { ClientRun } from '../execute.js'
import type { Flow } from '../flow.js'
import type { Progress, Stage } from '../refusal.js'
import type { StackFacts } from '../scenario-stack.js'
import type { ClientScenario } from '../scenarios.js'
import type { Recorded } from '../traffic.js'

/** What a client check receives. */
export interface ClientCheckContext {
  scenario: ClientScenario
  facts: StackFacts
  flow: Flow
  run: ClientRun
  /** How far the run got, and why it stopped (refusal.ts). */
  progress: Progress
  /** Names the exchange that shows a failure (the report's evidence). */
  evidence(e: Recorded | undefined): void
}

/** A requirement on MCP clients. */
export interface ClientRequirement {
  /** Stable ID, `CLI-…`. Never reused. */
  id: string
  level: Level
  /** Where it comes from: MCP authorization spec section, RFC section. */
  source: string
  /**
   * The sentence of {@link source} it checks, verbatim (markdown emphasis dropped): its RFC 2119
   * keyword is {@link level} (conformance/test/levels.test.ts).
   */
  quote: string
  /** The stage of the flow the check judges; not reached, the check is skipped with the cause. */
  needs?: Stage
  /** The requirement, stated so a client author understands a failure. */
  text: string
  /** Whether the scenario is one this requirement is judged in. */
  appliesTo(s: ClientScenario): boolean
  /** Judges the run; throws CheckFailure or CheckSkipped (../../types.ts). */
  check(ctx: ClientCheckContext): void
}

/** Applies in every scenario. */
export const always = () => true
/** Applies in the scenarios named. */
export const only =
  (...names: string[]) =>
  (s: ClientScenario) =>
    names.includes(s.name)

/**
 * Applies except in the 2025-03-26 scenarios (`legacy`), where the checks of legacy.ts judge
 * discovery: a requirement MCP 2025-11-25 introduced (protected-resource metadata, the resource
 * parameter, scope selection) does not bind a client talking to a 2025-03-26 server.
 */
export const current =
  (applies: (s: ClientScenario) => boolean = always) =>
  (s: ClientScenario) =>
    s.legacy === undefined && applies(s)

/** MCP authorization, 2025-11-25, by section. */
export const MCP = (section: string) => `MCP authorization 2025-11-25 §${section}`

/** MCP 2026-07-28, by chapter file and section (`authorization §…`, `Streamable HTTP §…`). */
export const MCP26 = (section: string) => `MCP 2026-07-28 ${section}`

/** Applies in the scenarios of the current revision, 2026-07-28 (scenarios-2026.ts). */
export const current2026 =
  (applies: (s: ClientScenario) => boolean = always) =>
  (s: ClientScenario) =>
    s.revision === '2026-07-28' && applies(s)
