/**
 * `gatehouse --validate --online`: what `--validate` cannot see offline, asked of the IdPs
 * themselves. For each provider of each policy, its OpenID Connect discovery document is fetched
 * (from `discoveryUrl`, the issuer's well-known URL, or the okta preset's JWKS backend, as the
 * running proxy does) and its keys (`jwks.remote`, or discovery's `jwks_uri`); a document that is
 * missing, names another issuer (OIDC Discovery §4.3: compared exactly) or has no `jwks_uri` when
 * the keys come from it, and a key set that cannot be fetched or has no usable key, are issues
 * that name the provider's path and say what to do. Nothing is cached or kept: the pools opened
 * are closed before it returns.
 */
import { discoveryUrlOf } from '../config/idp-presets.js'
import type { GatehouseConfig, JwtProviderConfig } from '../config/schema.js'
import type { ConfigIssue } from '../errors.js'
import { createUpstream, type Upstream } from '../http/upstream.js'
import { OidcDiscoverySchema } from './documents.js'
import { describeError, type FetchedResponse, requestUpstream } from './fetch.js'
import { parseJwks } from './jwks.js'
import { OriginPools } from './origin-pools.js'

/** Checks every provider against its IdP; resolves with the problems found (none: all good). */
export async function checkProvidersOnline(config: GatehouseConfig): Promise<ConfigIssue[]> {
  const pools = new OriginPools()
  const backends = new Map<string, Upstream>()
  const backend = (name: string): Upstream => {
    let u = backends.get(name)
    const b = config.backends[name]
    if (!u && b) {
      u = createUpstream(b)
      backends.set(name, u)
    }
    if (!u) throw new Error(`no backend named "${name}"`)
    return u
  }
  const issues: ConfigIssue[] = []
  try {
    for (const [policy, p] of Object.entries(config.policies)) {
      const providers = p.traffic.jwtAuthentication?.providers ?? []
      for (const [i, provider] of providers.entries()) {
        const path = `policies.${policy}.traffic.jwtAuthentication.providers[${i}]`
        const found = await checkProvider(provider, pools, backend)
        for (const message of found) issues.push({ path, message })
      }
    }
  } finally {
    await pools.close()
    await Promise.all([...backends.values()].map((b) => b.close()))
  }
  return issues
}

async function checkProvider(
  p: JwtProviderConfig,
  pools: OriginPools,
  backend: (name: string) => Upstream,
): Promise<string[]> {
  const problems: string[] = []
  if (p.endpoints) {
    // Stated endpoints: no discovery document to fetch; the keys are fetched where stated.
    const keysAt = p.jwks ? undefined : p.endpoints.jwks
    if (keysAt) problems.push(...(await checkKeys(keysAt, () => pools.request(keysAt))))
    return problems
  }
  const url = discoveryUrlOf(p)
  const remote = p.jwks?.remote
  const where =
    url ??
    `${remote ? backend(remote.backendRef.name).origin : ''}${new URL(p.issuer).pathname.replace(/\/$/, '')}/.well-known/openid-configuration`
  let jwksUri: string | undefined
  const fetched = await attempt(() =>
    url || !remote
      ? pools.request(where)
      : requestUpstream(backend(remote.backendRef.name), new URL(where).pathname),
  )
  if ('error' in fetched) {
    problems.push(`the discovery document at ${where} cannot be fetched: ${fetched.error}`)
  } else if (fetched.res.status !== 200) {
    problems.push(
      `the discovery document at ${where} answers HTTP ${fetched.res.status}: set discoveryUrl to the IdP's OpenID Connect discovery URL, or correct the issuer`,
    )
  } else {
    const parsed = OidcDiscoverySchema.safeParse(json(fetched.res))
    if (!parsed.success) {
      problems.push(`${where} is not an OpenID Connect discovery document`)
    } else if (parsed.data.issuer !== p.issuer) {
      problems.push(
        `the discovery document at ${where} names issuer ${parsed.data.issuer}, but issuer is ${p.issuer}: tokens carry the document's issuer, compared exactly (trailing slash included); set issuer to it`,
      )
    } else {
      jwksUri = parsed.data.jwks_uri
      if (!p.jwks && !jwksUri) {
        problems.push(
          `the discovery document at ${where} has no jwks_uri, so the keys cannot be found: set jwks`,
        )
      }
    }
  }
  const keysAt = remote
    ? `${backend(remote.backendRef.name).origin}${remote.jwksPath}`
    : p.jwks
      ? undefined
      : jwksUri
  if (keysAt) {
    problems.push(
      ...(await checkKeys(keysAt, () =>
        remote
          ? requestUpstream(backend(remote.backendRef.name), remote.jwksPath)
          : pools.request(keysAt),
      )),
    )
  }
  return problems
}

/** Fetches the key set at `keysAt` (by `fetchKeys`); the problems found. */
async function checkKeys(keysAt: string, fetchKeys: () => Promise<FetchedResponse>) {
  const keys = await attempt(fetchKeys)
  if ('error' in keys) return [`the keys at ${keysAt} cannot be fetched: ${keys.error}`]
  if (keys.res.status !== 200) return [`the keys at ${keysAt} answer HTTP ${keys.res.status}`]
  try {
    if (parseJwks(json(keys.res)).keys.length === 0) throw new Error('no usable public key')
  } catch (err) {
    return [`the keys at ${keysAt}: ${(err as Error).message}`]
  }
  return []
}

async function attempt(
  f: () => Promise<FetchedResponse>,
): Promise<{ res: FetchedResponse } | { error: string }> {
  try {
    return { res: await f() }
  } catch (err) {
    return { error: describeError(err) }
  }
}

function json(res: FetchedResponse): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'))
  } catch {
    return undefined
  }
}
