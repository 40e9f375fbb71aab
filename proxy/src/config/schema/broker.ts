/**
 * `jwtAuthentication.mcp.broker` (docs/design/broker.md): broker mode. When present, the gateway is the OAuth
 * authorization server MCP clients talk to (metadata, registration, authorize + consent, token,
 * all under the issuer derived from `mcp.resourceMetadata.resource`), and the IdP's client towards
 * the IdP. Absent, the seed's pass-through behaviour is unchanged.
 */
import { z } from 'zod'
import { count, duration } from './common.js'

/** `broker.upstreamClient`: the gateway's own pre-registered client at the IdP. */
export const BrokerUpstreamClientSchema = z
  .strictObject({
    clientId: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The gateway's client id at the IdP, with the gateway's callback (<issuer>/oauth/callback) as a redirect URI. Default: mcp.clientId.",
      ),
    clientSecret: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Its secret when the IdP registered it as a confidential client; write it as ${VAR} (read from the environment). Never shown by /config_dump or logs. Absent: a public client (PKCE only).',
      ),
    tokenEndpointAuthMethod: z
      .enum(['client_secret_basic', 'client_secret_post', 'none'])
      .optional()
      .describe(
        "How the gateway authenticates at the IdP's token endpoint. Default: client_secret_basic with a clientSecret, none without.",
      ),
    scopes: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        "Scopes the gateway requests from the IdP. Default: the preset's (openid profile email offline_access; google without offline_access). offline_access lets the gateway refresh tokens for its clients; it is sent only when the IdP's discovery lists it in scopes_supported (or lists none).",
      ),
  })
  .describe("The gateway's own client at the IdP (the IdP leg of broker mode).")

/** `broker.registration`: RFC 7591 Dynamic Client Registration answered by the gateway. */
export const BrokerRegistrationSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Answer RFC 7591 registrations at <issuer>/oauth/register. false: only Client ID Metadata Documents and mcp.clientId.',
      ),
    clientTtl: duration('1h', '8760h')
      .prefault('720h')
      .describe(
        'How long a registered client is kept (1h-8760h); the client registers again after it expired (RFC 7591 §3.2.1 client_secret_expires_at says when for confidential ones).',
      ),
    unusedClientTtl: duration('10m', '720h')
      .prefault('1h')
      .describe(
        'How long a registered client that was never used is kept (10m-720h, at most clientTtl): a registration whose first authorization code is not redeemed within it is forgotten, so registrations nobody uses cannot fill the store. Its first code redeemed keeps it for clientTtl from its registration.',
      ),
    perSourceUnusedLimit: count(1, 100_000)
      .default(100)
      .describe(
        'Registrations one client address may make per unusedClientTtl (beyond it 429 with Retry-After): with unused registrations expiring after unusedClientTtl, one address holds at most this many unused clients in the store.',
      ),
    perSourceLimit: count(1, 100_000)
      .default(20)
      .describe(
        'Registrations one client address may make per perSourceWindow; beyond it the gateway answers 429 with Retry-After.',
      ),
    perSourceWindow: duration('1s', '24h')
      .prefault('1m')
      .describe('Window of perSourceLimit, 1s-24h.'),
  })
  .describe('Dynamic Client Registration (RFC 7591) answered by the gateway itself.')

/** `broker.clientMetadataDocuments`: URL client ids (MCP 2025-11-25 Client ID Metadata Documents). */
export const BrokerClientMetadataDocumentsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Accept an https URL as client_id and fetch its Client ID Metadata Document (advertised as client_id_metadata_document_supported).',
      ),
    allowHttp: z
      .boolean()
      .default(false)
      .describe('Also fetch http:// client ids. Only for tests and local development.'),
    allowPrivateAddresses: z
      .boolean()
      .default(false)
      .describe(
        'Also fetch from loopback, private (RFC 1918, fc00::/7), link-local and other non-public addresses. Off: the resolved address is checked, and the connection goes to the checked address (no DNS rebinding).',
      ),
    maxBytes: count(256, 1_048_576)
      .default(16_384)
      .describe('Largest document accepted, in bytes (256-1048576); a larger one is refused.'),
    timeout: duration('100ms', '30s')
      .prefault('5s')
      .describe(
        'Time for the whole fetch, redirects and body included (100ms-30s); a slow answer is cut.',
      ),
    maxRedirects: count(0, 10)
      .default(0)
      .describe(
        'Redirects followed (0-10). Default 0: draft-ietf-oauth-client-id-metadata-document-01 §4 says the authorization server MUST NOT automatically follow redirects; with more, every hop is checked like the first and a loop is refused at once.',
      ),
    cacheTtl: duration('0s', '24h')
      .prefault('5m')
      .describe(
        'How long a fetched document is reused (0s-24h; a shorter Cache-Control max-age is honoured, 0s: fetch every time).',
      ),
  })
  .describe('Client ID Metadata Documents: URL client ids, fetched with SSRF guards and cached.')

/** `broker.authorization`: lifetimes of the authorization flow. */
export const BrokerAuthorizationSchema = z
  .strictObject({
    pendingTtl: duration('1m', '1h')
      .prefault('10m')
      .describe('Time a user has to consent and sign in at the IdP (1m-1h).'),
    requestTtl: duration('1m', '1h')
      .prefault('5m')
      .describe(
        'Time a consent page stays valid (1m-1h, at most pendingTtl): an authorization request waits for consent this long, kept apart from the requests already consented to (which have pendingTtl for the sign-in at the IdP), so a flood of unanswered requests cannot crowd out users signing in.',
      ),
    perSourceRequestLimit: count(1, 100_000)
      .default(30)
      .describe(
        'Consent pages one client address may open per requestTtl (beyond it 429 with Retry-After); a browser that already consented goes on to the IdP without being counted.',
      ),
    codeTtl: duration('10s', '10m')
      .prefault('1m')
      .describe(
        "Lifetime of the gateway's one-time authorization codes (10s-10m; RFC 6749 §4.1.2 recommends at most 10 minutes).",
      ),
    consentTtl: duration('0s', '8760h')
      .prefault('720h')
      .describe(
        "How long the user's consent to a client is remembered in a signed cookie (0s-8760h; 0s: ask every time).",
      ),
    refreshTokenTtl: duration('1h', '8760h')
      .prefault('720h')
      .describe(
        "Lifetime of the refresh tokens the gateway issues to its clients (1h-8760h); each wraps the IdP's refresh token, which stays on the gateway.",
      ),
  })
  .describe('Lifetimes of pending authorizations, codes, consents and refresh grants.')

/** `broker.store.memory`. */
export const BrokerMemoryStoreSchema = z.strictObject({
  maxEntries: count(100, 10_000_000)
    .default(10_000)
    .describe(
      'Entries per namespace (clients, pending authorizations, codes, grants, consents, CIMD cache); a full namespace refuses new entries (503) rather than evict live ones.',
    ),
})

/** `broker.store.redis`. */
export const BrokerRedisStoreSchema = z.strictObject({
  url: z
    .url({ message: 'expected a Redis URL such as redis://127.0.0.1:6379/0 or rediss://host:6380' })
    .refine((v) => /^rediss?:\/\//.test(v), {
      message: 'expected a redis:// or rediss:// URL',
    })
    .refine((v) => !URL.canParse(v) || new URL(v).password === '', {
      message:
        'put the password in store.redis.password (as ${VAR}), not in the URL, so that it is never shown',
    })
    .describe('The Redis server, e.g. redis://redis:6379/0 (rediss:// for TLS).'),
  username: z.string().min(1).optional().describe('ACL user name (Redis 6+).'),
  password: z
    .string()
    .min(1)
    .optional()
    .describe('Password; write it as ${VAR}. Never shown by /config_dump or logs.'),
  keyPrefix: z
    .string()
    .regex(/^[A-Za-z0-9:._-]{1,64}$/, {
      message: 'expected 1-64 letters, digits, ":", ".", "_" or "-"',
    })
    .default('gatehouse:')
    .describe('Prefix of every key, so that several gatehouse deployments can share a server.'),
  maxEntries: count(100, 100_000_000)
    .default(100_000)
    .describe(
      'Entries per namespace, shared by all replicas; a full namespace refuses new entries (503).',
    ),
  commandTimeout: duration('100ms', '30s')
    .prefault('2s')
    .describe('Time one store operation may take before the request fails with 503 (100ms-30s).'),
})

/** `broker.store.sqlite`. */
export const BrokerSqliteStoreSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      'The database file (relative to the working directory), created 0600 with its directory; one gatehouse process per file. Needs Node.js 22.5+ (node:sqlite). Without a store block the gatehouse command uses <state directory>/state.sqlite (docs/auth.md, "Where the broker keeps its state").',
    ),
  maxEntries: count(100, 100_000_000)
    .default(100_000)
    .describe('Entries per namespace; a full namespace refuses new entries (503).'),
})

/** `broker.store`: where the broker keeps its state. */
export const BrokerStoreSchema = z
  .union(
    [
      z.strictObject({
        memory: BrokerMemoryStoreSchema.describe(
          'In this process: lost on restart, not shared between replicas.',
        ),
      }),
      z.strictObject({
        redis: BrokerRedisStoreSchema.describe('A Redis server (6.2+) shared by every replica.'),
      }),
      z.strictObject({
        sqlite: BrokerSqliteStoreSchema.describe(
          'A SQLite file on this machine (node:sqlite): kept across restarts, one process.',
        ),
      }),
    ],
    {
      error:
        'expected exactly one of store.memory, store.sqlite or store.redis, e.g. {memory: {}}, {sqlite: {path: state/gatehouse.db}} or {redis: {url: redis://redis:6379}}',
    },
  )
  .describe(
    'State (registered clients, pending authorizations, codes, grants, consents, CIMD cache): memory (one replica, lost on restart), sqlite (one replica, kept across restarts) or redis (several replicas behind a load balancer, kept as long as Redis keeps it). Default (no store block): SQLite in the state directory, <state directory>/state.sqlite, where the state directory is --state-dir, else $GATEHOUSE_STATE_DIR, else .gatehouse beside the first -f file (needs Node.js 22.5+; gatehouse refuses to start without node:sqlite rather than keep state in memory).',
  )

/** `jwtAuthentication.mcp.broker`. */
export const BrokerSchema = z
  .strictObject({
    upstreamClient: BrokerUpstreamClientSchema.prefault({}),
    secret: z
      .string()
      .min(32, { message: 'expected at least 32 characters (e.g. `openssl rand -base64 32`)' })
      .optional()
      .describe(
        'Key that signs state, CSRF tokens and consent cookies (HMAC-SHA256), at least 32 characters; write it as ${VAR}. Default: random, kept in the SQLite store (the default) so that it survives a restart; with store.memory random at start; required with store.redis so that replicas agree.',
      ),
    registration: BrokerRegistrationSchema.prefault({}),
    clientMetadataDocuments: BrokerClientMetadataDocumentsSchema.prefault({}),
    authorization: BrokerAuthorizationSchema.prefault({}),
    store: BrokerStoreSchema.optional(),
  })
  .describe(
    'Broker mode (provider BridgedIdp): the gateway is the authorization server MCP clients see (issuer <resource>, its own authorize, token and registration endpoints under <resource>/oauth/) and the IdP client towards the IdP. Absent: the pass-through behaviour of the seed.',
  )
