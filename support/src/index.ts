/**
 * What Gatehouse's mocks (mock-idp, mcp-backend), commands, benchmarks, the conformance harness
 * and the tests share, so that each exists once: a free loopback port (and a start retried on
 * another when it was taken), a JSON response, graceful shutdown on SIGINT/SIGTERM, and the test
 * kit — one in-memory OAuth client provider, one process launcher with clean-up, one gatehouse
 * configuration builder and launcher. No dependencies beyond Node's own modules.
 */
export { freePort, freePorts, isPortTaken, withFreePort } from './free-port.js'
export {
  GATEHOUSE_BIN,
  type GatehouseConfigParts,
  type GatehouseProcess,
  gatehouseArgs,
  gatehouseConfig,
  type LaunchGatehouseOptions,
  launchGatehouse,
  startGatehouseProcess,
  writeGatehouseConfig,
} from './gatehouse.js'
export {
  type ClientInformation,
  type DiscoveryState,
  followAuthorizationRedirect,
  MemoryOAuthClient,
  type MemoryOAuthClientOptions,
  preRegisteredFromEnvironment,
  sameIssuer,
  type TokenSet,
} from './oauth-client.js'
export {
  type Launched,
  launch,
  type ProcessOptions,
  type ProcessResult,
  runProcess,
  stopLaunched,
} from './process.js'
export { sendJson } from './send-json.js'
export { onShutdownSignals, SHUTDOWN_EXIT, type ShutdownOptions } from './shutdown.js'
