/**
 * ci/runtime-bound.ts: the unit-tier files `npm run test:lts` runs again on the other LTS line are
 * those whose test or source names a runtime-sensitive API; the rest run once.
 */
import { describe, expect, it } from 'vitest'
import {
  localImportsOf,
  namesRuntimeApi,
  runtimeFreeUnitFiles,
  sourcesOf,
  unitTestFiles,
} from '../../ci/runtime-bound.js'
import { ROOT } from '../build-config.js'

describe('namesRuntimeApi', () => {
  it('finds runtime-sensitive modules however they are loaded, and runtime globals', () => {
    for (const text of [
      "import { createHash } from 'node:crypto'",
      "import * as jose from 'jose'",
      "const { DatabaseSync } = require('node:sqlite')",
      "await import('node:worker_threads')",
      "import { pipeline } from 'node:stream/promises'",
      "import { Agent } from 'undici'",
      'const r = await fetch(url)',
      'return new Response(body)',
      'crypto.getRandomValues(bytes)',
      'const copy = structuredClone(value)',
    ])
      expect(namesRuntimeApi(text), text).toBe(true)
  })

  it('leaves out modules whose behaviour is the repository’s own', () => {
    for (const text of [
      "import { readFileSync } from 'node:fs'",
      "import { join } from 'node:path'",
      "import { z } from 'zod'",
      "import { EventEmitter } from 'node:events'",
      '// fetches nothing: prefetch(x) is ours',
      'const cryptoKey = options.cryptoKey',
    ])
      expect(namesRuntimeApi(text), text).toBe(false)
  })
})

describe('sourcesOf', () => {
  it('maps a test, and an aspect of one, to the source it mirrors', () => {
    expect(sourcesOf(ROOT, 'proxy/test/auth/jws-signature.test.ts')).toEqual([
      'proxy/src/auth/jws-signature.ts',
    ])
    expect(sourcesOf(ROOT, 'proxy/test/mcp/route-policy.modern.test.ts')).toEqual([
      'proxy/src/mcp/route-policy.ts',
    ])
    expect(sourcesOf(ROOT, 'scripts/test/lanes.test.ts')).toEqual([])
  })
})

describe('localImportsOf', () => {
  it('resolves the relative imports of a module to the repository files they load', () => {
    const imports = localImportsOf(ROOT, 'proxy/src/mcp/route-policy.ts')
    expect(imports).toContain('proxy/src/mcp/authorization.ts')
    expect(imports).toContain('proxy/src/mcp/json-rpc.ts')
    expect(imports.every((p) => p.startsWith('proxy/src/'))).toBe(true)
  })
})

describe('runtimeFreeUnitFiles', () => {
  const free = runtimeFreeUnitFiles(ROOT)
  const unit = unitTestFiles(ROOT)

  it('keeps on every line the tests of modules on crypto, worker threads, streams and SQLite', () => {
    for (const file of [
      'proxy/test/auth/jws-signature.test.ts',
      'proxy/test/config/load-thread.test.ts',
      'proxy/test/mcp/response-filter.test.ts',
      'proxy/test/store/sqlite.test.ts',
    ]) {
      expect(unit).toContain(file)
      expect(free).not.toContain(file)
    }
  })

  it('runs once the tests of pure logic, and only unit-tier files', () => {
    expect(free).toContain('proxy/test/config/duration.test.ts')
    expect(free).toContain('proxy/test/mcp/json-rpc.test.ts')
    expect(free.every((f) => unit.includes(f))).toBe(true)
    expect(free).not.toContain('proxy/test/store/redis.test.ts')
  })
})
