/** The runner and reports, on a tiny catalogue against a real local HTTP server. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sendJson } from '@gatehouse/support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleReport, jsonReport, junitReport } from '../src/report.js'
import { parseBaseline, runChecks, summarize } from '../src/runner.js'
import { selectSpecVersions } from '../src/spec-version.js'
import { CheckSkipped, must, type Requirement, type Target } from '../src/types.js'
import { plainTarget } from './helpers.js'

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'
const API_KEY = 'k-live-api-key-4242'

let server: Server
let target: Target

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/token')) {
      sendJson(
        res,
        400,
        { access_token: JWT, refresh_token: 'r-opaque-1', token_type: 'Bearer' },
        { 'x-api-key': API_KEY },
      )
      return
    }
    res.writeHead(req.url === '/ok' ? 200 : 401, {
      'www-authenticate': 'Bearer realm="x"',
      'content-type': 'text/plain',
    })
    res.end(req.url === '/ok' ? 'fine' : 'no token here')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  target = plainTarget(base)
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const req = (
  id: string,
  path: string,
  want: number,
  extra: Partial<Requirement> = {},
): Requirement => ({
  id,
  level: 'MUST',
  profile: 'core',
  source: 'test',
  text: `GET ${path} answers ${want}`,
  async check(ctx) {
    const res = await ctx.http(`${ctx.target.base}${path}`, {
      headers: { authorization: 'Bearer secret-value' },
    })
    must(res.status === want, `${want}`, `${res.status}`)
  },
  ...extra,
})

const catalogue: Requirement[] = [
  req('T-001', '/ok', 200),
  req('T-002', '/nope', 200),
  req('T-003', '/ok', 200, {
    async check() {
      throw new CheckSkipped('not offered')
    },
  }),
  req('T-004', '/ok', 200, { last: true, profile: 'admin' }),
]

describe('runner', () => {
  it('passes, fails with evidence, skips, and runs `last` requirements at the end', async () => {
    const results = await runChecks(target, { catalogue })
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['T-001', 'passed'],
      ['T-002', 'failed'],
      ['T-003', 'skipped'],
      ['T-004', 'passed'],
    ])
    const failed = results[1]
    expect(failed?.message).toBe('expected 200; got 401')
    expect(failed?.evidence).toMatchObject({
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="x"' },
    })
    expect(JSON.stringify(failed?.evidence)).not.toContain('secret-value')
    expect(summarize(results)).toEqual({ passed: 2, failed: 1, skipped: 1, mustFailed: 1 })
  })

  it('selects by profile, --only and --skip', async () => {
    const results = await runChecks(target, { catalogue, profiles: ['core'], skip: ['T-002'] })
    expect(results.filter((r) => r.status !== 'skipped').map((r) => r.id)).toEqual(['T-001'])
    const only = await runChecks(target, { catalogue, only: ['T-004'] })
    expect(only.filter((r) => r.status === 'passed').map((r) => r.id)).toEqual(['T-004'])
  })

  it('counts only the selected requirements: those --only leaves out are not "skipped" in the summary', async () => {
    const only = await runChecks(target, { catalogue, only: ['T-004'] })
    expect(only.length).toBeGreaterThan(1)
    expect(summarize(only)).toEqual({ passed: 1, failed: 0, skipped: 0, mustFailed: 0 })
    expect(consoleReport(only, 'only').split('\n').at(-1)).toBe('1 passed, 0 failed, 0 skipped')
  })

  it('judges only what --spec-version selects, skipping the rest with the reason', async () => {
    const tagged = [
      req('V-001', '/ok', 200, { specVersions: ['2025-11-25'] }),
      req('V-002', '/ok', 200, { specVersions: ['2026-07-28'] }),
      req('V-003', '/ok', 200),
    ]
    const results = await runChecks(target, {
      catalogue: tagged,
      specSelection: selectSpecVersions(['2026-07-28']),
    })
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['V-001', 'skipped'],
      ['V-002', 'passed'],
      ['V-003', 'passed'],
    ])
    expect(results[0]?.message).toBe(
      'not judged: it follows MCP 2025-11-25; this run judges MCP 2026-07-28 (--spec-version)',
    )
    const all = await runChecks(target, { catalogue: tagged })
    expect(all.every((r) => r.status === 'passed')).toBe(true)
  })

  it('applies a baseline: a listed failure passes the run, a listed pass is reported stale', async () => {
    const baseline = parseBaseline('# known\nT-002  # not yet\nT-001\n')
    const results = await runChecks(target, { catalogue, baseline })
    expect(results.find((r) => r.id === 'T-002')?.baseline).toBe('expected-failure')
    expect(results.find((r) => r.id === 'T-001')?.baseline).toBe('stale')
    expect(summarize(results).mustFailed).toBe(0)
  })
})

describe('evidence', () => {
  it('carries no credential: authorization in any shape, API keys, token members and JWTs', async () => {
    const shapes = [JWT, `Bearer\t${JWT}`, `Bearer,${JWT}`, 'Bearer,opaque-token-0123456789']
    for (const authorization of shapes) {
      const [result] = await runChecks(target, {
        catalogue: [
          req('E-001', '/token', 200, {
            async check(ctx) {
              const res = await ctx.http(
                `${ctx.target.base}/token?code=auth-code-1&access_token=${JWT}&state=s1`,
                { headers: { authorization, 'X-Api-Key': API_KEY } },
              )
              must(res.status === 200, '200', `${res.status}`)
            },
          }),
        ],
      })
      const evidence = JSON.stringify(result?.evidence)
      const report = consoleReport(result ? [result] : [], 'test')
      for (const text of [evidence, report, result?.message ?? '']) {
        for (const secret of [JWT.split('.')[2] as string, 'opaque-token', API_KEY, 'auth-code-1'])
          expect(text, authorization).not.toContain(secret)
        expect(text).not.toContain('r-opaque-1')
      }
      expect(result?.evidence?.url).toContain('state=s1')
    }
  })
})

describe('reports', () => {
  it('ends the console report with the summary line and shows evidence for failures', async () => {
    const results = await runChecks(target, { catalogue })
    const text = consoleReport(results, 'test')
    expect(text.split('\n').at(-1)).toBe('2 passed, 1 failed, 1 skipped')
    expect(text).toContain('FAIL T-002')
    expect(text).toContain('evidence: GET')
    expect(text).toContain('www-authenticate: Bearer realm="x"')
  })

  it('writes JUnit XML with failures and skips, and JSON with the summary', async () => {
    const results = await runChecks(target, { catalogue })
    const xml = junitReport(results)
    expect(xml).toContain('<testsuite name="core" tests="3" failures="1" skipped="1">')
    expect(xml).toContain('<failure message="expected 200; got 401">')
    const json = JSON.parse(jsonReport(results, { base: target.base })) as {
      summary: { failed: number }
    }
    expect(json.summary.failed).toBe(1)
  })
})
