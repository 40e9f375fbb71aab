/**
 * Seeded faults for the conformance suite's mutation check (`npm run conformance:mutants`).
 *
 * A fault set is passed only programmatically to `startGatehouse({ faults })`. The configuration
 * schema has no field for it and the `gatehouse` binary never passes one: only the test-only entry
 * `proxy/test/mutants/gatehouse-mutant.ts` does, so production configuration cannot reach a fault.
 */

/** Every seeded fault, each a single wrong behaviour the conformance suite must catch. */
export const FAULTS = [
  // auth/
  'no-www-authenticate',
  'resource-metadata-from-host',
  'skip-aud-check',
  'skip-iss-check',
  'accept-expired',
  'skip-signature',
  'fail-open-no-keys',
  'token-in-query',
  'forbidden-as-401',
  'cel-error-allows',
  'no-audience-param',
  'registration-endpoint-not-rewritten',
  'registration-to-issuer',
  'ignore-client-id',
  'prm-authorization-servers-idp',
  // dataplane/
  'no-cors-on-deny',
  'preflight-after-auth',
  'cors-wildcard-with-credentials',
  'drop-session-id',
  'buffer-sse',
  // admin/
  'admin-bind-all',
  'secrets-in-config-dump',
  'trace-not-sse',
  'profile-range-unchecked',
  'logging-ignores-level',
] as const

/** One of {@link FAULTS}. */
export type Fault = (typeof FAULTS)[number]

/** The set of faults switched on. */
export interface FaultSet {
  has(fault: Fault): boolean
}

/** No fault: what production always runs with. */
export const NO_FAULTS: FaultSet = Object.freeze({ has: () => false })

/** A fault set from names. @throws TypeError naming an unknown fault. */
export function faultSet(names: readonly string[]): FaultSet {
  for (const n of names) {
    if (!(FAULTS as readonly string[]).includes(n)) {
      throw new TypeError(`unknown fault "${n}"; known: ${FAULTS.join(', ')}`)
    }
  }
  const set = new Set(names)
  return Object.freeze({ has: (f: Fault) => set.has(f) })
}
