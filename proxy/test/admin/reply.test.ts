import Fastify from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { sendJsonError, sendTextError } from '../../src/admin/reply.js'

describe('admin error replies', () => {
  const app = Fastify()
  app.get('/text', (_request, reply) => sendTextError(reply, 'GW_ERR_ADMIN_BUSY', 'busy'))
  app.get('/json', (_request, reply) =>
    sendJsonError(reply, 'GW_ERR_RELOAD_REFUSED', { result: 'failure' }),
  )
  afterAll(() => app.close())

  it("answers a text line with the status of the code's row, and no code", async () => {
    const res = await app.inject({ method: 'GET', url: '/text' })
    expect([res.statusCode, res.headers['content-type'], res.body]).toEqual([
      409,
      'text/plain; charset=utf-8',
      'busy\n',
    ])
  })

  it("answers the endpoint's own JSON body with the status of the code's row", async () => {
    const res = await app.inject({ method: 'GET', url: '/json' })
    expect([res.statusCode, res.json()]).toEqual([422, { result: 'failure' }])
  })
})
