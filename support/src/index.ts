/**
 * What Gatehouse's mocks (mock-idp, mcp-backend), commands, benchmarks, the conformance harness
 * and the tests share, so that each exists once (issue #15 item 4): a free loopback port, a JSON
 * response and graceful shutdown on SIGINT/SIGTERM. No dependencies beyond Node's own modules.
 */
export { freePort, isPortTaken, onFreePort } from './free-port.js'
export { sendJson } from './send-json.js'
export { onShutdownSignals, SHUTDOWN_EXIT, type ShutdownOptions } from './shutdown.js'
