import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderCallbackPage, renderUiPage, uiAssetsDir } from '../../../src/admin/ui/assets.js'

describe('UI assets', () => {
  it('finds proxy/dist/ui from the source tree (the build writes it; npm run build)', () => {
    const dir = uiAssetsDir()
    expect(dir).toMatch(/proxy[/\\]dist[/\\]ui$/)
    expect(existsSync(join(dir as string, 'app.js'))).toBe(true)
  })

  it('finds nothing outside the proxy package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ui-assets-'))
    writeFileSync(join(dir, 'package.json'), '{"name":"other"}')
    expect(uiAssetsDir(join(dir, 'x', 'y.js'))).toBeUndefined()
  })

  it('escapes what it writes into the page, and says to build when the files are missing', () => {
    const page = renderUiPage(
      { mode: 'gateway', base: '/a"><script>', version: '1<2', trace: false },
      false,
    )
    expect(page).not.toContain('<script>')
    expect(page).toContain('data-base="/a&#34;&#62;&#60;script&#62;"')
    expect(page).toContain('run <code>npm run build</code>')
    expect(renderCallbackPage('/ui')).toContain('id="callback-status"')
  })
})
