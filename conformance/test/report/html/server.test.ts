import { describe, expect, it } from 'vitest'
import { CATALOGUE } from '../../../src/catalogue/index.js'
import { escapeHtml } from '../../../src/report/html/escape.js'
import { serverHtmlReport } from '../../../src/report/html/server.js'

describe('serverHtmlReport', () => {
  it("quotes a failed requirement's sentence from the catalogue, and its level note", () => {
    const req = CATALOGUE.find((r) => r.quote && r.levelNote) ?? CATALOGUE.find((r) => r.quote)
    if (!req?.quote) throw new Error('the catalogue quotes no sentence')
    const html = serverHtmlReport(
      [
        {
          id: req.id,
          level: req.level,
          profile: req.profile,
          source: req.source,
          text: req.text,
          status: 'failed',
          message: 'expected x; got y',
          durationMs: 1,
        },
      ],
      { title: 'embedded', facts: [['base', 'http://127.0.0.1:9']] },
    )
    expect(html).toContain(`<blockquote>${escapeHtml(req.quote)}</blockquote>`)
    if (req.levelNote) expect(html).toContain(escapeHtml(req.levelNote))
    expect(html).toContain(`<a href="#g--${req.profile}">${req.profile}</a>`)
    expect(html).toContain('server mode')
  })
})
