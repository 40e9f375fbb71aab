import { describe, expect, it } from 'vitest'
import { sequenceSvg } from '../../../src/report/html/sequence.js'
import {
  endOf,
  type ScenarioTraffic,
  trafficDiagram,
} from '../../../src/report/html/traffic-diagram.js'
import type { ReportRow } from '../../../src/types.js'
import { CODE, flow, JWT, REFRESH, SECRET } from './fixtures.js'

const row = (
  id: string,
  status: ReportRow['status'],
  extra: Partial<ReportRow> = {},
): ReportRow => ({
  id,
  level: 'MUST',
  profile: 'bridged-client-id',
  source: 's',
  text: 't',
  status,
  durationMs: 0,
  ...extra,
})

function traffic(over: Partial<ScenarioTraffic> = {}): ScenarioTraffic {
  return {
    scenario: 'bridged-client-id',
    run: { exitCode: 1, signal: null, timedOut: false, durationMs: 2345 },
    results: [
      row('CLI-TOKEN-001', 'failed'),
      row('CLI-FLOW-001', 'failed'),
      row('CLI-PKCE-001', 'passed'),
      row('CLI-REDIR-001', 'skipped', { message: 'not reached: x' }),
    ],
    traffic: flow(),
    failingSteps: { 'CLI-TOKEN-001': 6 },
    ...over,
  }
}

describe('trafficDiagram', () => {
  it('shows no credential of the recording: tokens, codes, secrets, in headers, query or body', () => {
    const svg = sequenceSvg(trafficDiagram(traffic()))
    for (const secret of [JWT, REFRESH, SECRET, CODE, JWT.split('.')[1] as string])
      expect(svg).not.toContain(secret)
    const six = trafficDiagram(traffic()).steps[5]
    expect(six?.path).toBe('/mcp?access_token=[redacted]')
  })

  it('says what each request is: its JSON-RPC method, its grant type, the scheme of its credentials (only)', () => {
    const steps = trafficDiagram(traffic()).steps
    expect(steps.map((s) => s.detail)).toEqual([
      'initialize',
      undefined,
      undefined,
      'grant_type=authorization_code · auth: Basic',
      'tools/list · auth: Bearer',
      'tools/call',
      undefined,
    ])
    expect(steps.map((s) => s.to)).toEqual([
      'gateway',
      'gateway',
      'idp',
      'idp',
      'gateway',
      'gateway',
      'gateway',
    ])
    expect(steps[2]?.note).toBe('iss as the gateway')
  })

  it("shows the host of a request to another of the IdP's hosts (its token host), the lane's by path only", () => {
    const entries = flow()
    const token = entries[3]
    if (!token) throw new Error('no token request in the fixture')
    token.url = new URL('http://127.0.0.1:9301/token')
    const steps = trafficDiagram(traffic({ traffic: entries })).steps
    expect(steps[3]?.path).toBe('http://127.0.0.1:9301/token')
    expect(steps[2]?.path).toMatch(/^\/authorize\?/)
  })

  it("marks the step a failure's evidence is, and puts a failure no request shows on the client's end", () => {
    const d = trafficDiagram(traffic())
    expect(
      d.steps.filter((s) => s.marks.length).map((s) => [s.seq, s.marks.map((m) => m.id)]),
    ).toEqual([[6, ['CLI-TOKEN-001']]])
    expect(d.end?.marks.map((m) => m.id)).toEqual(['CLI-FLOW-001'])
    expect(d.end?.text).toBe('exit 1 after 2.3 s')
  })

  it('marks only failures: a passed or skipped requirement named in failingSteps is not highlighted', () => {
    const d = trafficDiagram(
      traffic({ failingSteps: { 'CLI-PKCE-001': 3, 'CLI-REDIR-001': 4, 'CLI-TOKEN-001': 6 } }),
    )
    expect(d.steps.filter((s) => s.marks.length).map((s) => s.seq)).toEqual([6])
  })

  it('marks a baseline-listed failure as expected', () => {
    const d = trafficDiagram(
      traffic({
        results: [
          row('CLI-TOKEN-001', 'failed', { baseline: 'expected-failure', level: 'SHOULD' }),
        ],
      }),
    )
    expect(d.steps[5]?.marks).toEqual([{ id: 'CLI-TOKEN-001', level: 'SHOULD', expected: true }])
  })

  it('names the lanes by the origins the client addressed', () => {
    expect(trafficDiagram(traffic()).origins).toEqual({
      gateway: 'http://127.0.0.1:41001',
      idp: 'http://127.0.0.1:41002',
    })
  })
})

describe('endOf', () => {
  const run = { exitCode: null, signal: null, timedOut: false, durationMs: 30_000 }
  it('says how a run ended: exit code, time limit, signal, or that it never ran', () => {
    expect(endOf({ run: { ...run, exitCode: 0, durationMs: 1234 } })).toBe('exit 0 after 1.2 s')
    expect(endOf({ run: { ...run, timedOut: true, signal: 'SIGTERM' } })).toBe(
      'timed out after 30.0 s',
    )
    expect(endOf({ run: { ...run, signal: 'SIGKILL' } })).toBe('ended by SIGKILL after 30.0 s')
    expect(endOf({ run, error: 'its stack did not start: EADDRINUSE' })).toBe(
      'not run: its stack did not start: EADDRINUSE',
    )
  })
})
