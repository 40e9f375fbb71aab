/**
 * The test tiers (CONTRIBUTING, "Tests"), as vitest projects (vitest.config.ts):
 *
 * - `unit`: in-process — no socket, no process (scripts/vitest/unit-guard.ts makes both throw),
 *   fake timers for time. Every test file is here unless listed below.
 * - `integration`: real servers on 127.0.0.1 (`listen(0)`), real processes, Redis, SQLite files.
 * - `e2e`: third-party programs driving whole stacks — the real peers, Chromium, npm pack — and
 *   the planted-fault client table. Not run again on the other LTS line (ci/test-lts.ts).
 *
 * A file is in the tier whose globs match it (one that matches both lists is e2e: the integration
 * project leaves E2E out); the tiers' test (scripts/test/tiers.test.ts) checks that every glob
 * matches a test file and that the unit tier's guard holds.
 */

/** Every test file of the repository. */
export const ALL = [
  '{redact,support,proxy,mock-idp,mock-mcp,conformance,gwctl,peers,mutation,bench}/test/**/*.test.{ts,tsx}',
  'scripts/test/**/*.test.ts',
]

/**
 * Third-party programs driving whole stacks: the real peers (and the verdict tables that judge
 * them), Chromium, npm pack; and the planted-fault client table, a whole stack per faulty client.
 */
export const E2E = [
  'peers/test/{cross-judge,inspector,inspector.restart,matrix,mcp-remote,sdk-v1,sdk-v2}.test.ts',
  'conformance/test/client/clients.test.ts',
  'conformance/test/{browser,ci-recipes,pack}.test.ts',
  'conformance/test/**/*.browser.test.ts',
  'proxy/test/**/*.browser.test.{ts,tsx}',
  'proxy/test/e2e/browser-sdk-oauth.test.ts',
]

/** Real servers, connections and processes on loopback. */
export const INTEGRATION = [
  '{support,mock-idp,mock-mcp}/test/**/*.test.ts',
  'conformance/test/{bin/conformance,flow,runner,shape-stack,target}.test.ts',
  'conformance/test/client/{cli,judge,recorder}.test.ts',
  'conformance/test/report/html/server.cli.test.ts',
  'gwctl/test/{cli,commands/*}.test.ts',
  'gwctl/test/trace/trace-view.test.tsx',
  'mutation/test/proxy-copy.test.ts',
  'peers/test/sdk-resource-server.test.ts',
  // Whole-proxy tests (a real IdP, backend and SDK client, in-process) are integration too.
  'proxy/test/{e2e,reliability}/**/*.test.ts',
  'proxy/test/cli.test.ts',
  'proxy/test/lifecycle/{reload.attacks,reload.inputs,reload}.test.ts',
  'proxy/test/config/read-input.test.ts',
  'proxy/test/admin/{address,app,health,profile-endpoints,routes.quitquitquit,routes}.test.ts',
  'proxy/test/admin/{server.docs,server}.test.ts',
  'proxy/test/admin/ui/{admin-routes,gateway-view}.test.ts',
  'proxy/test/admin/ui/app/{api,oauth-flow,oauth-mcp-step}.test.ts',
  'proxy/test/auth/{discovery,fetch,jwks.refresh,jwks,online-check,opaque-token,origin-pools}.test.ts',
  'proxy/test/auth/policy.test.ts',
  'proxy/test/auth/shared-verification.test.ts',
  'proxy/test/auth/oauth-endpoints/{endpoints,registration-body}.test.ts',
  'proxy/test/auth/{transformation,verify.failures,verify.keys,verify}.test.ts',
  'proxy/test/broker/{authorize.flood,authorize,callback,client-metadata,consent}.test.ts',
  'proxy/test/broker/{guarded-fetch,metadata,register,store.restart,token}.test.ts',
  'proxy/test/cluster/{ipc,primary}.test.ts',
  'proxy/test/config/kubernetes/{secrets,translate.equivalence}.test.ts',
  'proxy/test/dataplane/{certificates,cors,forward.faults,forward,listener}.test.ts',
  'proxy/test/dataplane/{origin,session-binding}.test.ts',
  'proxy/test/http/{upstream,upstream.tls}.test.ts',
  'proxy/test/store/{redis.replicas,redis.stall,redis}.test.ts',
  'proxy/test/telemetry/otel.test.ts',
  'scripts/test/{build,citations,node-lts,supported-node}.test.ts',
]

/** The tiers, in the order vitest.config.ts declares them. */
export const TIERS = ['unit', 'integration', 'e2e'] as const
/** One tier. */
export type Tier = (typeof TIERS)[number]

/**
 * Test files that start first whatever their tier: the longest (2026-11-28, clean-clone CI on 2
 * cores: the real-peer matrix 314 s, the planted-fault client table 137 s, the client mode's runs
 * 43 s). Started last, one of them would keep a run going after every other file finished.
 */
export const LONGEST_FIRST = [
  'peers/test/matrix.test.ts',
  'conformance/test/client/clients.test.ts',
  'conformance/test/client/cli.test.ts',
]
