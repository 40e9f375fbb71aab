/**
 * Proof of power of the client mode, with real parts only (mock-idp, gatehouse, mcp-backend, real
 * client processes): the official MCP TypeScript SDK client and a hand-written client pass every
 * scenario, and the hand-written client with one planted fault is caught, each time by the check
 * that names that mistake — as the mutants prove the server catalogue can fail.
 */
import { join } from 'node:path'
import { fastCommand } from '@gatehouse/support/script-bundle'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runOnStack, type ScenarioReport } from '../../src/client/run.js'
import { startScenarioStack } from '../../src/client/scenario-stack.js'
import { type ClientScenario, SCENARIOS } from '../../src/client/scenarios.js'
import { ROOT } from '../../src/stack.js'
import { CAUGHT_BY } from './clients/faults.js'

const TSX = join(ROOT, 'node_modules/.bin/tsx')
// Started from bundles of their sources (support/src/script-bundle.ts): the same code, on a
// quarter of tsx's CPU per start, for the some 130 client runs of this file.
const SDK = await fastCommand(
  `${TSX} ${join(ROOT, 'conformance/src/client/examples/sdk-client.ts')}`,
  ROOT,
)
const HAND = await fastCommand(
  `${TSX} ${join(ROOT, 'conformance/test/client/clients/hand-client.ts')}`,
  ROOT,
)

/** Checks that must have been judged (passed), not skipped, for a run to count as a pass. */
const JUDGED: Record<string, string[]> = {
  'no-resource-metadata': ['CLI-PRM-002'],
  'scope-step-up': ['CLI-STEP-001'],
  'runtime-step-up': ['CLI-STEP-001', 'CLI-FLOW-003'],
  'scope-retry-limit': ['CLI-STEP-001', 'CLI-STEP-002'],
  'prm-named-url-only': ['CLI-PRM-001', 'CLI-PRM-003'],
  'token-refresh': ['CLI-REFRESH-001', 'CLI-FLOW-004'],
  'key-rotation': ['CLI-REFRESH-001'],
  'pre-registered': ['CLI-REG-002', 'CLI-REG-004'],
  'idp-issuer-trailing-slash': ['CLI-ASM-001', 'CLI-REG-002'],
  'idp-endpoints-on-other-hosts': ['CLI-ASM-002', 'CLI-ASM-003', 'CLI-PKCE-002', 'CLI-REG-002'],
  cimd: ['CLI-REG-003'],
  'forged-state': ['CLI-STATE-002'],
  'wrong-iss': ['CLI-ISS-001'],
  'issuer-mismatch': ['CLI-ISS-002', 'CLI-FLOW-002'],
  'resource-mismatch': ['CLI-RES-002', 'CLI-FLOW-002'],
  'token-endpoint-auth-basic': ['CLI-AUTHN-001', 'CLI-AUTHN-003'],
  'token-endpoint-auth-post': ['CLI-AUTHN-001', 'CLI-AUTHN-003'],
  'token-endpoint-auth-none': ['CLI-AUTHN-002'],
  'legacy-metadata': ['CLI-LEGACY-001'],
  'legacy-defaults': ['CLI-LEGACY-002', 'CLI-LEGACY-003'],
  'request-metadata': [
    'CLI-META-001',
    'CLI-META-002',
    'CLI-META-003',
    'CLI-META-004',
    'CLI-REG-005',
    'CLI-REG-006',
  ],
  'iss-missing': ['CLI-ISS-003'],
  'iss-wrong-issuer': ['CLI-ISS-004'],
  'iss-unadvertised': ['CLI-ISS-004'],
  'as-migration': ['CLI-BIND-001', 'CLI-BIND-002'],
  'offline-access-oidc': ['CLI-REFRESH-001', 'CLI-REFRESH-002'],
  'cimd-preferred': ['CLI-REG-003'],
}

/**
 * The scenarios run here: every one, or (while working on a few) those GATEHOUSE_CLIENT_SCENARIOS
 * names, comma-separated — a full run takes minutes.
 */
const NAMED = process.env.GATEHOUSE_CLIENT_SCENARIOS?.split(',')
/** The scenarios "the judgement" below reads, run whatever is named. */
const JUDGEMENT = ['issuer-mismatch', 'runtime-step-up', 'iss-missing']
const RUN = NAMED
  ? SCENARIOS.filter((s) => NAMED.includes(s.name) || JUDGEMENT.includes(s.name))
  : SCENARIOS

/**
 * Which client runs where: the SDK 1.x example speaks 2025-11-25 (it has no 2026-07-28 era), so it
 * runs the 2025 scenarios; the hand-written client speaks 2026-07-28 when the scenario tells it
 * that revision (MCP_CONFORMANCE_PROTOCOL_VERSION), so it runs every scenario.
 */
const CLEAN: ReadonlyArray<{ client: string; runs: (s: ClientScenario) => boolean }> = [
  { client: 'sdk', runs: (s) => s.revision !== '2026-07-28' },
  { client: 'hand', runs: () => true },
]

/** Where the hand client also runs probing each authorization URL first (as mcp-remote does). */
const PROBED = 'runtime-step-up'

/**
 * A client's time limit here: generous, so a loaded machine cannot fail a correct client (the
 * runs take a few seconds); only the hanging client is meant to reach its (short) limit.
 */
const LIVENESS = 90_000

const reports = new Map<string, ScenarioReport>()
const key = (client: string, scenario: string) => `${client}@${scenario}`

function report(client: string, scenario: string): ScenarioReport {
  const r = reports.get(key(client, scenario))
  if (!r) throw new Error(`no run of ${client} in ${scenario}`)
  return r
}

const failed = (r: ScenarioReport) =>
  r.results.filter((x) => x.status === 'failed').map((x) => `${x.id}: ${x.message}`)

beforeAll(async () => {
  // Each scenario's stack serves its runs one after another; three stacks at a time.
  let next = 0
  let booting: Promise<void> = Promise.resolve()
  const worker = async () => {
    while (next < RUN.length) {
      const scenario = RUN[next++]
      if (!scenario) return
      const jobs = [
        ...CLEAN.filter((c) => c.runs(scenario)).map((c) => ({
          client: c.client,
          command: c.client === 'sdk' ? SDK : HAND,
          timeoutMs: LIVENESS,
        })),
        ...(scenario.name === PROBED
          ? [{ client: 'probe', command: `${HAND} --probe-authorization`, timeoutMs: LIVENESS }]
          : []),
        ...Object.entries(CAUGHT_BY)
          .filter(([, c]) => c.scenario === scenario.name)
          .map(([fault]) => ({
            client: fault,
            command: `${HAND} --fault ${fault}`,
            timeoutMs: fault === 'hang-on-refusal' ? 5_000 : LIVENESS,
          })),
      ]
      // One stack boots at a time (the others' runs go on): three gatehouse processes starting
      // together on a loaded 2-core machine can each miss the harness's start limit.
      const start = booting.then(() => startScenarioStack(scenario))
      booting = start.then(
        () => undefined,
        () => undefined,
      )
      const stack = await start
      try {
        for (const job of jobs) {
          reports.set(key(job.client, scenario.name), await runOnStack(stack, job.command, job))
        }
      } finally {
        await stack.stop()
      }
    }
  }
  await Promise.all([worker(), worker(), worker()])
}, 600_000)

afterAll(() => {
  reports.clear()
})

describe.each([
  ['sdk', 'the official MCP TypeScript SDK 1.x client (src/client/examples/sdk-client.ts)'],
  ['hand', 'the hand-written client without a fault (2026-07-28 where told so)'],
])('%s: %s', (client) => {
  const runs = CLEAN.find((c) => c.client === client)?.runs ?? (() => false)
  it.each(RUN.filter(runs).map((s) => s.name))('passes %s', (scenario) => {
    const r = report(client, scenario)
    expect(failed(r), r.run.stderr).toEqual([])
    for (const id of JUDGED[scenario] ?? []) {
      expect(r.results.find((x) => x.id === id)?.status, `${id} judged`).toBe('passed')
    }
  })
})

describe('the hand-written client with one planted fault', () => {
  const ran = new Set(RUN.map((s) => s.name))
  it.each(Object.entries(CAUGHT_BY).filter(([, c]) => ran.has(c.scenario)))(
    '%s is caught by the check that names it',
    (fault, c) => {
      const r = report(fault, c.scenario)
      const caught = r.results.find((x) => x.id === c.id)
      expect(caught?.status, `${c.id} in ${c.scenario}; failed: ${failed(r).join('; ')}`).toBe(
        'failed',
      )
      expect(caught?.evidence ?? c.id.startsWith('CLI-FLOW'), 'evidence shown').toBeTruthy()
    },
  )
})

describe('the judgement', () => {
  it.each(['sdk', 'hand'])(
    '%s: a refusal the spec demands skips what it never reached, with the cause once, and fails nothing',
    (client) => {
      const r = report(client, 'issuer-mismatch')
      expect(failed(r)).toEqual([])
      const skipped = r.results.filter((x) => x.message?.startsWith('not reached: '))
      expect(skipped.map((x) => x.id)).toEqual(
        expect.arrayContaining(['CLI-PKCE-001', 'CLI-RES-001', 'CLI-REG-001', 'CLI-SCOPE-001']),
      )
      expect(new Set(skipped.map((x) => x.message)).size).toBe(1)
      expect(skipped[0]?.message).toMatch(/RFC 8414 §3\.3.*conformant refusal/)
    },
  )

  it('hand (2026-07-28): refusing an authorization response without the iss the server advertises is a conformant refusal, not a failure', () => {
    const r = report('hand', 'iss-missing')
    expect(failed(r)).toEqual([])
    expect(r.results.find((x) => x.id === 'CLI-ISS-003')?.status).toBe('passed')
    const skipped = r.results.filter((x) => x.message?.startsWith('not reached: '))
    expect(skipped.map((x) => x.id)).toEqual(expect.arrayContaining(['CLI-TOKEN-001']))
    expect(skipped[0]?.message).toMatch(/without iss .*Reject the response.*conformant refusal/)
  })

  it('a client that proceeds with the mismatched metadata is judged on every stage it reached', () => {
    const r = report('no-issuer-check', 'issuer-mismatch')
    expect(r.results.find((x) => x.id === 'CLI-PKCE-001')?.status).toBe('passed')
    expect(failed(r).map((f) => f.split(':')[0])).toEqual(['CLI-ISS-002'])
  })

  it('an authorization request sent twice byte for byte (a probe, then the browser) is one request, not state or challenge reuse', () => {
    const r = report('probe', PROBED)
    expect(failed(r)).toEqual([])
    for (const id of ['CLI-STATE-001', 'CLI-PKCE-002'])
      expect(r.results.find((x) => x.id === id)?.status, id).toBe('passed')
    // The probe really happened: every authorization URL was requested twice.
    const authorize = r.log.filter((e) => /\/v1\/authorize\?/.test(e.url))
    expect(authorize.length).toBeGreaterThanOrEqual(4)
  })

  it('never shows a token, code or secret in evidence', () => {
    const issued = [...reports.values()].flatMap((r) =>
      r.results.flatMap((x) => (x.evidence ? [JSON.stringify(x.evidence)] : [])),
    )
    expect(issued.length).toBeGreaterThan(5)
    for (const text of issued) {
      expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/)
      expect(text).not.toMatch(/[?&]code=[^&\s"[]/)
      expect(text).not.toContain('pre-registered-secret')
    }
  })
})
