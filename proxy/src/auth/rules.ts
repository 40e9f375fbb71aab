/**
 * Authorization rules: CEL expressions over the verified claims, as the variable `jwt`
 * (seed: `spec.traffic.authorization.policy.matchExpressions`). Compiled once at load; every
 * expression must evaluate to `true`. An evaluation error (a missing claim, a type mismatch)
 * denies: a rule that cannot be decided never grants access.
 */
import { parse } from '@marcbachmann/cel-js'

/** The outcome of one rule for one request. */
export interface RuleResult {
  expression: string
  matched: boolean
  /** Why it could not be evaluated, when it could not. */
  error?: string
}

/** Compiled rules of a policy. */
export interface CompiledRules {
  readonly expressions: readonly string[]
  /** Evaluates every rule (all of them, so a trace shows each one). */
  evaluate(claims: Readonly<Record<string, unknown>>, errorAllows?: boolean): RuleResult[]
}

/**
 * Compiles expressions.
 * @throws Error `matchExpressions[i]: <cause>` for the first expression that does not parse.
 */
export function compileRules(expressions: readonly string[]): CompiledRules {
  const compiled = expressions.map((expression, i) => {
    try {
      return { expression, run: parse(expression) }
    } catch (err) {
      throw new Error(
        `matchExpressions[${i}]: invalid CEL "${expression}": ${(err as Error).message}`,
      )
    }
  })
  return {
    expressions,
    evaluate(claims, errorAllows = false) {
      return compiled.map(({ expression, run }) => {
        try {
          const value = run({ jwt: claims })
          if (typeof value !== 'boolean') {
            return {
              expression,
              matched: errorAllows,
              error: `evaluated to ${typeof value}, not a boolean`,
            }
          }
          return { expression, matched: value }
        } catch (err) {
          return { expression, matched: errorAllows, error: (err as Error).message }
        }
      })
    },
  }
}
