/**
 * A reload of 10,000 routes while requests keep coming (docs/reliability.md, "Large
 * configurations"): the running configuration answers every request throughout, and answers
 * requests *while* the candidate is read, parsed and validated — on the old code the parse and
 * the validation held the event loop for the whole of it, and requests waited for its end. How long the longest stall is belongs to `npm run bench:scale`, not here.
 */
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfigSourcesOffThread } from '../../src/config/load-thread.js'
import { loadConfigSources } from '../../src/config/sources.js'
import { type ReloadRecord, startGatehouse } from '../../src/index.js'
import { capturedLogging } from '../helpers.js'
import { configDir, nameBackend, standalone } from '../reload-harness.js'

const ROUTES = 10_000

/**
 * `n` routes under one JWT policy (an inline key, one CEL rule), and the public `/new` route;
 * `broken` makes that route's path type invalid, `lastRule` is the CEL rule of a second policy,
 * written last, on the last route.
 */
function largeConfig(backendPort: number, n: number, broken?: number, lastRule?: string): string {
  const jwk = JSON.stringify({
    ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
    kid: 'k',
    alg: 'ES256',
  })
  const out = [
    'config: { adminAddr: "off", logLevel: warn }',
    'gateways:\n  default: { port: 3000, address: 127.0.0.1 }',
    `backends:\n  b: { static: { host: 127.0.0.1, port: ${backendPort} } }`,
    'routes:',
    '  new: { allowUnauthenticated: true, rules: [{ matches: [{ path: { type: PathPrefix, value: /new } }], backendRefs: [{ name: b }] }] }',
  ]
  for (let i = 0; i < n; i++) {
    const type = i === broken ? 'Prefix' : 'PathPrefix'
    out.push(
      `  r${i}: { rules: [{ matches: [{ path: { type: ${type}, value: /t${i}/mcp } }], backendRefs: [{ name: b }] }] }`,
    )
  }
  out.push(`policies:
  p:
    targetRefs:
${Array.from({ length: n }, (_, i) => `      - { kind: HTTPRoute, name: r${i} }`).join('\n')}
    traffic:
      jwtAuthentication:
        mode: Strict
        providers:
          - issuer: https://idp.example
            audiences: [x]
            jwks: { inline: { keys: [${jwk}] } }
      authorization:
        action: Allow
        policy: { matchExpressions: ['"a" in jwt.groups'] }`)
  if (lastRule !== undefined) {
    out.push(`  q:
    targetRefs: [{ kind: HTTPRoute, name: r${n - 1} }]
    traffic:
      authorization:
        action: Allow
        policy: { matchExpressions: [${JSON.stringify(lastRule)}] }`)
  }
  return `${out.join('\n')}\n`
}

/**
 * A gatehouse started from `file`, reloading it as the CLI does (config/load-thread.ts), which
 * tells whether the candidate is still being loaded (read, parsed, validated).
 */
async function start(file: string) {
  const state = { loading: false, loaded: false }
  const load = async () => {
    state.loading = true
    try {
      return await loadConfigSourcesOffThread([file], { env: {} })
    } finally {
      state.loading = false
      state.loaded = true
    }
  }
  const source = await loadConfigSources([file], { env: {} })
  const gh = await startGatehouse({
    config: source.config,
    source,
    loadConfig: load,
    ephemeralPorts: true,
    logging: capturedLogging([]),
  })
  return { gh, state }
}

/**
 * Requests `url` one after the other until `reload` settles: each answer, and how many were
 * answered while the candidate was being loaded.
 */
async function duringReload(
  url: string,
  reload: Promise<ReloadRecord>,
  state: { loading: boolean; loaded: boolean },
): Promise<{
  record: ReloadRecord
  answers: string[]
  answeredWhileLoading: number
  /** Answered after the candidate was loaded and before the reload ended (the compile). */
  answeredAfterLoading: number
}> {
  let done = false
  const finished = reload.finally(() => {
    done = true
  })
  const answers: string[] = []
  let answeredWhileLoading = 0
  let answeredAfterLoading = 0
  let loaded = false
  const loop = (async () => {
    while (!done) {
      const res = await fetch(url)
      answers.push(`${res.status} ${await res.text()}`)
      if (state.loading) answeredWhileLoading++
      else if (loaded && !done) answeredAfterLoading++
      loaded ||= state.loaded
    }
  })()
  const record = await finished
  await loop
  return { record, answers, answeredWhileLoading, answeredAfterLoading }
}

describe('a reload of 10,000 routes', { timeout: 300_000 }, () => {
  let backend: Awaited<ReturnType<typeof nameBackend>>
  beforeAll(async () => {
    backend = await nameBackend('b')
  })
  afterAll(async () => {
    await backend?.close()
  })

  it('answers every request from the old configuration while the new one is loaded and between the batches of its compile, then serves the new one', async () => {
    const dir = configDir({
      'gatehouse.yaml': standalone(backend.port).replace('value: /mcp', 'value: /old'),
    })
    const { gh, state } = await start(join(dir, 'gatehouse.yaml'))
    try {
      const base = gh.gateways[0]?.url as string
      writeFileSync(join(dir, 'gatehouse.yaml'), largeConfig(backend.port, ROUTES))
      const { record, answers, answeredWhileLoading, answeredAfterLoading } = await duringReload(
        `${base}/old/x`,
        gh.reload('api'),
        state,
      )
      expect(record.result).toBe('success')
      // The compile gives the event loop turns between bounded batches of routes and policies:
      // requests are answered in them, after the candidate is loaded and before it serves, by the
      // old configuration (the new table is swapped in whole, at the end).
      expect(answeredAfterLoading).toBeGreaterThanOrEqual(1)
      // Every answer of the old configuration is the backend's; the last may be the new one's 404.
      const old = answers.filter((a) => !a.startsWith('404'))
      expect(old.every((a) => a === '200 b /old/x')).toBe(true)
      expect(answers.length - old.length).toBeLessThanOrEqual(1)
      // Requests were answered while the candidate was being parsed and validated (on the old
      // code, only in the few turns the file reads gave them).
      expect(answeredWhileLoading).toBeGreaterThanOrEqual(10)
      expect((await fetch(`${base}/old/x`)).status).toBe(404)
      expect(await (await fetch(`${base}/new/y`)).text()).toBe('b /new/y')
      expect((await fetch(`${base}/t9999/mcp`)).status).toBe(401)
    } finally {
      await gh.stop('test done')
    }
  })

  it('refuses a broken candidate of 10,000 routes naming the file, the line and the field, while the old one answers', async () => {
    const dir = configDir({
      'gatehouse.yaml': standalone(backend.port).replace('value: /mcp', 'value: /old'),
    })
    const file = join(dir, 'gatehouse.yaml')
    const { gh, state } = await start(file)
    try {
      const base = gh.gateways[0]?.url as string
      writeFileSync(file, largeConfig(backend.port, ROUTES, 9_000))
      const { record, answers, answeredWhileLoading } = await duringReload(
        `${base}/old/x`,
        gh.reload('api'),
        state,
      )
      expect(record.result).toBe('failure')
      expect(record.message).toContain(file)
      // r0 is on line 8, r9000 on 9008; the field by its path; never the text of the file.
      expect(record.message).toMatch(
        /routes\.r9000\.rules\[0\]\.matches\[0\]\.path\.type: .*\(line 9008\)/,
      )
      expect(record.message).not.toContain('Prefix,')
      expect(answers.every((a) => a === '200 b /old/x')).toBe(true)
      expect(answeredWhileLoading).toBeGreaterThanOrEqual(10)
      expect(await (await fetch(`${base}/old/x`)).text()).toBe('b /old/x')
    } finally {
      await gh.stop('test done')
    }
  })

  it('refuses a 10,000-route candidate whose last policy does not compile, the old configuration answering throughout and after', async () => {
    const dir = configDir({
      'gatehouse.yaml': standalone(backend.port).replace('value: /mcp', 'value: /old'),
    })
    const file = join(dir, 'gatehouse.yaml')
    const { gh, state } = await start(file)
    try {
      const base = gh.gateways[0]?.url as string
      writeFileSync(file, largeConfig(backend.port, ROUTES, undefined, 'jwt.groups.exists('))
      const { record, answers } = await duringReload(`${base}/old/x`, gh.reload('api'), state)
      expect(record.result).toBe('failure')
      expect(record.message).toContain('policies.q.traffic.authorization')
      expect(answers.every((a) => a === '200 b /old/x')).toBe(true)
      expect(await (await fetch(`${base}/old/x`)).text()).toBe('b /old/x')
      expect((await fetch(`${base}/t9999/mcp`)).status).toBe(404)
    } finally {
      await gh.stop('test done')
    }
  })
})
