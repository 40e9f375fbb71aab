/**
 * Which MCP revisions a client-mode run judges (`client --spec-version <rev>`). Each scenario
 * follows one revision's rules (`ClientScenario.revision`); a run selects scenarios by revision:
 *
 * - default: the current revision, 2026-07-28, plus 2025-11-25 back-compat (what clients in the
 *   field speak);
 * - `--spec-version 2025-03-26` (or a 2025-03-26 scenario named with `--scenario`): the
 *   2025-03-26 back-compat scenarios, which the official suite's `auth` suite leaves out, so a
 *   2025-11-25 client is never failed for them unless they were asked for.
 */

/** The MCP revisions a client-mode scenario can follow, oldest first. */
export const SPEC_REVISIONS = ['2025-03-26', '2025-11-25', '2026-07-28'] as const

/** An MCP revision a client-mode scenario follows. */
export type SpecRevision = (typeof SPEC_REVISIONS)[number]

/** The current (latest final) MCP revision. */
export const CURRENT_REVISION: SpecRevision = '2026-07-28'

/** The revisions judged when `--spec-version` is not given. */
export const DEFAULT_REVISIONS: readonly SpecRevision[] = ['2026-07-28', '2025-11-25']

/** Whether `v` names a revision the client mode knows. */
export function isSpecRevision(v: string): v is SpecRevision {
  return (SPEC_REVISIONS as readonly string[]).includes(v)
}

/**
 * The scenarios a run judges: those named (`--scenario`), else every scenario of the revisions
 * asked for (`--spec-version`, default {@link DEFAULT_REVISIONS}). Named and revisions together:
 * the named scenarios of those revisions.
 */
export function selectScenarios<S extends { name: string; revision: SpecRevision }>(
  all: readonly S[],
  options: { names?: readonly string[]; revisions?: readonly SpecRevision[] },
): S[] {
  const revisions = options.revisions ?? (options.names ? undefined : DEFAULT_REVISIONS)
  return all.filter(
    (s) =>
      (!options.names || options.names.includes(s.name)) &&
      (!revisions || revisions.includes(s.revision)),
  )
}
