/**
 * What every broker endpoint (docs/design/broker.md) reads: the compiled broker configuration, its issuer and
 * endpoint URLs, the store, the client registry and the IdP it brokers. Built once per policy
 * (`createBrokerContext`); handlers never read raw configuration.
 */
import { randomBytes } from 'node:crypto'
import type { pino } from 'pino'
import type { DiscoveryCache } from '../auth/discovery.js'
import type { OriginPools } from '../auth/origin-pools.js'
import type { UpstreamSettings } from '../config/idp-presets.js'
import type { BrokerConfig, McpAuthConfig } from '../config/schema.js'
import type { Upstream } from '../http/upstream.js'
import type { BrokerStore } from '../store/types.js'
import { ClientMetadataDocuments } from './client-metadata.js'
import { ClientRegistry } from './clients.js'
import {
  type BrokerStoreConfig,
  createStore,
  effectiveStore,
  type PersistentStore,
} from './store.js'

/** The path of every broker endpoint below the issuer (docs/design/broker.md). */
export const BROKER_PATHS = {
  register: '/oauth/register',
  authorize: '/oauth/authorize',
  consent: '/oauth/consent',
  callback: '/oauth/callback',
  token: '/oauth/token',
} as const

/** The issuer and endpoint URLs of the gateway's authorization server. */
export interface BrokerUrls {
  /** RFC 8414 §2 issuer: the identifier derived from `mcp.resourceMetadata.resource`. */
  issuer: string
  /** Path of the issuer (`/mcp`, or `''` for a resource at the root). */
  issuerPath: string
  /** RFC 8414 §3.1: `/.well-known/oauth-authorization-server` + the issuer's path. */
  metadataPath: string
  authorizationEndpoint: string
  tokenEndpoint: string
  registrationEndpoint: string
  consentEndpoint: string
  /** The gateway's redirect URI at the IdP. */
  callbackUrl: string
}

/** Everything a broker endpoint needs. */
export interface BrokerContext {
  /** The policy's broker block, its store resolved ({@link effectiveStore}). */
  readonly config: BrokerConfig & { store: BrokerStoreConfig }
  readonly mcp: McpAuthConfig
  readonly urls: BrokerUrls
  /** The resource clients must name (`resource`, RFC 8707): `mcp.resourceMetadata.resource`. */
  readonly resource: string
  /** HMAC key for state, CSRF tokens and consent cookies (`broker.secret`, or random). */
  readonly secret: Buffer
  readonly store: BrokerStore
  readonly clients: ClientRegistry
  /** The IdP: its issuer, OIDC discovery, the audience parameter and its backend. */
  readonly idp: {
    issuer: string
    audience: string | undefined
    discovery: DiscoveryCache
    upstream: Upstream | undefined
    /** Pools to the IdP's hosts (endpoints fetched at their own URLs). */
    pools?: OriginPools | undefined
    /** The preset's authorization-request settings with the configured overrides. */
    settings: UpstreamSettings
    /** The gateway's client id at the IdP (`upstreamClient.clientId`, default `mcp.clientId`). */
    clientId: string
  }
  readonly log: pino.Logger
}

/** Inputs of {@link createBrokerContext}. */
export interface BrokerContextOptions {
  mcp: McpAuthConfig & { broker: BrokerConfig }
  idpIssuer: string
  audience: string | undefined
  discovery: DiscoveryCache
  orgUpstream: Upstream | undefined
  pools?: OriginPools | undefined
  settings: UpstreamSettings
  log: pino.Logger
  /** The state directory of the default store ({@link effectiveStore}). */
  stateDir?: string | undefined
}

/** The issuer and endpoint URLs for a resource (RFC 8414 §3, §3.3). */
export function brokerUrls(resource: string): BrokerUrls {
  const url = new URL(resource)
  // No trailing slash, query or fragment: RFC 8414 §2 issuer.
  const issuerPath = url.pathname.replace(/\/+$/, '')
  const issuer = `${url.origin}${issuerPath}`
  return {
    issuer,
    issuerPath,
    metadataPath: `/.well-known/oauth-authorization-server${issuerPath}`,
    authorizationEndpoint: `${issuer}${BROKER_PATHS.authorize}`,
    tokenEndpoint: `${issuer}${BROKER_PATHS.token}`,
    registrationEndpoint: `${issuer}${BROKER_PATHS.register}`,
    consentEndpoint: `${issuer}${BROKER_PATHS.consent}`,
    callbackUrl: `${issuer}${BROKER_PATHS.callback}`,
  }
}

/** Builds the context of one policy's broker (its store is opened lazily by the store itself). */
export function createBrokerContext(o: BrokerContextOptions): BrokerContext {
  const config = { ...o.mcp.broker, store: effectiveStore(o.mcp.broker.store, o.stateDir) }
  const store = createStore(config.store)
  const cimd = config.clientMetadataDocuments
  const clients = new ClientRegistry({
    store,
    configuredClientId: o.mcp.clientId,
    metadataDocuments: cimd.enabled ? new ClientMetadataDocuments(cimd, store) : undefined,
  })
  return {
    config,
    mcp: o.mcp,
    urls: brokerUrls(o.mcp.resourceMetadata.resource),
    resource: o.mcp.resourceMetadata.resource,
    secret: signingKey(config, store, o.mcp.resourceMetadata.resource),
    store,
    clients,
    idp: {
      issuer: o.idpIssuer,
      audience: o.audience,
      discovery: o.discovery,
      upstream: o.orgUpstream,
      pools: o.pools,
      settings: o.settings,
      // The schema requires one of the two (mcp.broker.upstreamClient.clientId).
      clientId: config.upstreamClient.clientId ?? o.mcp.clientId ?? '',
    },
    log: o.log,
  }
}

/**
 * The broker's HMAC key: `mcp.broker.secret`; without it, a random key kept in a store that
 * persists (SQLite), so that CSRF tokens, states and consent cookies issued before a restart
 * verify after it (a consent page submitted across a restart is answered, not refused); else a
 * random key for this process's life.
 */
function signingKey(config: BrokerConfig, store: BrokerStore, resource: string): Buffer {
  if (config.secret) return Buffer.from(config.secret, 'utf8')
  if ('persistent' in store) {
    const kept = (store as PersistentStore).persistent(`broker-key:${resource}`, () =>
      randomBytes(32).toString('base64url'),
    )
    return Buffer.from(kept, 'base64url')
  }
  return randomBytes(32)
}
