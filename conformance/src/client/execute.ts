/**
 * Runs the client under test the way the official MCP conformance suite's `client` mode does
 * (modelcontextprotocol/conformance, src/runner/client.ts): the command is split at spaces, the
 * server URL appended as the last argument (or put where the command says `{url}`), and it runs through a shell with
 * `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and — when the scenario has one —
 * `MCP_CONFORMANCE_CONTEXT` (JSON with the scenario `name`) in its environment; 30 s unless told
 * otherwise. Unlike there, the client gets its own process group, and a timeout ends the whole
 * group, so nothing it started outlives the run.
 */
import { spawn } from 'node:child_process'

/** The MCP protocol version a client is told to speak. */
export const PROTOCOL_VERSION = '2025-11-25'

/** How one client run ended. */
export interface ClientRun {
  /** The exit code; null when a signal ended it. */
  exitCode: number | null
  signal: string | null
  /** Ended by the harness at the time limit. */
  timedOut: boolean
  durationMs: number
  stdout: string
  stderr: string
}

/** What the client is given. */
export interface ClientInvocation {
  command: string
  serverUrl: string
  /** `MCP_CONFORMANCE_SCENARIO`. */
  clientScenario: string
  /** `MCP_CONFORMANCE_PROTOCOL_VERSION`; default {@link PROTOCOL_VERSION}. */
  protocolVersion?: string
  /** Our scenario name, as `GATEHOUSE_CONFORMANCE_SCENARIO`. */
  scenario: string
  context?: Record<string, unknown>
  timeoutMs: number
}

/** The last `max` characters of a stream's text. */
const tail = (s: string, max = 16_384) => (s.length > max ? s.slice(-max) : s)

/** Runs the client to its end (or the time limit). */
export function executeClient(inv: ClientInvocation): Promise<ClientRun> {
  const [executable, ...args] = inv.command.split(' ')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MCP_CONFORMANCE_SCENARIO: inv.clientScenario,
    MCP_CONFORMANCE_PROTOCOL_VERSION: inv.protocolVersion ?? PROTOCOL_VERSION,
    GATEHOUSE_CONFORMANCE_SCENARIO: inv.scenario,
  }
  if (inv.context)
    env.MCP_CONFORMANCE_CONTEXT = JSON.stringify({ name: inv.clientScenario, ...inv.context })
  else delete env.MCP_CONFORMANCE_CONTEXT
  const started = performance.now()
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let timedOut = false
    // `{url}` places the server URL (mcp-remote wants it first); without it, it is appended.
    const withUrl = inv.command.includes('{url}')
      ? args.map((a) => a.replaceAll('{url}', inv.serverUrl))
      : [...args, inv.serverUrl]
    const child = spawn((executable ?? '').replaceAll('{url}', inv.serverUrl), withUrl, {
      shell: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      detached: true,
    })
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal)
      } catch {
        // The group is gone already.
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup('SIGTERM')
      setTimeout(() => killGroup('SIGKILL'), 2000).unref()
    }, inv.timeoutMs)
    child.stdout?.on('data', (c: Buffer) => {
      stdout = tail(stdout + c.toString())
    })
    child.stderr?.on('data', (c: Buffer) => {
      stderr = tail(stderr + c.toString())
    })
    let done = false
    const finish = (exitCode: number | null, signal: string | null, extra = '') => {
      if (done) return
      done = true
      clearTimeout(timer)
      // Whatever the client left running in its group ends with it.
      killGroup('SIGKILL')
      resolve({
        exitCode,
        signal,
        timedOut,
        durationMs: Math.round(performance.now() - started),
        stdout,
        stderr: stderr + extra,
      })
    }
    child.once('error', (err) => finish(-1, null, `\nprocess error: ${err.message}`))
    child.once('close', (code, signal) => finish(code, signal))
    // A process the client left behind may hold its output open: do not wait for it long.
    child.once('exit', (code, signal) => {
      setTimeout(() => finish(code, signal), 500).unref()
    })
  })
}
