/**
 * Which proxy the suite and the tests start (support/src/proxy-build.ts): the build while it is newer than
 * every source it bundles, else the source.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  newestSource,
  PROXY_BUILD_INPUTS,
  proxyBuildIsFresh,
  referenceProxyCommand,
} from '../src/proxy-build.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A checkout with one file per bundled source folder, all at `sourceAt` (seconds). */
function checkout(sourceAt: number, buildAt?: number): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-proxy-build-'))
  roots.push(root)
  for (const dir of PROXY_BUILD_INPUTS) {
    mkdirSync(join(root, dir, 'nested'), { recursive: true })
    const file = join(root, dir, 'nested', 'a.ts')
    writeFileSync(file, '')
    utimesSync(file, sourceAt, sourceAt)
  }
  if (buildAt !== undefined) {
    mkdirSync(join(root, 'proxy/dist'))
    const build = join(root, 'proxy/dist/gatehouse.js')
    writeFileSync(build, '')
    utimesSync(build, buildAt, buildAt)
  }
  return root
}

describe('the reference proxy the suite starts', () => {
  it('is the build when it is newer than every source', () => {
    const root = checkout(1_000, 2_000)
    expect(proxyBuildIsFresh(root)).toBe(true)
    expect(referenceProxyCommand(root, 'tsx')).toEqual([
      process.execPath,
      join(root, 'proxy/bin/gatehouse.js'),
    ])
  })

  it('is the source once any bundled file, however deep, changed after the build', () => {
    for (const dir of PROXY_BUILD_INPUTS) {
      const root = checkout(1_000, 2_000)
      utimesSync(join(root, dir, 'nested', 'a.ts'), 3_000, 3_000)
      expect(newestSource(root)).toBe(3_000_000)
      expect(proxyBuildIsFresh(root), dir).toBe(false)
      expect(referenceProxyCommand(root, 'tsx')).toEqual([
        'tsx',
        join(root, 'proxy/bin/gatehouse.ts'),
      ])
    }
  })

  it('is the source when there is no build', () => {
    const root = checkout(1_000)
    expect(proxyBuildIsFresh(root)).toBe(false)
    expect(referenceProxyCommand(root, 'tsx')[0]).toBe('tsx')
  })
})
