import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../src/errors.js'

describe('error codes', () => {
  it('documents every exported code in docs/errors.md', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const missing = ERROR_CODES.filter((code) => !doc.includes(`\`${code}\``))
    expect(missing).toEqual([])
  })

  it('documents no code that does not exist', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const documented = [...doc.matchAll(/`(GW_ERR_[A-Z_]+)`/g)].map((m) => m[1])
    expect(
      documented.filter((c) => !(ERROR_CODES as readonly string[]).includes(c as string)),
    ).toEqual([])
  })

  it('raises every code somewhere in the proxy (none is only documented)', () => {
    const src = new URL('../src/', import.meta.url).pathname
    const text = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== 'errors.ts')
      .map((f) => readFileSync(join(src, f), 'utf8'))
      .join('\n')
    const unused = ERROR_CODES.filter((code) => !text.includes(`'${code}'`))
    expect(unused).toEqual([])
  })
})
