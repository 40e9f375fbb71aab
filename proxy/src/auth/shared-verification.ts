/**
 * Key sets and verifiers shared by the policies of one compilation whose providers are alike
 * (docs/design/performance.md, "Policies that verify alike share"): policies naming the same
 * issuers, audiences, clock skews and key sources verify a token the same way, so they hold one
 * key set per provider (one JWKS fetch and refresh loop, not one per policy) and one
 * {@link TokenVerifier} (one verification cache: a token verified for one of them is not
 * verified again for the next).
 *
 * Shared only when every provider names its keys (`jwks`: a file, inline, or a backend); a provider
 * whose keys come from its discovery document's `jwks_uri` reads them through its policy's own
 * discovery cache, and is not shared. The registry is per {@link AuthContext} (one per
 * compilation), so a reload never hands a policy a key set of the configuration it replaces.
 * A shared key set stops when the last policy holding it stops ({@link KeySet.share}).
 */
import type { JwtProviderConfig } from '../config/schema.js'
import type { KeySet } from './jwks.js'
import type { AuthContext } from './types.js'
import type { TokenVerifier } from './verify.js'

/** What a policy's authentication verifies with. */
export interface Verification {
  /** One key set per provider, in configuration order. */
  readonly keySets: readonly KeySet[]
  readonly verifier: TokenVerifier
}

const registries = new WeakMap<AuthContext, Map<string, Verification>>()

/**
 * The verification of `providers` within `ctx`'s compilation: the one built for alike providers
 * before (its key sets held once more), or `build()`'s, kept for the next.
 */
export function sharedVerification(
  ctx: AuthContext,
  providers: readonly JwtProviderConfig[],
  build: () => Verification,
): Verification {
  const key = sharingKey(providers)
  if (key === undefined) return build()
  let registry = registries.get(ctx)
  if (!registry) {
    registry = new Map()
    registries.set(ctx, registry)
  }
  const found = registry.get(key)
  if (found) {
    for (const k of found.keySets) k.share()
    return found
  }
  const built = build()
  registry.set(key, built)
  return built
}

/** What makes two providers' verification the same, or `undefined` when it is not shareable. */
function sharingKey(providers: readonly JwtProviderConfig[]): string | undefined {
  if (!providers.every((p) => p.jwks !== undefined)) return undefined
  return JSON.stringify(providers.map((p) => [p.issuer, p.audiences, p.clockSkew.ms, p.jwks]))
}
