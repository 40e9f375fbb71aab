import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { GatewayInfo } from '../../src/admin/context.js'
import { Fleet, RESTART_BACKOFF_MS, WORKER_ID_ENV } from '../../src/cluster/fleet.js'
import { IpcPeer } from '../../src/cluster/ipc.js'
import { channel, type TestEndpoint } from '../ipc-channel.js'

// node:cluster's fork is replaced by in-process workers: a channel and a process that exits
// when told to, so that the fleet's bookkeeping runs without forking.
const fork = vi.hoisted(() => vi.fn())
vi.mock('node:cluster', () => ({ default: { fork } }))

/** A forked worker as the test drives it. */
interface FakeWorker {
  env: Record<string, string>
  /** The worker's end of the channel. */
  peer: IpcPeer
  /** Signals it was sent. */
  kills: string[]
  /** It ignores SIGTERM and `admin.stop` (only SIGKILL ends it). */
  stubborn: boolean
  exit(code: number | null, signal?: string | null): void
  ready(gateways?: GatewayInfo[]): Promise<unknown>
}

/** Polls `check` until it passes (generous: the machine may be loaded). */
function waitFor(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: 5_000, interval: 5 })
}

let workers: FakeWorker[] = []

function fakeFork(env: Record<string, string>) {
  const [primaryEnd, workerEnd] = channel()
  let dead = false
  const fake: FakeWorker = {
    env,
    peer: new IpcPeer(workerEnd),
    kills: [],
    stubborn: false,
    exit(code, signal = null) {
      if (dead) return
      dead = true
      primaryEnd.closed = true
      workerEnd.closed = true
      worker.emit('exit', code, signal)
    },
    ready: (gateways = [gateway(workers.indexOf(fake) + 1)]) =>
      fake.peer.call('worker.ready', [gateways]),
  }
  const worker = Object.assign(primaryEnd as TestEndpoint & EventEmitter, {
    // A ChildProcess as far as the handoff guard (cluster/handoff.ts) reads one.
    process: Object.assign(new EventEmitter(), {
      send: () => true,
      pid: 5000 + workers.length,
      kill(signal: string) {
        // As ChildProcess.kill: nothing to signal once it has exited.
        if (dead) return
        fake.kills.push(signal)
        if (signal === 'SIGKILL' || !fake.stubborn) setImmediate(() => fake.exit(null, signal))
      },
    }),
    isDead: () => dead,
  })
  fake.peer.handle('admin.stop', () => {
    if (!fake.stubborn) setImmediate(() => fake.exit(0))
    return true
  })
  workers.push(fake)
  return worker
}

function gateway(n: number): GatewayInfo {
  const url = `http://127.0.0.1:${3000 + n}`
  return { name: 'default', address: '127.0.0.1', port: 3000 + n, url, routes: ['main'] }
}

function testLog() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() }
}

function fleet(size: number, log = testLog(), onReady?: (peer: IpcPeer) => void) {
  const served: IpcPeer[] = []
  const f = new Fleet({
    size,
    log: log as unknown as Logger,
    serve: (peer) => {
      served.push(peer)
      peer.handle('store.get', (key: string) => `value of ${key}`)
    },
    ...(onReady ? { onReady } : {}),
  })
  return { fleet: f, served, log }
}

/** Starts `size` workers and has each report ready. */
async function started(size: number, log = testLog()) {
  const f = fleet(size, log)
  const start = f.fleet.start()
  await Promise.all(workers.map((w) => w.ready()))
  await start
  return f
}

const stops: Fleet[] = []
beforeEach(() => {
  workers = []
  fork.mockReset()
  fork.mockImplementation(fakeFork)
})
afterEach(async () => {
  vi.useRealTimers()
  for (const f of stops.splice(0)) await f.stop('test over', 1_000)
})

describe('Fleet', () => {
  it('forks one worker per slot and is started once every one listens', async () => {
    const onReady = vi.fn()
    const f = fleet(2, testLog(), onReady)
    stops.push(f.fleet)
    const start = f.fleet.start()
    expect(fork.mock.calls.map(([env]) => env)).toEqual([
      { [WORKER_ID_ENV]: '1' },
      { [WORKER_ID_ENV]: '2' },
    ])
    expect(f.fleet.workers().map((w) => w.state)).toEqual(['starting', 'starting'])
    let done = false
    void start.then(() => (done = true))
    await workers[1]?.ready([gateway(2)])
    expect(done).toBe(false)
    expect(f.fleet.gateways()).toEqual([gateway(2)])
    await workers[0]?.ready([gateway(1)])
    await start
    expect(onReady).toHaveBeenCalledTimes(2)
    expect(f.fleet.workers()).toMatchObject([
      { id: 1, pid: 5000, state: 'ready', restarts: 0 },
      { id: 2, pid: 5001, state: 'ready', restarts: 0 },
    ])
    expect(f.fleet.gateways()).toEqual([gateway(1)])
    // What the fleet serves answers each worker.
    expect(await workers[1]?.peer.call('store.get', ['k'])).toBe('value of k')
    // A worker that exited no longer speaks for the gateways.
    workers[0]?.exit(1)
    expect(f.fleet.gateways()).toEqual([gateway(2)])
  })

  it('fails to start when a worker exits before it is ready, and stops the others', async () => {
    const f = fleet(2)
    const start = f.fleet.start()
    await workers[0]?.ready()
    workers[1]?.exit(1)
    await expect(start).rejects.toThrow(
      'worker 2 exited (code 1) before it was ready; its message is above',
    )
    expect(workers[0]?.kills).toEqual([])
    expect(f.fleet.workers().map((w) => w.state)).toEqual(['exited', 'exited'])
    expect(fork).toHaveBeenCalledTimes(2)
  })

  it('calls every ready worker, answering an error for one that fails', async () => {
    const { fleet: f } = await started(3)
    stops.push(f)
    workers.forEach((w, i) => {
      w.peer.handle('admin.status', () => ({ n: i + 1 }))
    })
    workers[2]?.peer.handle('admin.status', () => {
      throw new Error('busy')
    })
    const answers = await f.each<{ n: number }>('admin.status')
    expect(answers.map((a) => [a.worker.id, a.value?.n ?? a.error])).toEqual([
      [1, 1],
      [2, 2],
      [3, 'busy'],
    ])
  })

  it('sends a note to one worker or to every ready one, and hears theirs with the slot', async () => {
    const { fleet: f } = await started(2)
    stops.push(f)
    const heard: unknown[][] = []
    f.onNote('trace.event', (worker, ...args) => void heard.push([worker, ...args]))
    const got: unknown[][] = []
    workers.forEach((w, i) => {
      w.peer.handle('trace.cancel', (id: string) => void got.push([i + 1, id]))
    })
    f.notify(2, 'trace.cancel', ['w1'])
    f.notify(undefined, 'trace.cancel', ['w2'])
    workers[1]?.peer.notify('trace.event', ['w2', { seq: 0 }])
    await waitFor(() => expect(got).toHaveLength(3))
    await waitFor(() => expect(heard).toHaveLength(1))
    expect(got).toEqual([
      [2, 'w1'],
      [1, 'w2'],
      [2, 'w2'],
    ])
    expect(heard).toEqual([[2, 'w2', { seq: 0 }]])
  })

  it('restarts a worker that exits with a delay that grows to its cap', async () => {
    const { fleet: f, log } = await started(1)
    stops.push(f)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const delays: number[] = []
    for (let exit = 1; exit <= RESTART_BACKOFF_MS.length + 1; exit++) {
      workers.at(-1)?.exit(1)
      expect(f.workers()[0]).toMatchObject({ state: 'exited', pid: null })
      const delay = log.error.mock.lastCall?.[0].restartInMs as number
      delays.push(delay)
      vi.advanceTimersByTime(delay - 1)
      expect(fork).toHaveBeenCalledTimes(exit)
      vi.advanceTimersByTime(1)
      expect(fork).toHaveBeenCalledTimes(exit + 1)
      expect(f.workers()[0]).toMatchObject({ state: 'starting', restarts: exit })
    }
    expect(delays).toEqual([...RESTART_BACKOFF_MS, 30_000])
    expect(log.error.mock.lastCall?.[1]).toBe(
      'worker 1 (pid 5007) exited (code 1); restarting it in 30000 ms',
    )
  })

  it('starts the backoff over after a worker served a minute, not after one that never got ready', async () => {
    const { fleet: f, log } = await started(1)
    stops.push(f)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const exitAndRestart = () => {
      workers.at(-1)?.exit(null, 'SIGSEGV')
      const delay = log.error.mock.lastCall?.[0].restartInMs as number
      vi.advanceTimersByTime(delay)
      return delay
    }
    expect([exitAndRestart(), exitAndRestart(), exitAndRestart()]).toEqual([250, 500, 1_000])
    // The restarted worker serves for a minute, then exits: a fresh start.
    await workers.at(-1)?.ready()
    vi.advanceTimersByTime(60_000)
    expect(exitAndRestart()).toBe(250)
    // Its successors die before they are ready, more than a minute after it was: still growing.
    vi.advanceTimersByTime(60_000)
    expect([exitAndRestart(), exitAndRestart()]).toEqual([500, 1_000])
  })

  it('hears notes from a restarted worker with the handlers it had', async () => {
    const { fleet: f } = await started(1)
    stops.push(f)
    const heard: unknown[] = []
    f.onNote('trace.end', (worker, id) => void heard.push([worker, id]))
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    workers[0]?.exit(1)
    vi.advanceTimersByTime(RESTART_BACKOFF_MS[0])
    vi.useRealTimers()
    await workers[1]?.ready()
    expect(f.workers()[0]).toMatchObject({ state: 'ready', pid: 5001, restarts: 1 })
    // The gone worker's channel is closed: only the new one is called.
    workers[1]?.peer.handle('admin.status', () => 'new')
    expect((await f.each('admin.status')).map((a) => a.value)).toEqual(['new'])
    workers[1]?.peer.notify('trace.end', ['w9'])
    await waitFor(() => expect(heard).toEqual([[1, 'w9']]))
  })

  it('stops ready workers through admin.stop and starting ones with SIGTERM, then restarts none', async () => {
    const f = fleet(2)
    const start = f.fleet.start()
    await workers[0]?.ready()
    void start.catch(() => undefined)
    await f.fleet.stop('SIGTERM', 10_000)
    expect(workers.map((w) => w.kills)).toEqual([[], ['SIGTERM']])
    expect(f.fleet.workers().map((w) => w.state)).toEqual(['exited', 'exited'])
    expect(fork).toHaveBeenCalledTimes(2)
  })

  it('kills a worker that has not exited when the grace period ends', async () => {
    const { fleet: f, log } = await started(2)
    ;(workers[1] as FakeWorker).stubborn = true
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const stopped = f.stop('SIGTERM', 5_000)
    await waitFor(() => expect(workers[0]?.kills).toEqual([]))
    await waitFor(() => expect(f.workers()[0]?.state).toBe('exited'))
    expect(workers[1]?.kills).toEqual([])
    vi.advanceTimersByTime(5_000)
    await stopped
    expect(workers[1]?.kills).toEqual(['SIGKILL'])
    // Exits while stopping are neither logged as crashes nor restarted.
    vi.advanceTimersByTime(RESTART_BACKOFF_MS[0])
    expect(log.error).not.toHaveBeenCalled()
    expect(fork).toHaveBeenCalledTimes(2)
  })
})
