import { describe, expect, it } from 'vitest'
import { LineCounter, parseAllDocuments, parseDocument } from 'yaml'
import { documentIssues, documentValue, yamlOptions } from '../../src/config/yaml.js'

function issuesOf(text: string) {
  const lines = new LineCounter()
  return documentIssues(parseDocument(text, yamlOptions(lines)), lines)
}

describe('documentIssues', () => {
  it('reports a key written twice in one mapping at the line of the second', () => {
    expect(issuesOf('a: 1\nb:\n  x: 1\n  x: 2\nb: 3\n')).toEqual([
      { path: '', message: 'YAML: Map keys must be unique (line 5)' },
      { path: '', message: 'YAML: Map keys must be unique (line 4)' },
    ])
  })

  it('compares keys by value and type, as YAML does: 1 and "1" differ', () => {
    expect(issuesOf('1: a\n"1": b\n')).toEqual([])
  })

  it('finds duplicates in every document of a stream', () => {
    const lines = new LineCounter()
    const docs = parseAllDocuments('a: 1\n---\nb: 1\nb: 2\n', yamlOptions(lines))
    expect(Array.isArray(docs) && docs.flatMap((d) => documentIssues(d, lines))).toEqual([
      { path: '', message: 'YAML: Map keys must be unique (line 4)' },
    ])
  })

  it.each([
    ['a token that is not YAML', 'a: |x S3CRET-B\n  y\n'],
    ['a stray flow indicator', ']S3CRET-J\n'],
    ['an unterminated quote', 'a: "S3CRET-C\n'],
    ['a quoted key in a compact mapping', 'a: "S3CRET-D": b\n'],
  ])('names the kind, line and column of %s, never the text', (_, text) => {
    const issues = issuesOf(text)
    expect(issues.length).toBeGreaterThan(0)
    for (const i of issues) {
      expect(i.message).toMatch(/^YAML: .+ \(line \d+, column \d+\)$/)
      expect(i.message).not.toContain('S3CRET')
    }
  })
})

describe('documentValue', () => {
  it('is the value of a document', () => {
    expect(documentValue(parseDocument('a: [1, 2]'))).toEqual({ value: { a: [1, 2] } })
  })

  it('reports an alias without its anchor without naming the alias', () => {
    const read = documentValue(parseDocument('a: *S3CRET-G\n'))
    expect(read).toEqual({
      issue: { path: '', message: 'YAML: an alias names no anchor set before it' },
    })
  })
})
