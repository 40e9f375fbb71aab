import { get } from 'node:http'
import { describe, expect, it } from 'vitest'
import { logsWith, startAdminGatehouse, startBackend } from './helpers.js'

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}

describe('POST /quitquitquit', () => {
  it('answers 200, then drains an in-flight request before the proxy reports stopped', async () => {
    const backend = await startBackend()
    const gh = await startAdminGatehouse(backend.port)
    try {
      const order: string[] = []
      void gh.stopped.then((reason) => order.push(`stopped:${reason}`))
      // `agent: false` sends `Connection: close`, so the connection ends with the response
      // (an idle keep-alive connection would hold the drain until its deadline).
      const slow = new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
        get(`${gh.url}/mcp/slow`, { agent: false }, (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => (body += c))
          res.on('end', () => {
            order.push('slow answered')
            resolve({ status: res.statusCode, body })
          })
        }).on('error', reject)
      })
      await backend.slowArrived()

      const quit = await fetch(`${gh.admin}/quitquitquit`, { method: 'POST' })
      expect(quit.status).toBe(200)
      expect(await quit.text()).toContain('shutting down')
      await until(() => logsWith(gh.logs, 'shutting down').length > 0)
      expect(order).toEqual([])

      backend.release()
      expect(await slow).toEqual({ status: 200, body: 'slow done' })
      expect(await gh.stopped).toBe('quitquitquit')
      expect(order).toContain('slow answered')
      await expect(fetch(`${gh.admin}/memory`)).rejects.toThrow()
    } finally {
      await gh.stop()
      await backend.close()
    }
  })
})
