import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LineCounter, parseAllDocuments } from 'yaml'
import { parseDocuments } from '../../src/config/kubernetes/documents.js'
import { configSourceOf } from '../../src/config/sources.js'
import { documentIssues, yamlOptions } from '../../src/config/yaml.js'
import { corePlainValue, fastDocumentValues } from '../../src/config/yaml-fast.js'
import { ConfigError } from '../../src/errors.js'
import { healthy, yamlOf } from './kubernetes/manifests.js'
import { policyYaml, ROUTE } from './policy-yaml.js'

const root = new URL('../../../', import.meta.url).pathname

/** What `yaml` makes of `text` (the load's slow path): each document's value, or `error`. */
function yamlValues(text: string): unknown[] | 'error' {
  const lines = new LineCounter()
  const docs = parseAllDocuments(text, yamlOptions(lines))
  if (!Array.isArray(docs)) return 'error'
  if (docs.some((d) => documentIssues(d, lines).length > 0)) return 'error'
  try {
    return docs.map((d) => d.toJS())
  } catch {
    return 'error'
  }
}

/** Every file under `dir` whose name ends in one of `exts`. */
function filesUnder(dir: string, exts: RegExp): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, exts))
    else if (exts.test(name)) out.push(path)
  }
  return out
}

/** The fenced `yaml` blocks of a Markdown file. */
function yamlBlocks(path: string): string[] {
  const text = readFileSync(path, 'utf8')
  return [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')
}

/** The repository's YAML: examples, the seed's manifests and the docs' blocks, the mutants' files. */
const repositoryCorpus: [string, string][] = [
  ...['examples', 'mutation/mutants'].flatMap((d) =>
    filesUnder(join(root, d), /\.ya?ml$/).map((f): [string, string] => [
      f.slice(root.length),
      readFileSync(f, 'utf8'),
    ]),
  ),
  ['compose.yaml', readFileSync(join(root, 'compose.yaml'), 'utf8')],
  ...filesUnder(join(root, 'docs'), /\.md$/).flatMap((f) =>
    yamlBlocks(f).map((b, i): [string, string] => [`${f.slice(root.length)} block ${i}`, b]),
  ),
  ['test fixture: policy-yaml', policyYaml('      authorization: { action: Allow }\n')],
  ['test fixture: route', ROUTE],
  ['test fixture: manifests', yamlOf(healthy())],
]

/** Every scalar form, written plain, quoted and in flow, as a value and as a key. */
const SCALARS = [
  ...['yes', 'no', 'on', 'off', 'y', 'n', 'Yes', 'NO', 'On', 'OFF'],
  ...['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'tRUE'],
  ...['null', 'Null', 'NULL', '~', 'nULL'],
  ...['0', '-0', '+1', '-12', '012', '0777', '08', '0o17', '0O17', '0x1F', '0X1f', '0b101'],
  ...['1_000', '9007199254740993', '1e3', '1E3', '1.5', '.5', '5.', '-.5', '+.5e-3', '1.0'],
  ...['.inf', '-.Inf', '+.INF', '.nan', '.NaN', 'nan', 'inf'],
  ...['2001-12-14', '2001-12-14t21:59:43.10-05:00', '12:30:45', '1:20', '190:20:30'],
  ...['<<', '=', '-', 'a b', 'a#b', 'a:b', 'http://x/?a=1&b=2', 'é', '🙂', "it's"],
]

/** Generated edge cases: each scalar form in each position, and the other constructs. */
const generatedCorpus: [string, string][] = [
  ...SCALARS.flatMap((s): [string, string][] => [
    [`plain value ${s}`, `k: ${s}\n`],
    [`plain in flow sequence ${s}`, `k: [${s}, x]\n`],
    [`plain in flow map ${s}`, `k: { a: ${s} }\n`],
    [`plain key ${s}`, `${s}: v\n`],
    [`block sequence ${s}`, `- ${s}\n- x\n`],
    [`single-quoted ${s}`, `k: '${s.replaceAll("'", "''")}'\n`],
    [`double-quoted ${s}`, `k: "${s}"\n`],
    [`quoted key ${s}`, `"${s}": v\n`],
  ]),
  [
    'double-quoted escapes',
    'k: "\\x41\\u00e9\\n\\t\\"\\\\ \\/ \\0 \\a \\e \\N \\_ \\L \\P \\U0001F642"\n',
  ],
  ['double-quoted line folding', 'k: "a\n  b\n\n  c \\\n  d"\n'],
  ['single-quoted line folding', "k: 'a\n  b\n\n  c'\n"],
  ['plain multi-line', 'k: a\n  b\n\n  c\n'],
  ...['|', '|-', '|+', '>', '>-', '>+', '|2', '>1-'].map((h): [string, string] => [
    `block scalar ${h}`,
    `k: ${h}\n  line one\n   indented\n\n  line three\n\n\nnext: 1\n`,
  ]),
  ['block scalar at the end', 'k: |+\n  a\n\n'],
  ['empty values', 'a:\nb: \nc: []\nd: {}\ne: ""\n'],
  ['comments', '# c\na: 1 # c\n# c\nb: [1, # c\n  2]\n'],
  ['empty text', ''],
  ['only a comment', '# nothing\n'],
  ['empty document', '---\n'],
  ['two documents', 'a: 1\n---\nb: 2\n'],
  ['empty documents between', '---\na: 1\n---\n---\nb: 2\n...\n'],
  ['document end marker', 'a: 1\n...\n'],
  ['a document that is a scalar', '--- text\n'],
  ['CRLF line endings', 'a: 1\r\nb:\r\n  - x\r\n'],
  ['byte order mark', '\uFEFFa: 1\n'],
  ['tab after a value', 'a: 1\t\nb: x\t# c\n'],
  ['nested', 'a:\n  b:\n    - c: [1, {d: e}]\n      f: g\n'],
  ['compact nested sequence', '- - a\n  - b\n- c\n'],
  ['long key', `${'k'.repeat(1100)}: v\n`],
  ['long quoted key', `"${'k'.repeat(1030)}": v\n`],
  ['key of 1000 characters', `${'k'.repeat(1000)}: v\n`],
  ['long value', `k: ${'v'.repeat(5000)}\n`],
  ['multi-line quoted key', '"a\n b": 1\n'],
  ['multi-line plain key in flow', '{ a\n b: 1 }\n'],
  ['multi-line quoted key in flow', '{ "a\n b": 1 }\n'],
  ['JSON', '{"a": [1, 2.5, true, null, "x"], "b": {"c": "d"}}\n'],
  ['JSON with a trailing comma', '{"a": [1, 2,], }\n'],
  // What the fast path declines, and what `yaml` refuses: each must give no fast value.
  ['anchor and alias', 'a: &x 1\nb: *x\n'],
  ['anchor on a map', 'a: &x { b: 1 }\n'],
  ['merge key', 'a: &x { b: 1 }\nc: { <<: *x, d: 2 }\n'],
  ['plain merge key without alias', '<<: 1\n'],
  ['local tag', 'a: !foo 1\n'],
  ['core tag', 'a: !!str 1\n'],
  ['non-specific tag', 'a: ! 1\n'],
  ['YAML directive', '%YAML 1.1\n---\na: yes\n'],
  ['TAG directive', '%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n'],
  ['explicit key', '? a\n: 1\n'],
  ['complex key', '? [a, b]\n: 1\n'],
  ['flow key', '{ [a]: 1 }\n'],
  ['__proto__ key', '__proto__: { polluted: 1 }\n'],
  ['duplicate key', 'a: 1\na: 2\n'],
  ['duplicate key by value', 'a: 1\n"a": 2\n'],
  ['environment reference', 'a: ${HOME}\n'],
  ['unterminated quote', 'a: "x\n'],
  ['bad indentation', 'a:\n  b: 1\n c: 2\n'],
  ['tab indentation', 'a:\n\tb: 1\n'],
  ['stray flow indicator', ']x\n'],
  ['mapping in a plain scalar', 'a: b: c\n'],
  ['deep nesting', `${'['.repeat(150)}${']'.repeat(150)}\n`],
]

describe('fastDocumentValues', () => {
  it.each([...repositoryCorpus, ...generatedCorpus])(
    'reads %s exactly as yaml does, or declines it',
    (_, text) => {
      const fast = fastDocumentValues(text)
      const slow = yamlValues(text)
      if (fast === undefined) return
      expect(slow).not.toBe('error')
      expect(fast).toStrictEqual(slow)
    },
  )

  it('takes the repository files without what it declines (examples, the seed, the docs)', () => {
    const taken = repositoryCorpus.filter(([, text]) => fastDocumentValues(text) !== undefined)
    // Every file without ${ENV}: none of them uses anchors, tags or directives.
    const plain = repositoryCorpus.filter(([, text]) => !text.includes('${'))
    expect(taken.map(([name]) => name)).toEqual(
      plain.filter(([, t]) => yamlValues(t) !== 'error').map(([name]) => name),
    )
    expect(taken.length).toBeGreaterThan(20)
  })

  it.each([
    ['an anchor', 'a: &x 1\n'],
    ['an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a merge key', 'b: { <<: { c: 1 } }\n'],
    ['${ENV}', 'a: ${X:-1}\n'],
    ['a key that is not a string', '1: a\n'],
    ['a null key', '~: a\n'],
    ['a __proto__ key', '__proto__: {}\n'],
    ['a key written twice', 'a: 1\na: 2\n'],
    ['a hexadecimal integer', 'a: 0x1F\n'],
    ['an 0o octal', 'a: 0o17\n'],
    ['infinity', 'a: .inf\n'],
    ['a syntax error', 'a: "x\n'],
  ])('declines %s', (_, text) => {
    expect(fastDocumentValues(text)).toBeUndefined()
  })

  it('reads YAML 1.1 forms as YAML 1.2 core does: yes, on, 0777 and timestamps plain', () => {
    expect(
      fastDocumentValues('a: yes\nb: on\nc: 0777\nd: 2001-12-14\ne: 1_000\nf: 012\n'),
    ).toStrictEqual([{ a: 'yes', b: 'on', c: 777, d: '2001-12-14', e: '1_000', f: 12 }])
  })

  it('takes a plain configuration: values, types and document order', () => {
    expect(fastDocumentValues('a: 1\nb: [x, 2.5, true, ~]\n---\n---\nc: "3"\n')).toStrictEqual([
      { a: 1, b: ['x', 2.5, true, null] },
      null,
      { c: '3' },
    ])
  })
})

describe('corePlainValue', () => {
  it('resolves null, booleans, decimal integers and floats, and leaves the rest strings', () => {
    expect(
      ['~', '', 'Null', 'true', 'FALSE', '+7', '1.5e3', '.5', 'on'].map(corePlainValue),
    ).toEqual([null, null, null, true, false, 7, 1500, 0.5, 'on'])
    expect(Object.is(corePlainValue('-0'), -0)).toBe(true)
  })
})

describe('parseDocuments with the fast path', () => {
  it('still reports a YAML error from yaml: kind, line and column, never the text', () => {
    const text = 'a: 1\nb: S3CRET-VALUE\nb: 2\n'
    let error: unknown
    try {
      parseDocuments(text, 'c.yaml', {})
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ConfigError)
    const e = error as ConfigError
    expect(e.code).toBe('GW_ERR_CONFIG_PARSE')
    expect(e.file).toBe('c.yaml')
    expect(e.issues).toEqual([{ path: '', message: 'YAML: Map keys must be unique (line 3)' }])
    expect(JSON.stringify(e.issues)).not.toContain('S3CRET')
  })

  it('locates a schema issue of a file the fast path read: field and line, never content', () => {
    const text = `${ROUTE}policies:\n  p:\n    targetRefs: [ { name: mcp } ]\n    traffic: { authorization: { action: S3CRET-ACTION } }\n`
    expect(fastDocumentValues(text)).toBeDefined()
    let error: unknown
    try {
      configSourceOf([{ path: 'c.yaml', file: 'c.yaml', text }], ['c.yaml'], { env: {} })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ConfigError)
    const issues = (error as ConfigError).issues
    expect(issues.some((i) => i.path.startsWith('policies.p.traffic.authorization.action'))).toBe(
      true,
    )
    expect(issues.map((i) => i.message).join('\n')).toMatch(/\(line 12\)/)
    expect(JSON.stringify(issues)).not.toContain('S3CRET')
  })

  it('gives the documents of a file the fast path read their yaml document and lines on demand', () => {
    const docs = parseDocuments('a: 1\n---\nb:\n  c: 2\n', 'c.yaml', {})
    expect(docs).toHaveLength(2)
    const doc = docs[1] as (typeof docs)[number]
    expect(doc.value).toEqual({ b: { c: 2 } })
    expect(doc.index).toBe(1)
    expect(doc.doc.getIn(['b', 'c'])).toBe(2)
    const range = (doc.doc.getIn(['b', 'c'], true) as { range: number[] }).range
    expect(doc.lines.linePos(range[0] as number).line).toBe(4)
  })
})
