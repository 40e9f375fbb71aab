import { createServer, type Server } from 'node:http'
import { Client, Pool } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { SlotSafeClient } from '../../src/http/upstream.js'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((r) => server?.close(r))
})

async function origin(): Promise<string> {
  server = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

/** Requests undici refuses before sending (it does not send Expect), then one it sends. */
async function refusedThenValid(pool: Pool): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await expect(
      pool.request({ path: '/', method: 'GET', headers: { expect: '100-continue' } }),
    ).rejects.toMatchObject({ code: 'UND_ERR_NOT_SUPPORTED' })
  }
  const res = await pool.request({ path: '/', method: 'GET', signal: AbortSignal.timeout(3000) })
  await res.body.text()
  return res.statusCode
}

describe('SlotSafeClient', () => {
  it('keeps a pool slot free after undici refuses a request before sending it', async () => {
    const pool = new Pool(await origin(), {
      connections: 1,
      factory: (url, opts) => new SlotSafeClient(url, opts),
    })
    expect(await refusedThenValid(pool)).toBe(200)
    await pool.destroy()
  })

  it('is needed: undici’s own client loses the slot (the defect it works around)', async () => {
    const pool = new Pool(await origin(), {
      connections: 1,
      factory: (url, opts) => new Client(url, opts),
    })
    const outcome = refusedThenValid(pool).catch((err: Error) => err.message)
    const hung = new Promise((r) => setTimeout(() => r('still queued after 1 s'), 1000))
    expect(await Promise.race([outcome, hung])).toBe('still queued after 1 s')
    await pool.destroy()
    await outcome
  })
})
