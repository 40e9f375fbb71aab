/**
 * Citations resolve (docs/design/layering.md): every repository path to a Markdown document cited
 * in code or docs exists, every relative Markdown link of a doc points at a file, and nothing
 * cites the issue tracker ("issue #N"), which is not part of the repository.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Tracked and untracked (not ignored) source and doc files. */
const FILES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(ts|tsx|mjs|md|ya?ml)$/.test(f) && existsSync(join(ROOT, f)))
  // The product spec is quoted as it was given.
  .filter((f) => f !== 'docs/design/seed-gateway-mcp-auth.md')
  // Its own examples of what it refuses.
  .filter((f) => f !== 'scripts/test/citations.test.ts')

const TOP =
  '(?:docs|proxy|conformance|mutation|redact|support|bench|ci|peers|gwctl|mock-idp|mock-mcp|examples|scripts)'
/** `docs/design/broker.md`, `mutation/README.md §…`: a path from the root. */
const ROOT_PATH = new RegExp(`(?<![\\w./-])(${TOP}/[\\w./-]+\\.md)(?![\\w/-])`, 'g')
/** Bare names of documents that never existed here. */
const GHOSTS = /\b(broker-design\.md|STYLE\.md)\b/g
/** A relative Markdown link: `[text](../auth.md#anchor)`. */
const MD_LINK = /\]\((?!https?:|mailto:|#)([^)\s#]+\.md)(?:#[^)]*)?\)/g
const ISSUE = /\bissues?\s+#?\d+\b/gi

/** What `pattern` finds in every file, as `file: match`. */
function scan(pattern: RegExp, keep: (file: string, match: string) => boolean): string[] {
  const found: string[] = []
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const m of text.matchAll(pattern)) {
      const match = (m[1] ?? m[0]) as string
      if (keep(file, match)) found.push(`${file}: ${match}`)
    }
  }
  return found
}

describe('citations', () => {
  it('reads the files it judges', () => {
    expect(FILES).toContain('proxy/src/broker/endpoints.ts')
    expect(FILES).toContain('docs/auth.md')
    expect(scan(ROOT_PATH, () => true).length).toBeGreaterThan(50)
  })

  it('cites only repository documents that exist', () => {
    const missing = scan(ROOT_PATH, (_f, path) => !existsSync(join(ROOT, path)))
    expect(missing, 'write the note, or cite one that exists').toEqual([])
  })

  it('cites no document that never existed here (broker-design.md, STYLE.md)', () => {
    expect(
      scan(GHOSTS, () => true),
      'cite docs/design/… instead',
    ).toEqual([])
  })

  it('links, in every doc, only to Markdown files that exist', () => {
    const broken = scan(
      MD_LINK,
      (file, link) => file.endsWith('.md') && !existsSync(join(ROOT, dirname(file), link)),
    )
    expect(broken).toEqual([])
  })

  it('cites no issue number: the tracker is not part of the repository', () => {
    expect(
      scan(ISSUE, () => true),
      'cite a docs/design/ note instead',
    ).toEqual([])
  })

  it('finds a missing document and an issue number where there is one', () => {
    const text = 'see docs/design/nothing-here.md and issue #22 (broker-design.md)'
    expect(
      [...text.matchAll(ROOT_PATH)]
        .map((m) => m[1])
        .filter((p) => !existsSync(join(ROOT, p as string))),
    ).toEqual(['docs/design/nothing-here.md'])
    expect(text.match(ISSUE)).toEqual(['issue #22'])
    expect(text.match(GHOSTS)).toEqual(['broker-design.md'])
  })
})
