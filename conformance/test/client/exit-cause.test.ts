import { describe, expect, it } from 'vitest'
import { exitCause } from '../../src/client/exit-cause.js'

/** What Node 20 prints for an uncaught error with a property (a real process's stderr). */
const UNCAUGHT = `file:///tmp/client.mjs:1
async function main() { throw new Error('Server returned 401 after re-authentication') }
                                  ^

Error: Server returned 401 after re-authentication
    at main (file:///tmp/client.mjs:1:35)
    at async ModuleLoader.import (node:internal/modules/esm/loader:606:24) {
  code: 'E_AUTH'
}

Node.js v20.20.2
`

const WITH_CAUSE = `node:internal/process/promises:394
    triggerUncaughtException(err, true /* fromPromise */);
    ^

TypeError: fetch failed
    at node:internal/deps/undici/undici:13510:13 {
  [cause]: Error: connect ECONNREFUSED 127.0.0.1:1
      at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16)
}

Node.js v20.20.2
`

describe('exitCause', () => {
  it('quotes the error message of an uncaught error, not its last stack frame or the Node.js trailer', () => {
    expect(exitCause(UNCAUGHT)).toBe('Error: Server returned 401 after re-authentication')
  })

  it('adds the cause Node printed after the message', () => {
    expect(exitCause(WITH_CAUSE)).toBe(
      'TypeError: fetch failed (cause: Error: connect ECONNREFUSED 127.0.0.1:1)',
    )
  })

  it('quotes the last line of stderr that is not a frame when no error message starts a line', () => {
    expect(exitCause('starting\nhand-client: token endpoint: invalid_grant\n')).toBe(
      'hand-client: token endpoint: invalid_grant',
    )
    expect(exitCause('gave up\n    at f (x.js:1:1)\n')).toBe('gave up')
  })

  it('says so when stderr is empty, and never quotes a token', () => {
    expect(exitCause('')).toBe('no stderr')
    expect(exitCause('\n\n')).toBe('no stderr')
    expect(
      exitCause('Error: sent Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl'),
    ).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/)
  })
})
