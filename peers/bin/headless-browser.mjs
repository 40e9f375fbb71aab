#!/usr/bin/env node
/**
 * `headless-browser.mjs <url>`: the "browser" a real client opens (through `BROWSER`, which
 * xdg-open and the `open` package honour) when the IdP signs the user in by itself — the
 * conformance harness's IdP (`autoSignIn`) answers the authorization request at once with
 * `303 Location: <redirect_uri>?code=…`. It follows that redirect to the client's own loopback
 * callback, as a browser would, and exits 0 once the callback answered. Plain JavaScript, so
 * the machine's Node runs it without a compiler.
 */
const url = process.argv[2]
if (!url || !URL.canParse(url)) {
  console.error('usage: headless-browser.mjs <url>')
  process.exit(2)
}
const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(20_000) }).catch(
  (err) => {
    console.error(`headless-browser: ${url}: ${err.message}`)
    process.exit(1)
  },
)
await res.text()
process.exit(res.ok ? 0 : 1)
