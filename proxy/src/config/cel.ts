/**
 * The CEL environments of policy expressions (CEL spec, "Environment"): the variables an
 * expression may name are declared with their types, so `gatehouse --validate` reports an unknown
 * variable (`jwtt.sub`), an unknown field of `mcp` (`mcp.tol.name`), a missing overload
 * (`1 + "a"`, `mcp.method.startsWith(1)`) or a rule that cannot be a boolean at load time,
 * instead of a request being denied at run time.
 *
 * Each expression is parsed and type-checked once per compilation, not once per process: `compile`
 * (`compile.ts`, which `gatehouse --validate`, start-up and reload call) makes a {@link CelCompiler},
 * checks every expression with it to report issues by path, and returns it in the
 * `CompiledConfig`; `buildSnapshot` compiles the policies with that same compiler, so it finds the
 * same {@link CelProgram}s. Nothing here is process-wide: a reload compiles its own programs, and
 * the old ones are collected with the old snapshot.
 *
 * This module sits in `config/` so both `auth/` and `mcp/` use it without importing each other.
 */
import { Environment, type ParseResult } from '@marcbachmann/cel-js'
import { GatehouseError } from '../errors.js'

/** The verified JWT claims: any claim, of any JSON type (seed: expressions are evaluated on `jwt`). */
const JWT = 'map<string, dyn>'

/**
 * The MCP request a message names (`mcpCelValue` in `mcp/authorization.ts` builds it): the method,
 * and the tool, prompt or resource when the method names one. A field that is absent (`mcp.tool`
 * on a `prompts/get`) is an evaluation error, which every rule treats fail-closed; `has(mcp.tool)`
 * tests for it.
 */
const MCP = {
  method: 'string',
  tool: { name: 'string', arguments: 'map<string, dyn>' },
  prompt: { name: 'string' },
  resource: { uri: 'string', name: 'string' },
} as const

/**
 * Where an expression runs, which decides the variables it may name:
 * - `claims`: `authorization.policy.matchExpressions`, `transformations.request.set[].value` — `jwt`;
 * - `mcp`: `mcpAuthorization.rules`, `localRateLimit[].key` and `.when` — `jwt` and `mcp`.
 */
export type CelScope = 'claims' | 'mcp'

/** What an expression must produce. */
export type CelResult = 'bool' | 'any'

/** A parsed, type-checked expression. */
export interface CelProgram {
  readonly expression: string
  /** The parsed tree (cel-js AST), for analyses such as the MCP target kinds a rule names. */
  readonly ast: unknown
  /** Evaluates with the given variables; throws when evaluation fails (missing claim, …). */
  run(variables: Readonly<Record<string, unknown>>): unknown
}

/** An expression that does not parse or type-check; the message says why. */
export class CelCompileError extends GatehouseError {
  constructor(expression: string, reason: string, options?: { cause?: unknown }) {
    super('GW_ERR_CEL_COMPILE', `invalid CEL "${expression}": ${reason}`, options)
    this.name = 'CelCompileError'
  }
}

/**
 * Compiles expressions and keeps what it compiled (programs and refusals, per scope and result),
 * so the checks of `compile` and the policies `buildSnapshot` builds share one program per
 * expression. One per compilation (`CompiledConfig.cel`); never shared between compilations.
 */
export class CelCompiler {
  readonly #environments = new Map<CelScope, Environment>()
  readonly #compiled = new Map<string, CelProgram | CelCompileError>()

  /**
   * Parses and type-checks an expression (once per compiler, scope and result).
   * @param scope - the variables it may name ({@link CelScope}).
   * @param result - `bool` for rules (a rule typed `string` or `int` is refused); `any` for values.
   * @throws {@link CelCompileError} naming the expression and the reason.
   */
  compile(expression: string, scope: CelScope, result: CelResult): CelProgram {
    const key = `${scope}\u0000${result}\u0000${expression}`
    let entry = this.#compiled.get(key)
    if (!entry) {
      entry = build(this.#env(scope), expression, result)
      this.#compiled.set(key, entry)
    }
    if (entry instanceof CelCompileError) throw entry
    return entry
  }

  #env(scope: CelScope): Environment {
    let environment = this.#environments.get(scope)
    if (!environment) {
      environment = new Environment({ unlistedVariablesAreDyn: false })
      environment.registerVariable('jwt', JWT)
      if (scope === 'mcp') environment.registerVariable({ name: 'mcp', schema: MCP })
      this.#environments.set(scope, environment)
    }
    return environment
  }
}

function build(
  environment: Environment,
  expression: string,
  result: CelResult,
): CelProgram | CelCompileError {
  let parsed: ParseResult
  try {
    parsed = environment.parse(expression)
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
  const lists = listOperands(parsed.ast)
  if (lists.length === 0)
    return { expression, ast: parsed.ast, run: (variables) => parsed(variables) }
  return {
    expression,
    ast: parsed.ast,
    run(variables) {
      for (const path of lists) refuseMapOperand(variables, path)
      return parsed(variables)
    },
  }
}

/**
 * The right operands of `in` that are claims of undeclared type (`jwt.groups`, `jwt["roles"]`,
 * `mcp.tool.arguments.tags`), as static paths from their variable.
 *
 * CEL spec, "Lists and maps": `in` on a map tests its keys. A rule written for a list claim,
 * `"Everyone" in jwt.groups` (the seed's form), is then passed by a token whose `groups` is the
 * object `{"Everyone": true}`, which the IdP may never have meant as membership. Where the
 * operand's type is declared a map (`jwt` itself, `mcp.tool.arguments`), a key test is what the
 * author wrote; below that the type is whatever the token or the client sent, so such an operand
 * must be a list when the rule runs: an object there is an evaluation error, which every rule
 * treats fail-closed. Keys of an object claim are tested with `exists` (docs/auth.md).
 */
function listOperands(ast: unknown): string[][] {
  const out: string[][] = []
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return
    const { op, args } = node as { op?: unknown; args?: unknown }
    if (op === 'in' && Array.isArray(args)) {
      const path = staticPath(args[1])
      if (path && undeclared(path)) out.push(path)
    }
    if (Array.isArray(args)) for (const a of args) walk(a)
  }
  walk(ast)
  return out
}

/** `jwt.a["b"]` as `['jwt', 'a', 'b']`; undefined when any step is computed. */
function staticPath(node: unknown): string[] | undefined {
  const { op, args } = (node ?? {}) as { op?: unknown; args?: unknown }
  if (op === 'id' && typeof args === 'string') return [args]
  if (!Array.isArray(args)) return undefined
  const base = op === '.' || op === '[]' ? staticPath(args[0]) : undefined
  if (!base) return undefined
  if (op === '.' && typeof args[1] === 'string') return [...base, args[1]]
  const index = args[1] as { op?: unknown; args?: unknown } | undefined
  if (op === '[]' && index?.op === 'value' && typeof index.args === 'string')
    return [...base, index.args]
  return undefined
}

/** Below a declared map: a claim (`jwt.x`) or a tool argument (`mcp.tool.arguments.x`). */
function undeclared(path: readonly string[]): boolean {
  if (path[0] === 'jwt') return path.length >= 2
  return path[0] === 'mcp' && path[1] === 'tool' && path[2] === 'arguments' && path.length >= 4
}

function refuseMapOperand(variables: Readonly<Record<string, unknown>>, path: string[]): void {
  let value: unknown = variables
  for (const step of path) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return
    value = (value as Record<string, unknown>)[step]
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    throw new TypeError(
      `${path.join('.')} is an object, and "in" on it would test its keys: the rule expects a list (test an object's keys with ${path.join('.')}.exists(k, k == "..."))`,
    )
  }
}

function firstLine(err: unknown): string {
  return String((err as Error | undefined)?.message ?? err).split('\n')[0] ?? 'invalid'
}

/** A fresh {@link CelCompiler}: for a compilation of its own (a unit compiled outside `compile`). */
export function newCelCompiler(): CelCompiler {
  return new CelCompiler()
}
