/**
 * The admin UI's built files (`npm run build` bundles `./app/main.ts` and `./app/app.css` with
 * esbuild into `proxy/dist/ui/`, scripts/build-ui.ts) and the HTML page that loads them, with the
 * headers every UI answer carries. The page fetches nothing but its own origin: no CDN, no
 * network beyond the proxy (`connect-src 'self'`).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The built files of the page. */
export interface UiAssets {
  js: string
  css: string
}

/** How the page runs: the full admin UI, or the read-only view on a gateway. */
export interface UiPageOptions {
  mode: 'admin' | 'gateway'
  /** The path the page is served at, without a trailing slash (`/ui`, `/gatehouse/ui`). */
  base: string
  /** Gateway view: whether the trace timeline is offered (`ui.showTrace`). */
  trace?: boolean
  version: string
}

/**
 * Headers of every UI answer: the page loads only its own script and style, is never framed
 * (clickjacking of the controls) and sends no Referer (an authorization code in a URL stays put).
 */
export const UI_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

/** The directory `npm run build` writes the UI to: `<proxy package>/dist/ui`. */
export function uiAssetsDir(from: string = fileURLToPath(import.meta.url)): string | undefined {
  // From the source (proxy/src/admin/ui) or the build (proxy/dist, proxy/dist/chunks): the
  // package root is the nearest directory whose package.json names the proxy.
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json')
    if (!existsSync(pkg)) continue
    try {
      if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === '@gatehouse/proxy')
        return join(dir, 'dist', 'ui')
    } catch {
      return undefined
    }
  }
  return undefined
}

let cached: UiAssets | undefined

/**
 * The built script and style, read once; `undefined` when the proxy was not built (then the page
 * says to run `npm run build`).
 */
export function loadUiAssets(dir: string | undefined = uiAssetsDir()): UiAssets | undefined {
  if (cached) return cached
  if (!dir || !existsSync(join(dir, 'app.js'))) return undefined
  cached = {
    js: readFileSync(join(dir, 'app.js'), 'utf8'),
    css: readFileSync(join(dir, 'app.css'), 'utf8'),
  }
  return cached
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The page: a shell the script fills; what it needs to know travels in `data-` attributes. */
export function renderUiPage(options: UiPageOptions, built: boolean): string {
  const { mode, base, version } = options
  const title = mode === 'admin' ? 'gatehouse admin' : 'gatehouse status'
  const body = built
    ? `<noscript>This page needs JavaScript. The JSON endpoints it reads are listed in docs/admin-api.md.</noscript>`
    : `<p role="alert">The UI is not built: run <code>npm run build</code> at the repository root, then reload.</p>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(base)}/app.css">
</head>
<body data-mode="${mode}" data-base="${escapeHtml(base)}" data-version="${escapeHtml(version)}" data-trace="${options.trace ? '1' : '0'}">
${body}
${built ? `<script type="module" src="${escapeHtml(base)}/app.js"></script>` : ''}
</body>
</html>
`
}

/**
 * The page a browser lands on after signing in for the OAuth flow debugger (its redirect URI):
 * it hands the authorization response (code, state, iss, or error) to the debugger's tab over a
 * same-origin BroadcastChannel, keeps nothing, and takes the code out of the address bar.
 */
export function renderCallbackPage(base: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>gatehouse: sign-in finished</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(base)}/app.css"></head>
<body data-mode="callback" data-base="${escapeHtml(base)}">
<main><h1>Sign-in finished</h1><p id="callback-status" role="status">Handing the answer to the debugger…</p></main>
<script type="module" src="${escapeHtml(base)}/app.js"></script>
</body>
</html>
`
}
