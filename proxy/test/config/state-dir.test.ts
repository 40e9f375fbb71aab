import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { STATE_DIR_ENV, stateDirOf } from '../../src/config/state-dir.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-state-dir-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('stateDirOf', () => {
  it('is .gatehouse beside the first configuration file', () => {
    const file = join(dir, 'gatehouse.yaml')
    writeFileSync(file, '')
    expect(stateDirOf([file, '/elsewhere/other.yaml'], undefined, {})).toBe(join(dir, '.gatehouse'))
  })

  it('is .gatehouse inside a directory of manifests', () => {
    const manifests = join(dir, 'manifests')
    mkdirSync(manifests)
    expect(stateDirOf([manifests], undefined, {})).toBe(join(manifests, '.gatehouse'))
  })

  it('takes a relative file from the working directory', () => {
    expect(stateDirOf(['examples/standalone/gatehouse.yaml'], undefined, {})).toBe(
      resolve('examples/standalone/.gatehouse'),
    )
  })

  it(`prefers $${STATE_DIR_ENV} to the default, and --state-dir to both`, () => {
    const env = { [STATE_DIR_ENV]: '/var/lib/gatehouse' }
    expect(stateDirOf(['/etc/gatehouse/'], undefined, env)).toBe('/var/lib/gatehouse')
    expect(stateDirOf(['/etc/gatehouse/'], 'state', env)).toBe(resolve('state'))
  })
})
