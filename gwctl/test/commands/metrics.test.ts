import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LiveGatehouse, runGwctl, startLiveGatehouse, startScriptedAdmin } from '../helpers.js'

describe('gwctl proxy metrics against a running gatehouse', () => {
  let live: LiveGatehouse
  beforeAll(async () => {
    live = await startLiveGatehouse()
    const res = await fetch(`${live.url}/mcp`, { method: 'POST', body: '{}' })
    await res.text()
  })
  afterAll(async () => {
    await live.close()
  })

  it('shows the request counted by route, status and outcome', async () => {
    const r = await runGwctl(['-p', live.adminPort, 'proxy', 'metrics'])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toMatch(/^METRIC\s+LABELS\s+VALUE$/)
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^gatehouse_requests_total\s+gateway=default route=mcp method=POST status=\d+ outcome=no_policy\s+1$/,
      ),
    )
    expect(r.stdout).not.toContain('process_cpu')
  })

  it('reduces a histogram to its count and mean, and filters by name', async () => {
    const r = await runGwctl(['-p', live.adminPort, 'proxy', 'metrics', '--filter', 'upstream'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /gatehouse_upstream_duration_seconds\s+route=mcp backend=mcp-backend\s+count=1 mean=[\d.]+m?s/,
    )
    expect(r.stdout).not.toContain('gatehouse_requests_total')
  })

  it('prints the exposition text unchanged with --raw', async () => {
    const r = await runGwctl(['-p', live.adminPort, 'proxy', 'metrics', '--raw'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('# TYPE gatehouse_requests_total counter')
    expect(r.stdout).toContain('process_cpu_user_seconds_total')
  })
})

describe('gwctl proxy metrics against a proxy without metrics', () => {
  it('quotes the admin answer and exits 1', async () => {
    const admin = await startScriptedAdmin({
      '/metrics': (_req, res) => {
        res.writeHead(503, { 'content-type': 'text/plain' })
        res.end('metrics are not collected by this proxy\n')
      },
    })
    try {
      const r = await runGwctl(['--admin', admin.admin, 'proxy', 'metrics'])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('answered 503 to /metrics: metrics are not collected')
    } finally {
      await admin.close()
    }
  })
})
