/**
 * An in-process stand-in for node:cluster's IPC channel, for the cluster's unit tests: two
 * endpoints that deliver each other's messages asynchronously, as JSON copies (as the real channel
 * serialises), and a switch that makes one end's `send` fail as it does once its peer is gone.
 */
import { EventEmitter } from 'node:events'
import type { IpcEndpoint } from '../src/cluster/ipc.js'

/** One end of a {@link channel}. */
export type TestEndpoint = IpcEndpoint & EventEmitter & { closed: boolean }

/** Two connected ends; `defer` schedules a delivery (default `setImmediate`). */
export function channel(
  defer: (fn: () => void) => void = setImmediate,
): [TestEndpoint, TestEndpoint] {
  const a = Object.assign(new EventEmitter(), { closed: false }) as TestEndpoint
  const b = Object.assign(new EventEmitter(), { closed: false }) as TestEndpoint
  const link = (from: TestEndpoint, to: TestEndpoint) => {
    from.send = (message: unknown, callback: (error: Error | null) => void) => {
      // As Node with a callback: a closed channel is reported to it, later.
      if (from.closed) {
        defer(() => callback(new Error('channel closed')))
        return false
      }
      const copy = JSON.parse(JSON.stringify(message))
      defer(() => to.emit('message', copy))
      return true
    }
  }
  link(a, b)
  link(b, a)
  return [a, b]
}
