/**
 * ci/lanes.ts: lanes run at once, a lane's scripts in order until one fails, and each script's
 * output comes out whole.
 */
import { describe, expect, it } from 'vitest'
import { type RunScript, runLanes } from '../../ci/lanes.js'

/** A runner whose scripts end when the test says; records what started. */
function controlled() {
  const started: string[] = []
  const finish = new Map<string, (code: number) => void>()
  const run: RunScript = (script) => {
    started.push(script)
    return new Promise((resolve) =>
      finish.set(script, (code) =>
        resolve({ code, output: `${script} line 1\n${script} line 2\n` }),
      ),
    )
  }
  const end = async (script: string, code = 0) => {
    await Promise.resolve()
    finish.get(script)?.(code)
    await new Promise((r) => setImmediate(r))
  }
  return { run, started, end }
}

describe('runLanes', () => {
  it('starts every lane at once and a lane’s next script only when the one before passed', async () => {
    const c = controlled()
    const out: string[] = []
    const done = runLanes(['compose', 'mutants,stryker'], c.run, (t) => out.push(t))
    await c.end('none')
    expect(c.started).toEqual(['compose', 'mutants'])
    await c.end('mutants')
    expect(c.started).toEqual(['compose', 'mutants', 'stryker'])
    await c.end('stryker')
    await c.end('compose')
    const results = await done
    expect(results.map((r) => [r.script, r.code])).toEqual([
      ['mutants', 0],
      ['stryker', 0],
      ['compose', 0],
    ])
    expect(out.join('')).toContain(
      '== npm run compose: exit 0 in 0 s ==\ncompose line 1\ncompose line 2\n',
    )
  })

  it('stops a lane at its first failure and lets the other lanes finish', async () => {
    const c = controlled()
    const done = runLanes(['compose', 'mutants,stryker'], c.run, () => {})
    await c.end('none')
    await c.end('mutants', 1)
    await c.end('compose')
    const results = await done
    expect(c.started).toEqual(['compose', 'mutants'])
    expect(results.map((r) => [r.script, r.code])).toEqual([
      ['mutants', 1],
      ['compose', 0],
    ])
  })
})
