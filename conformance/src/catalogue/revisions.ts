/**
 * Which MCP revisions the checks written before `--spec-version` follow (spec-version.ts):
 * a requirement that sets `specVersions` itself keeps it; these get theirs here; the rest follow
 * rules every selectable revision shares (RFCs, the seed, gatehouse features) and are judged in
 * every run.
 */
import { LEGACY_REVISIONS, type SpecRevision } from '../spec-version.js'
import type { Requirement } from '../types.js'

/** Protected-resource metadata (RFC 9728) entered MCP authorization in 2025-06-18. */
const SINCE_2025_06_18: readonly SpecRevision[] = ['2025-06-18', '2025-11-25', '2026-07-28']

/**
 * Checks whose traffic and rules are the handshake era's: `initialize` and `Mcp-Session-Id`
 * (TRN-001…005, TRN-050, the MCP policy through SDK sessions, MCPP-001…004), the GET stream and
 * `Last-Event-ID`
 * (TRN-006, TRN-007) — all removed in 2026-07-28 (Streamable HTTP, "Earlier Streamable HTTP
 * Revisions"); their 2026-07-28 counterparts are MOD-* (modern.ts). MCPP-005 is not among them:
 * the header rule it quotes is 2026-07-28's, which the gateway applies to the headers of a
 * 2025-11-25 session too.
 */
const LEGACY_IDS = [
  'TRN-001',
  'TRN-002',
  'TRN-003',
  'TRN-004',
  'TRN-005',
  'TRN-006',
  'TRN-007',
  'TRN-050',
  'MCPP-001',
  'MCPP-002',
  'MCPP-003',
  'MCPP-004',
]

/** Requirements with their revisions, by ID. */
export const SPEC_VERSIONS_BY_ID: Readonly<Record<string, readonly SpecRevision[]>> = {
  ...Object.fromEntries(LEGACY_IDS.map((id) => [id, LEGACY_REVISIONS])),
  ...Object.fromEntries(
    ['PRM-001', 'PRM-002', 'PRM-003', 'PRM-004', 'PRM-005', 'PRM-006'].map((id) => [
      id,
      SINCE_2025_06_18,
    ]),
  ),
}

/** `r` with the revisions it follows: its own, or those of {@link SPEC_VERSIONS_BY_ID}. */
export function withSpecVersions(r: Requirement): Requirement {
  const listed = SPEC_VERSIONS_BY_ID[r.id]
  return r.specVersions || !listed ? r : { ...r, specVersions: listed }
}
