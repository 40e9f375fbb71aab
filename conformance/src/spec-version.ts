/**
 * `--spec-version <rev>`: which MCP revisions a run judges, in server and client mode alike.
 *
 * A requirement (server mode) or scenario (client mode) names the revisions whose rules it
 * follows (`specVersions`); one that names none follows rules every selectable revision shares
 * (an RFC, the seed, a gatehouse feature) and is judged in every run. A run judges what
 * {@link selectSpecVersions} selects:
 * - asked for (`--spec-version 2025-11-25`, repeatable or comma-separated): exactly those;
 * - else the latest final revision ({@link LATEST_FINAL_REVISION}) plus what the target
 *   announces (server mode: `server/discover`'s `supportedVersions` and the `protocolVersion`
 *   its `initialize` answers; client mode: what the client sends);
 * - when what the target speaks could not be learned: every selectable revision, said so in
 *   the selection's `note`, so nothing is dropped unseen.
 * A requirement or scenario the selection leaves out is skipped with {@link notJudgedReason}.
 */

/** The MCP revisions the suite knows, oldest first (final ones only). */
export const SPEC_REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const
/** One of {@link SPEC_REVISIONS}. */
export type SpecRevision = (typeof SPEC_REVISIONS)[number]

/** The latest final revision: judged by default. */
export const LATEST_FINAL_REVISION: SpecRevision = '2026-07-28'

/** What `--spec-version` accepts, newest first. */
export const SELECTABLE_REVISIONS: readonly SpecRevision[] = [
  '2026-07-28',
  '2025-11-25',
  '2025-03-26',
]

/** The handshake-era (legacy) revisions: `initialize`, sessions (MCP 2026-07-28 Versioning). */
export const LEGACY_REVISIONS: readonly SpecRevision[] = ['2025-03-26', '2025-06-18', '2025-11-25']

/** Whether `value` names a revision the suite knows. */
export function isSpecRevision(value: unknown): value is SpecRevision {
  return typeof value === 'string' && (SPEC_REVISIONS as readonly string[]).includes(value)
}

/**
 * Parses one `--spec-version` value (a revision or a comma-separated list) onto the ones given
 * before it: a commander argument parser.
 * @throws Error naming the unknown revision and the selectable ones
 */
export function parseSpecVersion(value: string, previous: SpecRevision[] = []): SpecRevision[] {
  const out = [...previous]
  for (const item of value.split(',').map((s) => s.trim())) {
    if (item === '') continue
    if (!(SELECTABLE_REVISIONS as readonly string[]).includes(item)) {
      throw new Error(
        `unknown MCP revision "${item}"; --spec-version takes ${SELECTABLE_REVISIONS.join(', ')}`,
      )
    }
    if (!out.includes(item as SpecRevision)) out.push(item as SpecRevision)
  }
  return out
}

/** What a run judges. */
export interface SpecSelection {
  /** The revisions judged, newest first. */
  readonly revisions: readonly SpecRevision[]
  /** Whether they were asked for (`--spec-version`) rather than chosen by default. */
  readonly asked: boolean
  /** How they were chosen, for the report's title. */
  readonly note: string
}

const newestFirst = (a: SpecRevision, b: SpecRevision) => (a < b ? 1 : a > b ? -1 : 0)

/**
 * The revisions a run judges.
 * @param asked - `--spec-version` values, if any
 * @param announced - the revisions the target announced; `undefined` when they could not be
 *   learned (then every selectable revision is judged)
 */
export function selectSpecVersions(
  asked: readonly SpecRevision[] | undefined,
  announced?: readonly string[],
): SpecSelection {
  if (asked && asked.length > 0) {
    const revisions = [...new Set(asked)].sort(newestFirst)
    return { revisions, asked: true, note: `MCP ${revisions.join(', ')} (--spec-version)` }
  }
  if (announced === undefined) {
    return {
      revisions: [...SELECTABLE_REVISIONS],
      asked: false,
      note: `MCP ${SELECTABLE_REVISIONS.join(', ')} (what the target speaks could not be learned)`,
    }
  }
  const spoken = announced.filter(isSpecRevision)
  const revisions = [...new Set<SpecRevision>([LATEST_FINAL_REVISION, ...spoken])].sort(newestFirst)
  return {
    revisions,
    asked: false,
    note: `MCP ${revisions.join(', ')} (the latest final revision${spoken.length > 0 ? ' and what the target announces' : '; the target announced none the suite knows'})`,
  }
}

/**
 * Whether a requirement or scenario following `specVersions` is judged in `selection`: one that
 * names none is revision-independent and always is.
 */
export function isJudged(
  selection: SpecSelection,
  specVersions: readonly SpecRevision[] | undefined,
): boolean {
  return specVersions === undefined || specVersions.some((v) => selection.revisions.includes(v))
}

/** Why a requirement or scenario following `specVersions` is not judged, for its skip message. */
export function notJudgedReason(
  selection: SpecSelection,
  specVersions: readonly SpecRevision[],
): string {
  return `not judged: it follows MCP ${specVersions.join(', ')}; this run judges ${selection.note}`
}
