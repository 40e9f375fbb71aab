/**
 * The runner when the wire itself fails: no answer at all, or an answer whose body breaks off
 * after the headers. A real server cannot be made to do the second on demand, so both are
 * produced with msw, which intercepts the runner's `fetch`; everything else in this suite talks
 * to real servers.
 */
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consoleReport } from '../src/report.js'
import { runChecks, summarize } from '../src/runner.js'
import { must, type Requirement } from '../src/types.js'
import { plainTarget } from './helpers.js'

const BASE = 'http://gateway.msw.test'

const wire = setupServer(
  http.get(`${BASE}/reset`, () => HttpResponse.error()),
  http.get(`${BASE}/broken-body`, () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"resource":'))
        controller.error(new Error('connection reset by peer'))
      },
    })
    return new HttpResponse(body, { status: 200, headers: { 'content-type': 'application/json' } })
  }),
  http.get(`${BASE}/ok`, () => HttpResponse.json({ ok: true })),
)

beforeAll(() => wire.listen({ onUnhandledRequest: 'error' }))
afterAll(() => wire.close())

const target = plainTarget(BASE)

const get = (id: string, path: string): Requirement => ({
  id,
  level: 'MUST',
  profile: 'core',
  source: 'test',
  text: `GET ${path} answers 200`,
  async check(ctx) {
    const res = await ctx.http(`${ctx.target.base}${path}`, {
      headers: { authorization: 'Bearer secret-value' },
    })
    must(res.status === 200, '200', `${res.status}`)
  },
})

describe('runner on a failing wire', () => {
  it('fails a check that gets no answer, with the request as evidence, and goes on', async () => {
    const results = await runChecks(target, {
      catalogue: [get('W-001', '/reset'), get('W-002', '/ok')],
    })
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['W-001', 'failed'],
      ['W-002', 'passed'],
    ])
    const failed = results[0]
    expect(failed?.message).toMatch(
      /^expected an answer to GET http:\/\/gateway\.msw\.test\/reset; got /,
    )
    expect(failed?.evidence).toMatchObject({
      method: 'GET',
      url: `${BASE}/reset`,
      status: 0,
      requestHeaders: { authorization: 'Bearer [redacted]' },
    })
    expect(failed?.evidence?.networkError).toBeTruthy()
    const text = consoleReport(results, 'msw')
    expect(text).toContain(`evidence: GET ${BASE}/reset → no answer`)
    expect(text).toContain('network: ')
    expect(summarize(results).mustFailed).toBe(1)
  })

  it('fails a check whose answer breaks off mid-body, keeping the status and headers it saw', async () => {
    const [result] = await runChecks(target, { catalogue: [get('W-003', '/broken-body')] })
    expect(result?.status).toBe('failed')
    expect(result?.message).toMatch(
      /^expected a whole answer to GET .*\/broken-body; got the body broke off: /,
    )
    expect(result?.evidence).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/json' },
    })
    expect(result?.evidence?.networkError).toContain('connection reset by peer')
  })
})
