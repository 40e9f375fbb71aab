/**
 * The connections the primary is handing to one worker, closed when that worker goes away before
 * it took them.
 *
 * Under node:cluster's round-robin policy (the default but on Windows) the primary accepts each
 * connection and sends it to a worker over IPC (`{ cmd: 'NODE_CLUSTER', act: 'newconn', seq }`
 * with the handle), keeping its own copy until the worker answers `{ ack: seq, accepted }`. A
 * worker killed in between never answers, and Node's `RoundRobinHandle` has no path for that: the
 * primary held the connection open for good and its client waited forever (one such request per
 * SIGKILL under load; docs/reliability.md, "Workers"). This guard remembers each handle in flight
 * and closes the ones still unanswered once the worker's channel is gone, so their clients see the
 * connection end (a connection error they may retry) instead of a hang. Round-robin stays: the
 * kernel's own distribution (`SCHED_NONE`) gave one worker every connection in our tests.
 *
 * It reads Node's internal cluster messages, the same in Node 20, 22 and 24; an unknown shape is
 * passed through untouched, so a change there costs only the guard, never the handoff.
 */
import type { ChildProcess } from 'node:child_process'

/** What the guard needs of a connection handle (libuv's TCP handle in the primary). */
interface Closable {
  close(): void
}

type Send = (...args: unknown[]) => boolean

function newConnectionSeq(message: unknown): number | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const m = message as Record<string, unknown>
  return m.cmd === 'NODE_CLUSTER' && m.act === 'newconn' && typeof m.seq === 'number'
    ? m.seq
    : undefined
}

function ackSeq(message: unknown): number | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const m = message as Record<string, unknown>
  return m.cmd === 'NODE_CLUSTER' && typeof m.ack === 'number' ? m.ack : undefined
}

function isClosable(handle: unknown): handle is Closable {
  return (
    typeof handle === 'object' &&
    handle !== null &&
    typeof (handle as Partial<Closable>).close === 'function'
  )
}

/**
 * Watches the connections handed to the worker process `proc` (call once, right after
 * `cluster.fork`). Once its IPC channel has closed — every answer it sent read — and at the
 * latest when it exits with its channel closed, every handoff it never answered is closed.
 */
export function guardHandoffs(proc: ChildProcess): void {
  const pending = new Map<number, Closable>()
  const target = proc as unknown as { send: Send }
  const send = target.send.bind(proc) as Send
  target.send = (...args: unknown[]) => {
    const seq = newConnectionSeq(args[0])
    if (seq !== undefined && isClosable(args[1])) pending.set(seq, args[1])
    return send(...args)
  }
  proc.on('internalMessage', (message: unknown) => {
    const seq = ackSeq(message)
    if (seq !== undefined) pending.delete(seq)
  })
  const closeAll = () => {
    for (const handle of pending.values()) handle.close()
    pending.clear()
  }
  proc.once('disconnect', closeAll)
  // A channel that ends in the middle of a message never emits 'disconnect' (Node waits for the
  // rest of the message): at the exit, a closed channel has delivered every answer it will.
  proc.once('exit', () => {
    if (!proc.connected) closeAll()
  })
}
