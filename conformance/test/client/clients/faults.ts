/**
 * The hand-written client's planted faults (hand-client.ts `--fault`): the scenario each is run
 * in and the requirement that must catch it. clients.test.ts proves each is caught; the
 * cross-judge (peers/bin/cross-judge.ts) runs the official suite on the same clients.
 */
export const CAUGHT_BY: Record<string, { scenario: string; id: string }> = {
  'no-pkce': { scenario: 'bridged-client-id', id: 'CLI-PKCE-001' },
  'plain-pkce': { scenario: 'bridged-client-id', id: 'CLI-PKCE-001' },
  'reused-verifier': { scenario: 'scope-step-up', id: 'CLI-PKCE-002' },
  'static-state': { scenario: 'scope-step-up', id: 'CLI-STATE-001' },
  'ignore-resource-metadata': { scenario: 'prm-root-only', id: 'CLI-PRM-001' },
  'root-prm-first': { scenario: 'no-resource-metadata', id: 'CLI-PRM-002' },
  'oidc-first': { scenario: 'pre-registered', id: 'CLI-ASM-001' },
  'register-at-idp': { scenario: 'bridged-client-id', id: 'CLI-REG-001' },
  'dcr-despite-preregistered': { scenario: 'pre-registered', id: 'CLI-REG-004' },
  'no-cimd': { scenario: 'cimd', id: 'CLI-REG-003' },
  'no-resource': { scenario: 'standards-idp', id: 'CLI-RES-001' },
  'redirect-mismatch': { scenario: 'bridged-proxied-dcr', id: 'CLI-REDIR-001' },
  'wrong-initial-scope': { scenario: 'bridged-client-id', id: 'CLI-SCOPE-001' },
  'token-in-query': { scenario: 'bridged-client-id', id: 'CLI-TOKEN-001' },
  'token-to-idp': { scenario: 'token-refresh', id: 'CLI-TOKEN-002' },
  'no-state-check': { scenario: 'forged-state', id: 'CLI-STATE-002' },
  'no-iss-check': { scenario: 'wrong-iss', id: 'CLI-ISS-001' },
  'no-issuer-check': { scenario: 'issuer-mismatch', id: 'CLI-ISS-002' },
  'no-resource-check': { scenario: 'resource-mismatch', id: 'CLI-RES-002' },
  'guessed-metadata': { scenario: 'bridged-client-id', id: 'CLI-PRM-001' },
  'wrong-resource': { scenario: 'standards-idp', id: 'CLI-RES-001' },
  'fake-client-id': { scenario: 'bridged-client-id', id: 'CLI-REG-001' },
  'step-up-wrong-scope': { scenario: 'scope-step-up', id: 'CLI-STEP-001' },
  'unlimited-step-up': { scenario: 'scope-retry-limit', id: 'CLI-STEP-002' },
  'no-refresh': { scenario: 'token-refresh', id: 'CLI-REFRESH-001' },
  'exit-1': { scenario: 'bridged-client-id', id: 'CLI-FLOW-001' },
  'hang-on-refusal': { scenario: 'forged-state', id: 'CLI-FLOW-002' },
  'ignore-client-secret': { scenario: 'token-endpoint-auth-basic', id: 'CLI-AUTHN-001' },
  'both-auth-methods': { scenario: 'token-endpoint-auth-post', id: 'CLI-AUTHN-003' },
  'no-client-id': { scenario: 'token-endpoint-auth-none', id: 'CLI-AUTHN-002' },
  'no-legacy-fallback': { scenario: 'legacy-metadata', id: 'CLI-LEGACY-001' },
  'skip-legacy-metadata': { scenario: 'legacy-defaults', id: 'CLI-LEGACY-003' },
  'keep-issuer-slash': { scenario: 'idp-issuer-trailing-slash', id: 'CLI-ASM-001' },
  // Refusing the right metadata (issuer "<origin>/" compared as "<origin>"): never gets through.
  'issuer-without-slash': { scenario: 'idp-issuer-trailing-slash', id: 'CLI-FLOW-001' },
  // Endpoints built from the issuer, not taken from the metadata (Google's are on other hosts).
  'authorize-at-issuer': { scenario: 'idp-endpoints-on-other-hosts', id: 'CLI-ASM-002' },
  'token-at-issuer': { scenario: 'idp-endpoints-on-other-hosts', id: 'CLI-ASM-003' },
  // MCP 2026-07-28 (the client speaks it when MCP_CONFORMANCE_PROTOCOL_VERSION says so)
  'accept-missing-iss': { scenario: 'iss-missing', id: 'CLI-ISS-003' },
  'iss-only-when-advertised': { scenario: 'iss-unadvertised', id: 'CLI-ISS-004' },
  'no-application-type': { scenario: 'request-metadata', id: 'CLI-REG-005' },
  'web-application-type': { scenario: 'request-metadata', id: 'CLI-REG-006' },
  'reuse-client-across-as': { scenario: 'as-migration', id: 'CLI-BIND-001' },
  'stale-as-metadata': { scenario: 'as-migration', id: 'CLI-BIND-002' },
  'no-refresh-grant-type': { scenario: 'offline-access-oidc', id: 'CLI-REFRESH-002' },
  'no-version-header': { scenario: 'request-metadata', id: 'CLI-META-001' },
  'version-header-mismatch': { scenario: 'request-metadata', id: 'CLI-META-002' },
  'no-mcp-method': { scenario: 'request-metadata', id: 'CLI-META-003' },
  'no-meta': { scenario: 'request-metadata', id: 'CLI-META-004' },
  'forget-resource-metadata': { scenario: 'prm-named-url-only', id: 'CLI-PRM-003' },
  'no-sign-in': { scenario: 'token-refresh', id: 'CLI-FLOW-004' },
  // same-origin-token-endpoint is no fault a check catches: judge.test.ts shows it reported as an
  // interop finding in bridged-client-id.
}
