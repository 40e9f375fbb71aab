/**
 * Faults injected through the control API (`/__control/faults`): an endpoint (key set, discovery,
 * registration, token) that errors, hangs or answers slowly, so the proxy's failure handling can be tested
 * against a real provider on demand.
 */
import type { ServerResponse } from 'node:http'
import { sendJson } from '@gatehouse/support'
import type { Fault, FaultEndpoint } from './options.js'

/** The faults in force and the responses held open by `hang`. */
export class FaultInjector {
  readonly faults = new Map<FaultEndpoint, Fault>()
  readonly hanging = new Set<ServerResponse>()

  /**
   * Applies the endpoint's fault, if any.
   * @returns true when the fault answered (or holds) the request; false to serve it normally
   *   (no fault, or a `slow` one after its delay).
   */
  async apply(endpoint: FaultEndpoint, res: ServerResponse): Promise<boolean> {
    const fault = this.faults.get(endpoint)
    if (!fault) return false
    if (fault.mode === 'hang') {
      this.hanging.add(res)
      res.once('close', () => this.hanging.delete(res))
      return true
    }
    if (fault.mode === 'slow') {
      await new Promise((r) => setTimeout(r, fault.delayMs ?? 2000))
      return false
    }
    sendJson(res, fault.status ?? 500, {
      errorCode: 'E0000009',
      errorSummary: 'Internal Server Error (injected fault)',
    })
    return true
  }

  /** Ends every held response (on stop). */
  release(): void {
    for (const res of this.hanging) res.destroy()
    this.hanging.clear()
  }
}
