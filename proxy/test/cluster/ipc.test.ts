import { fork } from 'node:child_process'
import { EventEmitter, once } from 'node:events'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IpcCallError, type IpcEndpoint, IpcPeer } from '../../src/cluster/ipc.js'

/** Two ends of a channel that delivers asynchronously, as node:cluster's IPC does. */
function channel(): [IpcEndpoint & EventEmitter, IpcEndpoint & EventEmitter] {
  const a = new EventEmitter() as IpcEndpoint & EventEmitter & { closed?: boolean }
  const b = new EventEmitter() as IpcEndpoint & EventEmitter & { closed?: boolean }
  const link = (from: typeof a, to: typeof b) => {
    from.send = (message: unknown) => {
      if (from.closed) throw new Error('channel closed')
      // A copy, as the real channel serialises.
      const copy = JSON.parse(JSON.stringify(message))
      setImmediate(() => to.emit('message', copy))
      return true
    }
  }
  link(a, b)
  link(b, a)
  return [a, b]
}

describe('IpcPeer', () => {
  it('answers a call with the handler value, and an error with its message', async () => {
    const [a, b] = channel()
    const primary = new IpcPeer(a)
    const worker = new IpcPeer(b)
    primary.handle('add', (x: number, y: number) => x + y)
    primary.handle('fail', async () => {
      throw new Error('store is down')
    })
    expect(await worker.call('add', [2, 3])).toBe(5)
    await expect(worker.call('fail')).rejects.toThrow(new IpcCallError('store is down'))
    await expect(worker.call('missing')).rejects.toThrow(/no handler for missing/)
  })

  it('answers undefined as null (the channel carries JSON)', async () => {
    const [a, b] = channel()
    new IpcPeer(a).handle('nothing', () => undefined)
    expect(await new IpcPeer(b).call('nothing')).toBeNull()
  })

  it('rejects a call nobody answers once its timeout passes', async () => {
    const [, b] = channel()
    await expect(new IpcPeer(b).call('lost', [], 20)).rejects.toThrow(
      /lost: no answer within 20 ms/,
    )
  })

  it('fails pending and later calls once closed, and when the channel is gone', async () => {
    const [a, b] = channel()
    const worker = new IpcPeer(b)
    new IpcPeer(a).handle('slow', () => new Promise(() => {}))
    const pending = worker.call('slow')
    worker.close('worker exited')
    await expect(pending).rejects.toThrow('worker exited')
    await expect(worker.call('slow')).rejects.toThrow('worker exited')
    ;(b as unknown as { closed: boolean }).closed = true
    await expect(new IpcPeer(b).call('slow')).rejects.toThrow('channel closed')
  })

  it('delivers notes one way and ignores messages that are not its own', async () => {
    const [a, b] = channel()
    const primary = new IpcPeer(a)
    const heard: unknown[] = []
    primary.handle('event', (...args: unknown[]) => heard.push(args))
    a.emit('message', { cmd: 'NODE_CLUSTER' })
    a.emit('message', 'text')
    new IpcPeer(b).notify('event', [1, 'x'])
    await new Promise((r) => setTimeout(r, 20))
    expect(heard).toEqual([[1, 'x']])
  })

  it('rejects a call to a real child whose channel closed, without an error event', async () => {
    // Node reports a send on a closed channel as an 'error' event unless send() is given a
    // callback; nobody listens for it on a cluster worker, so it would end the primary.
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ipc-'))
    const script = join(dir, 'exit.mjs')
    writeFileSync(script, 'process.disconnect()\n')
    const child = fork(script, { stdio: 'ignore' })
    await once(child, 'exit')
    expect(child.connected).toBe(false)
    await expect(new IpcPeer(child).call('config')).rejects.toThrow(IpcCallError)
  })
})
