/**
 * `npm run conformance -- --html report.html`: the server mode writes the page, with the failure
 * and its evidence, and says why it has no sequence diagram.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@gatehouse/support'
import { describe, expect, it } from 'vitest'
import { conformance } from './run-bin.js'

describe('conformance --html (server mode)', () => {
  it('writes the page for a target that does not answer: the failed MUST, its clause and evidence', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'html-server-')), 'report.html')
    const closed = `http://127.0.0.1:${await freePort()}`
    const run = await conformance([
      '--target',
      closed,
      '--yes',
      '--only',
      'AUTH-001',
      '--html',
      file,
    ])
    expect(run.code).toBe(1)
    const html = readFileSync(file, 'utf8')
    expect(html).toContain('FAIL — 1 MUST requirement failed.')
    expect(html).toContain('<span class="rid">AUTH-001</span>')
    expect(html).toContain(
      '<blockquote>Servers MUST return appropriate HTTP status codes for authorization errors:</blockquote>',
    )
    expect(html).toContain(`<code>POST ${closed}/mcp</code> → <b>no answer</b>`)
    expect(html).toContain('No sequence diagrams in server mode')
  }, 60_000)
})
