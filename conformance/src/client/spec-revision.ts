/**
 * Which client-mode scenarios a run judges (`client --spec-version <rev>`), over the suite's one
 * revision vocabulary (../spec-version.ts). Each scenario follows one revision's rules
 * (`ClientScenario.revision`); a run selects scenarios by revision:
 *
 * - default: the latest final revision, 2026-07-28, plus 2025-11-25 back-compat (what clients in
 *   the field speak; what a client speaks is learned only by running it, so the default cannot
 *   follow the client as the server mode follows what a target announces);
 * - `--spec-version 2025-03-26` (or a 2025-03-26 scenario named with `--scenario`): the
 *   2025-03-26 back-compat scenarios, which the official suite's `auth` suite leaves out, so a
 *   2025-11-25 client is never failed for them unless they were asked for.
 */
import { LATEST_FINAL_REVISION, type SpecRevision } from '../spec-version.js'

export type { SpecRevision } from '../spec-version.js'

/** The revisions judged when `--spec-version` is not given. */
export const DEFAULT_REVISIONS: readonly SpecRevision[] = [LATEST_FINAL_REVISION, '2025-11-25']

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
