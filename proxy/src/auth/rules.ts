/**
 * Authorization rules: CEL expressions over the verified claims, as the variable `jwt`
 * (seed: `spec.traffic.authorization.policy.matchExpressions`). Compiled once at load; every
 * expression must evaluate to `true`. An evaluation error (a missing claim, a type mismatch)
 * denies: a rule that cannot be decided never grants access.
 */
import { type CelCompiler, type CelProgram, newCelCompiler } from '../config/cel.js'

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
  evaluate(claims: Readonly<Record<string, unknown>>): RuleResult[]
}

/**
 * Compiles expressions (parsed and type-checked once per compilation, see `config/cel.ts`).
 * @param cel - the compilation's compiler (`CompiledConfig.cel`), which already holds the programs.
 * @throws Error `matchExpressions[i]: <cause>` for the first expression that does not compile.
 */
export function compileRules(
  expressions: readonly string[],
  cel: CelCompiler = newCelCompiler(),
): CompiledRules {
  const compiled = expressions.map((expression, i) => {
    try {
      return cel.compile(expression, 'claims', 'bool')
    } catch (err) {
      throw new Error(`matchExpressions[${i}]: ${(err as Error).message}`, { cause: err })
    }
  })
  return {
    expressions,
    evaluate(claims) {
      return compiled.map(({ expression, run }) => {
        try {
          const value = run({ jwt: claims })
          if (typeof value !== 'boolean') {
            return {
              expression,
              matched: false,
              error: `evaluated to ${typeof value}, not a boolean`,
            }
          }
          return { expression, matched: value }
        } catch (err) {
          return { expression, matched: false, error: (err as Error).message }
        }
      })
    },
  }
}

/** A header value computed from the claims. */
export interface CompiledHeader {
  name: string
  expression: string
  /** The value, or undefined when the expression fails or yields something not representable. */
  evaluate(claims: Readonly<Record<string, unknown>>): string | undefined
}

/**
 * Compiles `transformations.request.set` entries.
 * @param cel - the compilation's compiler (`CompiledConfig.cel`).
 * @throws Error naming the bad expression.
 */
export function compileHeaders(
  entries: ReadonlyArray<{ name: string; value: string }>,
  cel: CelCompiler = newCelCompiler(),
): CompiledHeader[] {
  return entries.map(({ name, value }, i) => {
    let program: CelProgram
    try {
      program = cel.compile(value, 'claims', 'any')
    } catch (err) {
      throw new Error(`set[${i}]: ${(err as Error).message}`, { cause: err })
    }
    return {
      name: name.toLowerCase(),
      expression: value,
      evaluate(claims) {
        let v: unknown
        try {
          v = program.run({ jwt: claims })
        } catch {
          return undefined
        }
        const text =
          typeof v === 'string' ||
          typeof v === 'number' ||
          typeof v === 'bigint' ||
          typeof v === 'boolean'
            ? String(v)
            : Array.isArray(v) && v.every((x) => typeof x === 'string')
              ? v.join(', ')
              : undefined
        // Header values carry no control characters (RFC 9110 §5.5): never split a header.
        return text !== undefined && !hasControlCharacter(text) ? text : undefined
      },
    }
  })
}

/** Whether a value has a control character other than horizontal tab (RFC 9110 §5.5). */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true
  }
  return false
}
