/**
 * `/ui`: a minimal page linking the admin endpoints (the seed logs its URL at start; the full UI is
 * a later issue).
 */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Renders the page. */
export function renderUi(
  endpoints: ReadonlyArray<{ path: string; methods: readonly string[]; description: string }>,
  version: string,
): string {
  const rows = endpoints
    .map((e) => {
      const name = escapeHtml(e.path)
      const link = e.methods.includes('GET')
        ? `<a href="${name}">${name}</a>`
        : `<code>${name}</code>`
      return `<tr><td>${escapeHtml(e.methods.join(', '))}</td><td>${link}</td><td>${escapeHtml(e.description)}</td></tr>`
    })
    .join('\n')
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>gatehouse admin</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}td{padding:.25rem 1rem .25rem 0}</style>
</head>
<body>
<h1>gatehouse ${escapeHtml(version)} admin</h1>
<p>No authentication: reachable only by whoever can reach this address. Keep it on loopback.</p>
<table>
<thead><tr><th>Method</th><th>Path</th><th>What</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body>
</html>
`
}
