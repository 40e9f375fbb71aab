/**
 * Authorization rules and header values (proxy/src/auth/rules.ts, proxy/src/config/cel.ts): CEL
 * over the verified claims, type-checked at load, denying on any doubt at run time.
 */
import { describe, expect, it } from 'vitest'
import { compileHeaders, compileRules } from '../../src/auth/rules.js'
import { HeaderTransformation } from '../../src/auth/transformation.js'
import { CelCompileError, CelCompiler } from '../../src/config/cel.js'

const alice = { sub: 'alice@example.com', groups: ['AI-Users', 'Staff'], tier: 3 }

describe('compileRules', () => {
  it('allows when every rule holds and reports each outcome', () => {
    const rules = compileRules(['"AI-Users" in jwt.groups', 'jwt.tier >= 2'])
    expect(rules.evaluate(alice)).toEqual([
      { expression: '"AI-Users" in jwt.groups', matched: true },
      { expression: 'jwt.tier >= 2', matched: true },
    ])
  })

  it('does not match when the group is missing (the seed: AI-Users)', () => {
    const [r] = compileRules(['"AI-Users" in jwt.groups']).evaluate({ groups: ['Staff'] })
    expect(r?.matched).toBe(false)
    expect(r?.error).toBeUndefined()
  })

  it('denies, with the reason, when a claim the rule reads is absent (a client-only token)', () => {
    const [r] = compileRules(['"AI-Users" in jwt.groups']).evaluate({ sub: 'client' })
    expect(r?.matched).toBe(false)
    expect(r?.error).toBeTruthy()
  })

  it('denies a rule that evaluates to something other than a boolean', () => {
    const [r] = compileRules(['jwt.sub']).evaluate(alice)
    expect(r).toMatchObject({ matched: false, error: 'evaluated to string, not a boolean' })
  })

  it('names the index and the reason of an expression that does not parse', () => {
    expect(() => compileRules(['true', 'jwt.groups.exists(g,'])).toThrow(
      /^matchExpressions\[1\]: invalid CEL "jwt\.groups\.exists\(g,":/,
    )
  })

  it('refuses at load an unknown variable and a rule typed other than bool', () => {
    expect(() => compileRules(['"AI-Users" in jwts.groups'])).toThrow('Unknown variable: jwts')
    expect(() => compileRules(['1 + "a"'])).toThrow('no such overload')
    expect(() => compileRules(['size(jwt.groups)'])).toThrow(
      'a rule must be a boolean, and this expression is of type int',
    )
  })
})

describe('CelCompiler', () => {
  it('compiles an expression once and hands out the same program', () => {
    const cel = new CelCompiler()
    expect(cel.compile('jwt.sub == "x"', 'claims', 'bool')).toBe(
      cel.compile('jwt.sub == "x"', 'claims', 'bool'),
    )
  })

  it('throws the same CelCompileError again for a bad expression', () => {
    const cel = new CelCompiler()
    let first: unknown
    try {
      cel.compile('jwt.(', 'claims', 'any')
    } catch (err) {
      first = err
    }
    expect(first).toBeInstanceOf(CelCompileError)
    expect(() => cel.compile('jwt.(', 'claims', 'any')).toThrow(first as Error)
  })

  it('shares no program with another compiler', () => {
    const a = new CelCompiler().compile('jwt.sub == "x"', 'claims', 'bool')
    const b = new CelCompiler().compile('jwt.sub == "x"', 'claims', 'bool')
    expect(a).not.toBe(b)
    expect(a.run({ jwt: { sub: 'x' } })).toBe(true)
    expect(b.run({ jwt: { sub: 'x' } })).toBe(true)
  })
})

describe('compileHeaders', () => {
  it('renders strings, numbers and lists of strings, lowercasing the header name', () => {
    const headers = compileHeaders([
      { name: 'X-User', value: 'jwt.sub' },
      { name: 'X-Tier', value: 'jwt.tier' },
      { name: 'X-Groups', value: 'jwt.groups' },
    ])
    expect(headers.map((h) => [h.name, h.evaluate(alice)])).toEqual([
      ['x-user', 'alice@example.com'],
      ['x-tier', '3'],
      ['x-groups', 'AI-Users, Staff'],
    ])
  })

  it('leaves a header unset when the claim is missing or the value could split the header', () => {
    const [h] = compileHeaders([{ name: 'X-User', value: 'jwt.email' }])
    expect(h?.evaluate(alice)).toBeUndefined()
    const [sub] = compileHeaders([{ name: 'X-User', value: 'jwt.sub' }])
    expect(sub?.evaluate({ sub: 'a\r\nx-admin: true' })).toBeUndefined()
  })

  it('names the entry of a value that does not compile', () => {
    expect(() => compileHeaders([{ name: 'X', value: 'jwt.(' }])).toThrow(/^set\[0\]: invalid CEL/)
  })

  const values: Array<[string, string, Record<string, unknown>, string | undefined]> = [
    ['a boolean', 'jwt.admin', { admin: true }, 'true'],
    ['an integer (CEL int, a bigint)', 'size(jwt.groups) + 1', { groups: ['a', 'b'] }, '3'],
    ['a double', 'jwt.score', { score: 1.5 }, '1.5'],
    ['an empty list', 'jwt.groups', { groups: [] }, ''],
    ['a list that is not all strings', 'jwt.groups', { groups: ['a', 1] }, undefined],
    ['a map', 'jwt.address', { address: { city: 'x' } }, undefined],
    ['null', 'jwt.sub', { sub: null }, undefined],
    ['a tab (allowed in a field value)', 'jwt.sub', { sub: 'a\tb' }, 'a\tb'],
    ['a space and a tilde', 'jwt.sub', { sub: ' ~' }, ' ~'],
    ['a unit separator (0x1f)', 'jwt.sub', { sub: 'a\u001fb' }, undefined],
    ['a NUL', 'jwt.sub', { sub: '\u0000' }, undefined],
    ['a DEL (0x7f)', 'jwt.sub', { sub: 'a\u007f' }, undefined],
    ['a control character in a list entry', 'jwt.groups', { groups: ['a', 'b\nc'] }, undefined],
  ]
  for (const [what, expression, claims, expected] of values) {
    it(`renders ${what} as ${JSON.stringify(expected)} (RFC 9110 §5.5)`, () => {
      const [h] = compileHeaders([{ name: 'X-Value', value: expression }])
      expect(h?.evaluate(claims)).toBe(expected)
    })
  }
})

describe('HeaderTransformation (unit)', () => {
  it('sets only the headers whose value could be computed, and names removed headers in lower case', () => {
    const t = new HeaderTransformation({
      set: [
        { name: 'X-User', value: 'jwt.sub' },
        { name: 'X-Email', value: 'jwt.email' },
      ],
      remove: ['X-Remove-Me', 'cookie'],
    })
    const changes = t.apply({ sub: 'alice' })
    // No key at all for the failed expression: not even one holding undefined.
    expect(Object.keys(changes.set)).toEqual(['x-user'])
    expect(changes).toStrictEqual({ set: { 'x-user': 'alice' }, remove: ['x-remove-me', 'cookie'] })
  })
})
