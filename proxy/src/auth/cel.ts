/**
 * The CEL environment of policy expressions (CEL spec, "Environment"): the variables an expression
 * may name are declared, so `gatehouse --validate` reports an unknown variable (`jwts.groups`), a
 * missing overload (`1 + "a"`) or a rule that cannot be a boolean at load time, instead of a
 * request being denied at run time.
 *
 * Each expression is parsed and type-checked once per process: validation and the compiled
 * snapshot share the result.
 */
import { Environment, type ParseResult } from '@marcbachmann/cel-js'

/** Variables every policy expression sees. */
export const CEL_VARIABLES = {
  /** The verified JWT claims (seed: `matchExpressions` are evaluated on `jwt`). */
  jwt: 'map<string, dyn>',
} as const

/** What an expression must produce. */
export type CelResult = 'bool' | 'any'

/** A parsed, type-checked expression. */
export interface CelProgram {
  readonly expression: string
  /** Evaluates with the given variables; throws when evaluation fails (missing claim, …). */
  run(variables: Readonly<Record<string, unknown>>): unknown
}

/** An expression that does not parse or type-check; the message says why. */
export class CelCompileError extends Error {
  constructor(expression: string, reason: string, options?: { cause?: unknown }) {
    super(`invalid CEL "${expression}": ${reason}`, options)
    this.name = 'CelCompileError'
  }
}

let environment: Environment | undefined
const compiled = new Map<string, CelProgram | CelCompileError>()

function env(): Environment {
  if (!environment) {
    environment = new Environment({ unlistedVariablesAreDyn: false })
    for (const [name, type] of Object.entries(CEL_VARIABLES))
      environment.registerVariable(name, type)
  }
  return environment
}

/**
 * Parses and type-checks an expression (memoized).
 * @param result - `bool` for rules (a rule typed `string` or `int` is refused); `any` for values.
 * @throws {@link CelCompileError} naming the expression and the reason.
 */
export function compileCel(expression: string, result: CelResult): CelProgram {
  const key = `${result}\u0000${expression}`
  let entry = compiled.get(key)
  if (!entry) {
    entry = build(expression, result)
    compiled.set(key, entry)
  }
  if (entry instanceof CelCompileError) throw entry
  return entry
}

function build(expression: string, result: CelResult): CelProgram | CelCompileError {
  let parsed: ParseResult
  try {
    parsed = env().parse(expression)
  } catch (cause) {
    return new CelCompileError(expression, firstLine(cause), { cause })
  }
  const checked = parsed.check()
  if (!checked.valid) return new CelCompileError(expression, firstLine(checked.error))
  if (result === 'bool' && checked.type !== 'bool' && checked.type !== 'dyn') {
    return new CelCompileError(
      expression,
      `a rule must be a boolean, and this expression is of type ${checked.type}`,
    )
  }
  return { expression, run: (variables) => parsed(variables) }
}

function firstLine(err: unknown): string {
  return String((err as Error | undefined)?.message ?? err).split('\n')[0] ?? 'invalid'
}
