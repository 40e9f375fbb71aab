import { execFileSync } from 'node:child_process'
import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasTmux, tmuxPath } from '../../../ci/tmux.js'
import {
  GWCTL_ARGS,
  type LiveGatehouse,
  spawnGwctl,
  startLiveGatehouse,
  startScriptedAdmin,
} from '../helpers.js'

// A syntactically real JWT (header {"alg":"none"}), so redaction has something to find.
const TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'

// An opaque token: nothing JWT-shaped for a redaction by shape to find.
const OPAQUE = 'opaque-token-0123456789abcdef'

interface Event {
  type: string
  requestId: string
  elapsedMs: number
  data: Record<string, unknown>
}

describe('gwctl proxy trace --raw against a running gatehouse', () => {
  let live: LiveGatehouse
  beforeAll(async () => {
    live = await startLiveGatehouse()
  })
  afterAll(async () => {
    await live.close()
  })

  it('prints the events of a request sent while it waits as JSON Lines, then exits 0', async () => {
    const gw = spawnGwctl(['-p', live.adminPort, 'proxy', 'trace', '--local', '--raw'])
    await gw.waitForStderr('waiting for the next request')
    const res = await fetch(`${live.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    })
    expect(res.status).toBe(200)
    const r = await gw.done
    expect(r.code).toBe(0)
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event)
    expect(events.map((e) => e.type)).toEqual([
      'request_started',
      'route_selected',
      'policies_applied',
      'backend_selected',
      'backend_response',
      'response',
      'request_finished',
    ])
    expect(new Set(events.map((e) => e.requestId)).size).toBe(1)
    expect(events[0]?.data).toMatchObject({ method: 'POST', path: '/mcp', gateway: 'default' })
    expect(events[1]?.data).toMatchObject({ route: 'mcp' })
    expect(events[3]?.data).toMatchObject({ backend: 'mcp-backend' })
    expect(events.at(-1)?.data).toMatchObject({ status: 200 })
    expect(r.stdout).not.toContain(TOKEN)
    expect(r.stdout).toContain('Bearer [redacted]')
  })

  it.each([
    ['a token without a scheme', { authorization: OPAQUE }],
    ['a token after Bearer and a tab', { authorization: `Bearer\t${OPAQUE}` }],
    ['a token after Bearer and a comma', { authorization: `Bearer,${OPAQUE}` }],
    ['an X-Api-Key header', { 'x-api-key': OPAQUE }],
  ])('prints %s as [redacted]', async (_name, headers: Record<string, string>) => {
    const gw = spawnGwctl(['-p', live.adminPort, 'proxy', 'trace', '--local', '--raw'])
    await gw.waitForStderr('waiting for the next request')
    expect((await fetch(`${live.url}/mcp`, { headers })).status).toBe(200)
    const r = await gw.done
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('request_started')
    expect(r.stdout).not.toContain(OPAQUE)
    expect(r.stdout).toMatch(/"(authorization|x-api-key)":"\[redacted\]"/)
  })

  it('prints the finished timeline as plain text when stdout is not a terminal', async () => {
    const gw = spawnGwctl(['-p', live.adminPort, 'proxy', 'trace', '--local'])
    await gw.waitForStderr('waiting for the next request')
    expect((await fetch(`${live.url}/mcp`)).status).toBe(200)
    const r = await gw.done
    expect(r.code).toBe(0)
    // No cursor movement or colour codes in a file or pipe.
    expect(r.stdout).not.toContain('\u001b')
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^req-\d+ GET \/mcp status 200 in \d+\.\d{3} ms$/)
    expect(lines.slice(1).map((l) => l.trim().split(/ {2,}|(?<=ms) /)[1])).toEqual([
      'request',
      'route',
      'policies',
      'backend',
      'backend response',
      'response',
      'finished',
    ])
  })

  it('traces only a request under --path', async () => {
    const gw = spawnGwctl(['--admin', live.admin, 'proxy', 'trace', '--raw', '--path', '/mcp'])
    await gw.waitForStderr('under /mcp')
    expect((await fetch(`${live.url}/elsewhere`)).status).toBe(404)
    expect((await fetch(`${live.url}/mcp/tools`)).status).toBe(200)
    const r = await gw.done
    expect(r.code).toBe(0)
    const first = JSON.parse(r.stdout.split('\n')[0] ?? '') as Event
    expect(first.data.path).toBe('/mcp/tools')
  })

  it('keeps following with --follow until interrupted, then exits 0', async () => {
    const gw = spawnGwctl(['-p', live.adminPort, 'proxy', 'trace', '--raw', '--follow'])
    await gw.waitForStderr('waiting for the next request')
    await fetch(`${live.url}/mcp/one`)
    await gw.waitForStdout('"type":"request_finished"')
    // The second watch is open once its status line is printed again.
    await new Promise<void>((resolve) => {
      const poll = () =>
        gw.stderr().split('waiting for the next request').length > 2
          ? resolve()
          : setTimeout(poll, 20)
      poll()
    })
    await fetch(`${live.url}/mcp/two`)
    await gw.waitForStdout('"path":"/mcp/two"')
    await gw.waitForStdout('"type":"request_finished"')
    gw.child.kill('SIGINT')
    const r = await gw.done
    expect(r.code).toBe(0)
    const finished = r.stdout.split('\n').filter((l) => l.includes('"type":"request_finished"'))
    expect(finished).toHaveLength(2)
  })

  it('exits 130 when interrupted before a request arrives', async () => {
    const gw = spawnGwctl(['-p', live.adminPort, 'proxy', 'trace', '--raw'])
    await gw.waitForStderr('waiting for the next request')
    gw.child.kill('SIGINT')
    const r = await gw.done
    expect(r.code).toBe(130)
    expect(r.stdout).toBe('')
  })
})

describe('gwctl proxy trace stream errors', () => {
  it('exits 2 for a --path that is not a path prefix', async () => {
    const r = await spawnGwctl(['proxy', 'trace', '--raw', '--path', 'mcp']).done
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      'gwctl: --path mcp: expected a path prefix starting with "/", e.g. /mcp\n',
    )
  })

  it('says so and exits 1 when the stream ends before the request finished', async () => {
    const admin = await startScriptedAdmin({
      '/debug/trace': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(
          'event: request_started\ndata: {"requestId":"req-1","seq":0,"type":"request_started","at":"2026-11-22T14:00:00.000Z","elapsedMs":0,"data":{"method":"GET","path":"/mcp"}}\n\n',
        )
      },
    })
    try {
      const gw = spawnGwctl(['--admin', admin.admin, 'proxy', 'trace', '--raw'])
      const r = await gw.done
      expect(r.code).toBe(1)
      expect(r.stdout).toContain('"type":"request_started"')
      expect(r.stderr).toContain(
        'gwctl: the trace stream ended before the request finished (did gatehouse stop?)',
      )
    } finally {
      await admin.close()
    }
  })

  it('escapes control characters of untrusted fields in --raw and in the plain-text timeline (docs/design/hardening.md)', async () => {
    // A tool name a client chose: OSC title + BEL, clear screen, CR LF and a forged timeline
    // line, a C1 CSI and a right-to-left override.
    const hostile = '\u001b]0;pwned\u0007\u001b[2J\r\n+0.001 ms  forged    line\u009b31m\u202e'
    const event = (seq: number, type: string, data: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ requestId: 'req-1', seq, type, at: '2026-11-22T14:00:00.000Z', elapsedMs: seq, data })}\n\n`
    const admin = await startScriptedAdmin({
      '/debug/trace': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(
          event(0, 'request_started', { method: 'POST', path: '/mcp', gateway: 'default' }) +
            event(1, 'mcp_request', {
              messages: [{ method: 'tools/call', tool: hostile, id: 1 }],
            }) +
            event(2, 'request_finished', { status: 200, durationMs: 1 }),
        )
      },
    })
    // Anything but a newline and the safe ranges (printable.ts).
    const unsafe = /[^\n\x20-\x7e\u00a0-\u200d\u2010-\u2027\u202f-\u2065\u206a-\uffff]/u
    try {
      const raw = await spawnGwctl(['--admin', admin.admin, 'proxy', 'trace', '--raw']).done
      expect(raw.code).toBe(0)
      expect(raw.stdout).not.toMatch(unsafe)
      const lines = raw.stdout.trimEnd().split('\n')
      expect(lines).toHaveLength(3)
      // Still JSON that gives the exact name back.
      const parsed = JSON.parse(lines[1] ?? '') as { data: { messages: Array<{ tool: string }> } }
      expect(parsed.data.messages[0]?.tool).toBe(hostile)
      const text = await spawnGwctl(['--admin', admin.admin, 'proxy', 'trace']).done
      expect(text.code).toBe(0)
      expect(text.stdout).not.toMatch(unsafe)
      expect(text.stdout).toContain('\\u001b]0;pwned\\u0007')
      // The request line, three events and the message's sub-line: nothing forged.
      const shown = text.stdout.trimEnd().split('\n')
      expect(shown).toHaveLength(5)
      expect(shown.filter((l) => /^\s*\+0\.001 ms +forged/.test(l))).toEqual([])
    } finally {
      await admin.close()
    }
  })

  it('quotes the admin answer and exits 1 when the stream is refused', async () => {
    const admin = await startScriptedAdmin({
      '/debug/trace': (_req, res) => {
        res.writeHead(503, { 'content-type': 'text/plain' })
        res.end('shutting down\n')
      },
    })
    try {
      const r = await spawnGwctl(['--admin', admin.admin, 'proxy', 'trace', '--raw']).done
      expect(r.code).toBe(1)
      expect(r.stderr).toBe(
        `gwctl: the admin interface at ${admin.admin} answered 503 to /debug/trace: shutting down\n`,
      )
    } finally {
      await admin.close()
    }
  })
})

function tmux(...args: string[]): string {
  return execFileSync(tmuxPath(), args, { encoding: 'utf8' })
}

/** Polls the pane until it shows `text`; after 15 s fails with what the pane shows. */
async function paneUntil(session: string, text: string): Promise<string> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const pane = tmux('capture-pane', '-p', '-t', session)
    if (pane.includes(text)) return pane
    if (Date.now() > deadline) {
      throw new Error(`the tmux pane never showed ${JSON.stringify(text)}; it shows:\n${pane}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * The pane stands for a person's terminal, so it must not look like a CI job: Ink draws no
 * frames while it runs when `CI`, `CONTINUOUS_INTEGRATION` or a `CI_*` variable is set
 * (`is-in-ci`), and only prints the last frame on exit.
 */
const NOT_IN_CI =
  'unset CI CONTINUOUS_INTEGRATION; for v in $(compgen -e | grep "^CI_"); do unset "$v"; done'

const TUI_SUITE = hasTmux()
  ? 'gwctl proxy trace terminal UI under tmux'
  : `gwctl proxy trace terminal UI under tmux (skipped: no tmux at ${tmuxPath()}; npm run setup:test-tools)`

describe.skipIf(!hasTmux())(TUI_SUITE, () => {
  let live: LiveGatehouse
  const session = `gwctl-trace-${process.pid}`
  const sessions: string[] = []
  beforeAll(async () => {
    live = await startLiveGatehouse()
  })
  afterAll(async () => {
    for (const s of [session, ...sessions]) {
      try {
        tmux('kill-session', '-t', s)
      } catch {
        // already gone
      }
    }
    await live.close()
  })

  /**
   * Runs gwctl in a tmux pane from a shell that survives Ctrl-C (it traps INT), so the pane
   * shows gwctl's exit code afterwards.
   */
  async function startInPane(name: string, args: string): Promise<void> {
    const cwd = await mkdtemp(join(tmpdir(), 'gwctl-tui-'))
    const script = join(cwd, 'run.sh')
    await writeFile(
      script,
      `#!/bin/bash\ntrap 'echo shell got INT' INT\n${NOT_IN_CI}\n${process.execPath} ${GWCTL_ARGS.join(' ')} ${args}\necho "gwctl exited $?"\nsleep 600\n`,
    )
    await chmod(script, 0o755)
    sessions.push(name)
    tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', '-c', cwd, script)
  }

  it('stops following on Ctrl-C with exit 0, each traced request on one line', async () => {
    const name = `${session}-follow`
    await startInPane(name, `-p ${live.adminPort} proxy trace --local --follow`)
    await paneUntil(name, 'Waiting for the next request')
    await fetch(`${live.url}/mcp/first`)
    await paneUntil(name, 'GET /mcp/first status 200')
    await paneUntil(name, 'Waiting for the next request')
    await fetch(`${live.url}/missing`)
    await paneUntil(name, 'GET /missing status 404')
    tmux('send-keys', '-t', name, 'C-c')
    const pane = await paneUntil(name, 'gwctl exited')
    expect(pane).toContain('gwctl exited 0')
    expect(pane).toMatch(/req-\d+ GET \/mcp\/first status 200 in/)
    expect(pane).toMatch(/route +no route matches/)
  })

  it('exits 130 on Ctrl-C before any request arrived', async () => {
    const name = `${session}-cancel`
    await startInPane(name, `-p ${live.adminPort} proxy trace --local`)
    await paneUntil(name, 'Waiting for the next request')
    tmux('send-keys', '-t', name, 'C-c')
    expect(await paneUntil(name, 'gwctl exited')).toContain('gwctl exited 130')
  })

  it('shows the route, backend and status of the request sent while it waits, then exits 0', async () => {
    const cmd = `${NOT_IN_CI}; ${process.execPath} ${GWCTL_ARGS.join(' ')} -p ${live.adminPort} proxy trace --local; echo "gwctl exited $?"; sleep 600`
    // Started in a directory without a tsconfig.json: the UI must not depend on the cwd's one.
    const cwd = await mkdtemp(join(tmpdir(), 'gwctl-tui-'))
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', '-c', cwd, 'bash', '-c', cmd)
    await paneUntil(session, 'Waiting for the next request')
    expect(
      (await fetch(`${live.url}/mcp`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200)
    const pane = await paneUntil(session, 'gwctl exited')
    expect(pane).toContain('gwctl exited 0')
    expect(pane).toMatch(/GET \/mcp status 200 in \d+\.\d{3} ms/)
    expect(pane).toMatch(/route +mcp rule 0 \(PathPrefix \/mcp\)/)
    expect(pane).toMatch(/backend +mcp-backend at http:\/\/127\.0\.0\.1:\d+/)
    expect(pane).toMatch(/\+ *\d+\.\d{3} ms finished +status=200/)
    expect(pane).not.toContain(TOKEN)
  })
})
