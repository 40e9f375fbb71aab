/**
 * The broker and resource-server profiles against each IdP shape (src/shape-stack.ts): mock-idp
 * shaped like Okta, Auth0, Entra ID with v2 and v1 tokens, Keycloak, Google and a generic IdP,
 * the reference proxy configured as docs/idp/<preset>.md says. Every selected check passes, or is
 * skipped with its cause; none fails.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { selectProfiles } from '../src/profiles.js'
import { NOT_SELECTED, runChecks } from '../src/runner.js'
import { type ShapeStack, STACK_SHAPES, startShapeStack } from '../src/shape-stack.js'

let stack: ShapeStack | undefined
afterEach(async () => {
  await stack?.stop()
  stack = undefined
})

const select = selectProfiles(['resource-server', 'broker'])

describe('the broker and resource-server profiles against each IdP shape', () => {
  it.each(STACK_SHAPES)('%s: every check passes or is skipped with its cause', async (shape) => {
    stack = await startShapeStack(shape)
    const results = (await runChecks(stack.target, { select })).filter(
      (r) => r.message !== NOT_SELECTED,
    )
    const failed = results.filter((r) => r.status === 'failed')
    expect(failed.map((r) => `${r.id}: ${r.message}`)).toEqual([])
    const passed = results.filter((r) => r.status === 'passed')
    // Both profiles were judged, not skipped wholesale.
    expect(passed.some((r) => r.profile === 'broker')).toBe(true)
    expect(passed.filter((r) => r.profile !== 'broker').length).toBeGreaterThan(5)
    for (const r of results.filter((x) => x.status === 'skipped')) expect(r.message).toBeTruthy()
  })
})
