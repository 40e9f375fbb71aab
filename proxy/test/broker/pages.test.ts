import { describe, expect, it } from 'vitest'
import { errorPage, escapeHtml, PAGE_HEADERS } from '../../src/broker/pages.js'

describe('errorPage', () => {
  it("answers with the status of its code's row and keeps the code for logs", () => {
    const denied = errorPage('GW_ERR_BROWSER_MISMATCH', 'Consent refused', 'another browser')
    expect([denied.status, denied.code]).toEqual([403, 'GW_ERR_BROWSER_MISMATCH'])
    const busy = errorPage('GW_ERR_STORE_FULL', 'Busy', 'try later', { 'retry-after': '30' })
    expect([busy.status, busy.code]).toEqual([503, 'GW_ERR_STORE_FULL'])
    expect(busy.headers).toEqual({ ...PAGE_HEADERS, 'retry-after': '30' })
  })

  it('shows the title and detail escaped, and no code', () => {
    const page = errorPage('GW_ERR_AUTHORIZE_REQUEST', 'Bad <request>', 'client "x" & more')
    expect(page.body).toContain(`<h1>${escapeHtml('Bad <request>')}</h1>`)
    expect(page.body).toContain(escapeHtml('client "x" & more'))
    expect(String(page.body)).not.toContain('GW_ERR')
  })
})
