import type { ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { describe, expect, it, vi } from 'vitest'
import { guardHandoffs } from '../../src/cluster/handoff.js'

/** A worker process as node:cluster's primary drives it: `send` and internal messages. */
function workerProcess() {
  const sent: unknown[][] = []
  const proc = Object.assign(new EventEmitter(), {
    connected: true,
    send: (...args: unknown[]) => {
      sent.push(args)
      return true
    },
  })
  guardHandoffs(proc as unknown as ChildProcess)
  return { proc, sent }
}

/** What `RoundRobinHandle.handoff` sends (Node's cluster `sendHelper`). */
function handoff(proc: { send: (...args: unknown[]) => boolean }, seq: number) {
  const handle = { close: vi.fn() }
  proc.send({ cmd: 'NODE_CLUSTER', act: 'newconn', key: '127.0.0.1:3000:4:0', seq }, handle)
  return handle
}

describe('guardHandoffs', () => {
  it('closes a connection handed to a worker that died before it answered', () => {
    const { proc, sent } = workerProcess()
    const answered = handoff(proc, 1)
    const orphaned = handoff(proc, 2)
    // The message still goes out as it was.
    expect(sent).toHaveLength(2)
    expect(sent[1]?.[1]).toBe(orphaned)
    proc.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: 1, accepted: true, seq: 9 })
    expect(orphaned.close).not.toHaveBeenCalled()
    proc.emit('disconnect')
    expect(orphaned.close).toHaveBeenCalledTimes(1)
    expect(answered.close).not.toHaveBeenCalled()
  })

  it('closes it at the exit when the channel closed without a disconnect (cut mid-message)', () => {
    const { proc } = workerProcess()
    const orphaned = handoff(proc, 5)
    proc.connected = false
    proc.emit('exit', null, 'SIGKILL')
    expect(orphaned.close).toHaveBeenCalledTimes(1)
    // A disconnect after all closes nothing twice.
    proc.emit('disconnect')
    expect(orphaned.close).toHaveBeenCalledTimes(1)
  })

  it('waits for the disconnect when the worker exits with its channel still open (answers may follow)', () => {
    const { proc } = workerProcess()
    const answered = handoff(proc, 6)
    proc.emit('exit', 0, null)
    expect(answered.close).not.toHaveBeenCalled()
    proc.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: 6, accepted: true })
    proc.emit('disconnect')
    expect(answered.close).not.toHaveBeenCalled()
  })

  it('leaves other messages and a worker that answered everything alone', () => {
    const { proc, sent } = workerProcess()
    const other = { close: vi.fn() }
    proc.send({ cmd: 'NODE_CLUSTER', act: 'listening', seq: 3 }, other)
    proc.send({ method: 'store.get' })
    const handle = handoff(proc, 4)
    proc.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: 4, accepted: false })
    proc.emit('disconnect')
    expect(sent).toHaveLength(3)
    expect(other.close).not.toHaveBeenCalled()
    expect(handle.close).not.toHaveBeenCalled()
  })
})
