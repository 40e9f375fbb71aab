/**
 * The debugger's MCP step (proxy/src/admin/ui/app/oauth-mcp-step.ts) against the demo stack's
 * gateway through the real relay: alice's token lists the tools, bob's gets the 403 the route's
 * rule answers, with the checks that say so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mcpStep } from '../../../../src/admin/ui/app/oauth-mcp-step.js'
import type { Step, StepRunner } from '../../../../src/admin/ui/app/oauth-wire.js'
import { relay } from '../../../../src/admin/ui/relay.js'
import { startUiStack, type UiStack } from './ui-stack.js'

describe('the MCP step of the flow debugger', () => {
  let stack: UiStack
  beforeAll(async () => {
    stack = await startUiStack(undefined, { browser: false })
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
  })

  async function run(sub: string): Promise<Step> {
    const res = await fetch(`${stack.idp.orgUrl}/__control/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub }),
    })
    const token = ((await res.json()) as { access_token: string }).access_token
    let step: Step | undefined
    const runner: StepRunner = {
      step: (id, title, expect) => {
        step = { id, title, expect, exchanges: [], checks: [], verdict: 'waiting' }
        return step
      },
      send: async (s, request) => {
        const response = await relay({ headers: {}, ...request })
        s.exchanges.push({ request, response })
        return response
      },
      done: (
        s,
        verdict = s.checks.some((c) => c.ok === false && c.level === 'MUST') ? 'fails' : 'holds',
      ) => {
        s.verdict = verdict
      },
    }
    await mcpStep(runner, `${stack.gateway}/mcp`, token)
    return step as Step
  }

  it('lists the tools with alice’s token: initialize, initialized, tools/list, DELETE of the session', async () => {
    const step = await run('alice')
    expect(step.verdict).toBe('holds')
    expect(step.exchanges.map((e) => e.response?.status)).toEqual([200, 202, 200, 200])
    expect(step.checks.find((c) => c.text.startsWith('tools/list'))?.seen).toContain('echo')
  })

  it('shows bob’s 403 with error="insufficient_scope" as the expected refusal', async () => {
    const step = await run('bob')
    expect(step.verdict).toBe('refused')
    expect(step.exchanges.map((e) => e.response?.status)).toEqual([403])
    expect(step.checks.map((c) => c.ok)).toEqual([true, true])
  })
})
