/**
 * Profile `core`: RFC 9728 protected-resource metadata — where MCP clients learn the
 * authorization server — at the path form the challenge names and at the root form MCP 2025-11-25
 * clients fall back to. Sources: the seed (Endpoints), RFC 9728, MCP authorization 2025-06-18 /
 * 2025-11-25 "Protected Resource Metadata Discovery Requirements".
 */
import { must, type Requirement } from '../types.js'
import { canonicalJson, discoverPrm, PRM_PATH, prmDocument } from './util.js'

const PRM_ROOT = '/.well-known/oauth-protected-resource'

/** Profile `core` (and PRM-002, `bridged-idp`): the protected-resource metadata. */
export const resourceMetadata: Requirement[] = [
  {
    id: 'PRM-001',
    level: 'MUST',
    quote: 'JSON protected-resource metadata built from mcp.resourceMetadata.',
    profile: 'core',
    source: 'seed: Endpoints (GET /.well-known/oauth-protected-resource/mcp); RFC 9728 §3.2',
    text: 'Protected-resource metadata is served unauthenticated as JSON whose resource is the configured resource.',
    async check(ctx) {
      const res = await ctx.http(`${ctx.target.base}${PRM_PATH}`)
      must(res.status === 200, '200', `${res.status}`)
      const doc = res.json()
      const want = `${ctx.target.configuredBase}/mcp`
      must(doc.resource === want, `resource "${want}"`, `resource ${JSON.stringify(doc.resource)}`)
    },
  },
  {
    id: 'PRM-002',
    level: 'MUST',
    quote: `with provider BridgedIdp, authorization_servers is ["<base_url_as_configured>/mcp"], so that RFC 8414 path insertion lands clients on the gateway's /.well-known/oauth-authorization-server/mcp.`,
    profile: 'bridged-idp',
    source: 'docs/auth.md (BridgedIdp); RFC 8414 §3.1 path insertion',
    text: 'With BridgedIdp, authorization_servers is ["<configured base>/mcp"], so clients find the gateway\'s authorization-server metadata.',
    async check(ctx) {
      const doc = (await ctx.http(`${ctx.target.base}${PRM_PATH}`)).json()
      const want = [`${ctx.target.configuredBase}/mcp`]
      must(
        JSON.stringify(doc.authorization_servers) === JSON.stringify(want),
        JSON.stringify(want),
        JSON.stringify(doc.authorization_servers),
      )
    },
  },
  {
    id: 'PRM-003',
    level: 'SHOULD',
    quote:
      'scopes_supported: RECOMMENDED. JSON array containing a list of scope values, as defined in OAuth 2.0 [RFC6749], that are used in authorization requests to request access to this protected resource.',
    profile: 'core',
    source:
      'seed: GatewayPolicy (mcp.resourceMetadata.scopesSupported, bearerMethodsSupported); RFC 9728 §2',
    text: 'The metadata lists scopes_supported and bearer_methods_supported ["header"].',
    async check(ctx) {
      const doc = (await ctx.http(`${ctx.target.base}${PRM_PATH}`)).json()
      must(
        Array.isArray(doc.scopes_supported),
        'scopes_supported',
        JSON.stringify(doc.scopes_supported),
      )
      must(
        JSON.stringify(doc.bearer_methods_supported) === '["header"]',
        '["header"]',
        JSON.stringify(doc.bearer_methods_supported),
      )
    },
  },
  {
    id: 'PRM-004',
    level: 'MUST',
    resourceServer: true,
    quote:
      'MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers.',
    profile: 'core',
    source: 'RFC 9728 §3; MCP authorization 2025-06-18 §2.3',
    text: 'The metadata endpoint needs no token (it is how clients learn where to get one).',
    async check(ctx) {
      // Wherever the target serves it (path form, the URL its 401 names, or the root form).
      const { url } = await discoverPrm(ctx).catch(() => ({ url: `${ctx.target.base}${PRM_PATH}` }))
      const res = await ctx.http(url)
      must(res.status !== 401 && res.status !== 403, 'no 401/403', `${res.status}`)
      must(
        /json/.test(res.headers.get('content-type') ?? ''),
        'a JSON content type',
        String(res.headers.get('content-type')),
      )
    },
  },
  {
    id: 'PRM-005',
    level: 'SHOULD',
    quote:
      'GET /.well-known/oauth-protected-resource/mcp (and the root form): RFC 9728 JSON from mcp.resourceMetadata (resource, authorization_servers, scopes_supported, bearer_methods_supported)',
    profile: 'core',
    source:
      'MCP authorization 2025-11-25 "Protected Resource Metadata Discovery Requirements" (without resource_metadata, clients MUST try the path form, then the root form); RFC 9728 §3.1; docs/auth.md ("and the root form")',
    text: 'The protected-resource metadata is also served at the root form /.well-known/oauth-protected-resource, unauthenticated, with the same document as the path form.',
    async check(ctx) {
      const res = await ctx.http(`${ctx.target.base}${PRM_ROOT}`)
      must(res.status === 200, '200 at the root form', `${res.status}`)
      let root: unknown
      try {
        root = res.json()
      } catch {
        must(false, 'a JSON document', res.text.slice(0, 200))
      }
      const path = await prmDocument(ctx)
      must(
        canonicalJson(root) === canonicalJson(path),
        `the path form's document ${JSON.stringify(path)}`,
        JSON.stringify(root),
      )
    },
  },
  {
    id: 'PRM-006',
    level: 'MUST',
    resourceServer: true,
    quote:
      'The Protected Resource Metadata document returned by the MCP server MUST include the authorization_servers field containing at least one authorization server.',
    profile: 'core',
    source: `MCP authorization 2025-11-25 §Authorization Server Location; §Protected Resource Metadata Discovery Requirements; RFC 9728 §3.3, §5.1`,
    text: "A client finds the protected-resource metadata as the spec says (the URL the 401's resource_metadata names, else the path form, else the root form): its resource is the MCP endpoint's URL, and it names at least one authorization server.",
    async check(ctx) {
      const { url, doc } = await discoverPrm(ctx)
      const want = `${ctx.target.configuredBase}/mcp`
      must(
        doc.resource === want,
        `resource "${want}" (RFC 9728 §3.3)`,
        `resource ${JSON.stringify(doc.resource)} at ${url}`,
      )
      const servers = doc.authorization_servers
      must(
        Array.isArray(servers) && servers.length > 0 && servers.every((v) => typeof v === 'string'),
        'authorization_servers with at least one authorization server',
        `${JSON.stringify(servers)} at ${url}`,
      )
    },
  },
]
