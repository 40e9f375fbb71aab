/**
 * Stage 2 of a policy, authorization (seed: Authentication 3, `spec.traffic.authorization`): every
 * rule is evaluated on the verified claims; a request that fails one is refused with 403
 * `insufficient_scope`. Authentication alone does not suffice: any token the IdP issues for the
 * audience passes it.
 */
import type { CelCompiler } from '../config/cel.js'
import type { LocalResponse } from '../http/local-response.js'
import type { Logging } from '../telemetry/logging.js'
import type { Challenge } from './challenge.js'
import { type CompiledRules, compileRules, type RuleResult } from './rules.js'
import type { AuthStageRequest } from './types.js'

/** The authorization stage of one policy. */
export class RuleAuthorization {
  readonly #policy: string
  readonly #rules: CompiledRules
  readonly #challenge: Challenge
  readonly #log
  // Rules depend on the claims only, and the verifier hands out one claims object per cached
  // token, so an outcome is remembered per claims object for as long as the token is cached.
  readonly #decisions = new WeakMap<object, RuleResult[]>()

  /**
   * @param cel - the compilation's CEL compiler (`CompiledConfig.cel`).
   * @throws Error for an expression that does not compile (reported by `--validate` first).
   */
  constructor(
    policy: string,
    expressions: readonly string[],
    logging: Logging,
    challenge: Challenge,
    cel?: CelCompiler,
  ) {
    this.#policy = policy
    this.#rules = compileRules(expressions, cel)
    this.#challenge = challenge
    this.#log = logging.logger('proxy::auth::authz')
  }

  /** The rule expressions, for the config dump. */
  get expressions(): readonly string[] {
    return this.#rules.expressions
  }

  /**
   * Judges the claims (an empty claim set in Optional mode without a token).
   * @returns the 403 to send, or undefined when every rule holds.
   */
  authorize(
    claims: Readonly<Record<string, unknown>> | undefined,
    req: AuthStageRequest,
  ): LocalResponse | undefined {
    let results = claims ? this.#decisions.get(claims) : undefined
    if (!results) {
      results = this.#rules.evaluate(claims ?? {})
      if (claims) this.#decisions.set(claims, results)
    }
    const allowed = results.every((r) => r.matched)
    req.trace?.event('authorization', { policy: this.#policy, allowed, rules: results })
    if (allowed) return undefined
    this.#log.debug(
      {
        policy: this.#policy,
        code: 'GW_ERR_INSUFFICIENT_SCOPE',
        rules: results.map((r) => ({ expression: r.expression, matched: r.matched })),
      },
      'request denied by rules',
    )
    return this.#challenge.forbidden(
      'the token is valid but does not satisfy the authorization rules of this route',
    )
  }
}
