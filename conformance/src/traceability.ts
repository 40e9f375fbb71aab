/**
 * Traceability from the seed (`docs/design/seed-gateway-mcp-auth.md`) to requirement IDs. Every
 * normative statement the suite can judge over HTTP is listed with the requirements that check it;
 * `conformance/test/traceability.test.ts` fails when a statement has no check, an ID does not
 * exist, or the committed `conformance/TRACEABILITY.md` differs from {@link renderTraceability}.
 */
import type { Requirement } from './types.js'

/** A seed statement and the requirements that check it. */
export interface SeedStatement {
  section: string
  statement: string
  requirements: string[]
}

/** The seed's normative statements, by section, with the requirements that check them. */
export const SEED_STATEMENTS: readonly SeedStatement[] = [
  {
    section: 'What the service does 1',
    statement: 'The proxy forwards MCP traffic at /mcp to an MCP backend.',
    requirements: ['AUTH-020', 'TRN-001'],
  },
  {
    section: 'What the service does 2',
    statement:
      'A GatewayPolicy makes the proxy validate bearer JWTs (signature, issuer, audience).',
    requirements: ['AUTH-012', 'AUTH-013', 'AUTH-014', 'AUTH-015', 'AUTH-016', 'AUTH-017'],
  },
  {
    section: 'What the service does 2',
    statement: 'It optionally authorizes them by claim rules.',
    requirements: ['AUTHZ-001', 'AUTHZ-003'],
  },
  {
    section: 'What the service does 3',
    statement:
      'With BridgedIdp it serves authorization-server metadata built from the OIDC discovery document.',
    requirements: ['ASM-001', 'ASM-002', 'ASM-005'],
  },
  {
    section: 'What the service does 3',
    statement:
      'It appends the first configured audience to the authorization endpoint as the query parameter audience.',
    requirements: ['ASM-003', 'ASM-009'],
  },
  {
    section: 'What the service does 3',
    statement:
      'It proxies Dynamic Client Registration through the gateway, rewritten to the org-relative /oauth2/v1/clients.',
    requirements: ['ASM-004', 'DCR-004'],
  },
  {
    section: 'What the service does 3',
    statement:
      'When mcp.clientId is set, registration is answered with that client id instead of proxying.',
    requirements: ['DCR-001', 'DCR-002', 'DCR-003'],
  },
  {
    section: 'What the service does 4',
    statement:
      'The proxy serves OAuth discovery documents for the MCP resource at well-known paths.',
    requirements: ['PRM-001', 'PRM-004', 'PRM-005', 'ASM-001', 'ASM-010'],
  },
  {
    section: 'What the service does 5',
    statement:
      'A standalone proxy exposes a local admin interface: configuration dump, tracing, log level, memory, profiling, shutdown.',
    requirements: ['ADM-001', 'ADM-005', 'ADM-006', 'ADM-008', 'ADM-010', 'ADM-013'],
  },
  {
    section: 'GatewayPolicy (Status)',
    statement: 'The policy reports conditions Accepted and Attached, True when healthy.',
    requirements: ['ADM-002'],
  },
  {
    section: 'GatewayPolicy (MCP authorization)',
    statement:
      'An MCP authorization policy can authorize individual tools instead of the whole endpoint.',
    requirements: ['MCPP-001', 'MCPP-002', 'MCPP-050'],
  },
  {
    section: 'GatewayPolicy (claims)',
    statement:
      'The claims of the verified token are available to other route-level policies such as rate limiting.',
    requirements: ['MCPP-003'],
  },
  {
    section: 'GatewayPolicy (jwksPath)',
    statement: 'A wrong JWKS path makes key fetch fail and token validation fail.',
    requirements: ['FAIL-001', 'ADM-003'],
  },
  {
    section: 'HTTPRoute (CORS filter fields)',
    statement:
      'CORS: allowCredentials true, allowOrigins *, allowHeaders, exposeHeaders Origin and Mcp-Session-Id, maxAge 86400.',
    requirements: ['CORS-001', 'CORS-002', 'CORS-004', 'CORS-005', 'CORS-006'],
  },
  {
    section: 'States and transitions',
    statement:
      'Domain or JWKS path wrong: the policy is Accepted but not programmed; authentication takes no effect (requests fail).',
    requirements: ['ADM-003', 'FAIL-001'],
  },
  {
    section: 'Endpoints (data plane): POST /mcp',
    statement:
      'Without a valid token: 401 with WWW-Authenticate: Bearer resource_metadata built from mcp.resourceMetadata.resource.',
    requirements: ['AUTH-001', 'AUTH-002', 'AUTH-003', 'AUTH-023', 'CORS-003'],
  },
  {
    section: 'Endpoints (data plane): POST /mcp',
    statement: 'A valid token failing the authorization rule: 403.',
    requirements: ['AUTHZ-001', 'AUTHZ-002', 'AUTHZ-004'],
  },
  {
    section: 'Endpoints (data plane): GET /.well-known/oauth-protected-resource/mcp',
    statement: 'JSON protected-resource metadata built from mcp.resourceMetadata.',
    requirements: ['PRM-001', 'PRM-002', 'PRM-003'],
  },
  {
    section: 'Endpoints (data plane): GET /.well-known/oauth-authorization-server/mcp',
    statement:
      'Fields issuer, jwks_uri (<issuer>/v1/keys), authorization_endpoint (?audience=), registration_endpoint back at the gateway.',
    requirements: ['ASM-001', 'ASM-002', 'ASM-003', 'ASM-004', 'ASM-006', 'ASM-007', 'ASM-008'],
  },
  {
    section: 'Endpoints (data plane): …/client-registration',
    statement: 'With mcp.clientId answered with that client id; otherwise proxied to the provider.',
    requirements: ['DCR-001', 'DCR-004', 'DCR-005', 'DCR-006'],
  },
  {
    section: 'Admin interface: GET /config_dump',
    statement: 'Runtime configuration as JSON, 200.',
    requirements: ['ADM-001', 'ADM-004'],
  },
  {
    section: 'Admin interface: GET /debug/trace',
    statement: 'A JSON-over-SSE trace of the next request.',
    requirements: ['ADM-005'],
  },
  {
    section: 'Admin interface: GET, POST /logging',
    statement: 'Get / set the log level; the answer is a text line reporting the current filter.',
    requirements: ['ADM-006', 'ADM-007'],
  },
  {
    section: 'Admin interface: GET /memory',
    statement: 'Allocator and process memory statistics.',
    requirements: ['ADM-008'],
  },
  {
    section: 'Admin interface: GET /debug/pprof/profile',
    statement: 'CPU profile; seconds 1–300 (default 10), frequency 1–1000 Hz (default 100).',
    requirements: ['ADM-009', 'ADM-010'],
  },
  {
    section: 'Admin interface: GET /debug/pprof/heap',
    statement: 'Heap profiling data as a profile file.',
    requirements: ['ADM-010'],
  },
  {
    section: 'Admin interface: GET /debug/tasks',
    statement: 'Live async task tree.',
    requirements: ['ADM-011'],
  },
  {
    section: 'Admin interface: /quitquitquit',
    statement: 'Triggers graceful shutdown.',
    requirements: ['ADM-013'],
  },
  {
    section: 'Authentication 1',
    statement:
      'Mode Strict: a request without a valid token is rejected with 401 and the WWW-Authenticate header.',
    requirements: ['AUTH-001', 'AUTH-002', 'AUTH-010', 'AUTH-011'],
  },
  {
    section: 'Authentication 2',
    statement:
      'Signature against the provider JWKS, iss equals the issuer, aud matches the audience.',
    requirements: ['AUTH-012', 'AUTH-013', 'AUTH-014', 'AUTH-017', 'AUTH-024'],
  },
  {
    section: 'Authentication 3',
    statement:
      'Every rule is evaluated on the claims; a valid token failing them, including client-only tokens, gets 403.',
    requirements: ['AUTHZ-001', 'AUTHZ-003'],
  },
  {
    section: 'Authentication 4',
    statement:
      'MCP clients discover the authorization server through the gateway and use the pre-registered client id (PKCE).',
    requirements: ['PRM-002', 'ASM-004', 'ASM-008', 'ASM-010', 'DCR-001'],
  },
  {
    section: 'Authentication 5',
    statement: 'The admin interface binds to loopback only.',
    requirements: ['ADM-012'],
  },
  {
    section: 'Errors',
    statement:
      'No valid token → 401 with resource_metadata; failed rule → 403; wrong JWKS path → validation fails; proxied registration without API token fails.',
    requirements: ['AUTH-001', 'AUTHZ-001', 'FAIL-001', 'DCR-005'],
  },
  {
    section: 'Limits',
    statement: 'CPU profile 1–300 s and 1–1000 Hz; CORS maxAge 86400.',
    requirements: ['ADM-009', 'CORS-005'],
  },
  {
    section: 'MCP authorization 2025-06-18 / 2025-11-25 (resource server)',
    statement:
      'No token in query strings; no token passthrough to the backend; Streamable HTTP sessions and SSE through the gateway.',
    requirements: ['AUTH-021', 'AUTH-022', 'TRN-002', 'TRN-003', 'TRN-004'],
  },
]

/** The Markdown traceability table. */
export function renderTraceability(catalogue: readonly Requirement[]): string {
  const byId = new Map(catalogue.map((r) => [r.id, r]))
  const lines = [
    '# Traceability: seed statement → requirements',
    '',
    'Generated from `conformance/src/traceability.ts` and the catalogue (`npm run conformance:trace`).',
    "A test fails when a statement has no check or this file is out of date. The seed's `gwctl`",
    'table is not judged over HTTP; `gwctl/test` covers it.',
    '',
    '| Seed section | Statement | Requirements |',
    '|---|---|---|',
    ...SEED_STATEMENTS.map(
      (s) =>
        `| ${s.section} | ${s.statement.replace(/\|/g, '\\|')} | ${s.requirements.map((id) => `${id} (${byId.get(id)?.level ?? '?'})`).join(', ')} |`,
    ),
    '',
    '## Requirements',
    '',
    '| ID | Level | Profile | Source | Requirement |',
    '|---|---|---|---|---|',
    ...catalogue.map(
      (r) =>
        `| ${r.id} | ${r.level} | ${r.profile} | ${r.source.replace(/\|/g, '\\|')} | ${r.text.replace(/\|/g, '\\|')} |`,
    ),
    '',
  ]
  return lines.join('\n')
}
