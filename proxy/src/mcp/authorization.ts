/**
 * Per-tool authorization (docs/auth.md): `traffic.mcpAuthorization.rules`, named and shaped after
 * agentgateway's `mcpAuthorization` — CEL over the verified claims (`jwt`) and the MCP request
 * (`mcp`), each rule a plain expression (an allow rule) or `{allow|deny|require: <expression>}`.
 * It decides for each tool, prompt and resource a request names (`tools/call`, `prompts/get`,
 * `resources/read|subscribe|unsubscribe`) and for each item of a list result.
 *
 * Decision, as agentgateway's rule sets: no rule → allowed; a matching deny rule → denied; a
 * require rule that does not hold → denied; a matching allow rule → allowed; otherwise denied when
 * there is any allow rule (an allow list: a tool, prompt or resource no allow rule names is
 * refused), allowed when there is none (a deny list).
 *
 * Two differences keep it fail closed and usable together. An expression that cannot be evaluated
 * (a missing claim, a type error) counts against the request: an allow rule does not match, a
 * require rule does not hold, a deny rule matches. And a deny or require rule that names
 * `mcp.tool`, `mcp.prompt` or `mcp.resource` applies only to those kinds of target, so
 * `deny: mcp.tool.name == "x"` does not deny every prompt (on which `mcp.tool` does not exist).
 */
import { type CelCompiler, type CelProgram, newCelCompiler } from '../config/cel.js'
import type { McpTarget, TargetKind } from './json-rpc.js'

/** One configured rule: a plain expression is an allow rule. */
export type McpRuleConfig = string | { allow: string } | { deny: string } | { require: string }

/** How a rule takes part in the decision. */
export type RuleMode = 'allow' | 'deny' | 'require'

/** The CEL variable `mcp`: the method and the target a request names. */
export interface McpCelValue {
  method: string
  tool?: { name: string; arguments?: Readonly<Record<string, unknown>> }
  prompt?: { name: string }
  /** `name` repeats `uri`, as agentgateway's `mcp.resource.name` is the resource's URI. */
  resource?: { uri: string; name: string }
}

/** Builds the `mcp` CEL value of a method and its target. */
export function mcpCelValue(method: string, target: McpTarget | undefined): McpCelValue {
  if (!target) return { method }
  switch (target.kind) {
    case 'tool':
      return {
        method,
        tool: target.arguments
          ? { name: target.name, arguments: target.arguments }
          : { name: target.name },
      }
    case 'prompt':
      return { method, prompt: { name: target.name } }
    case 'resource':
      return { method, resource: { uri: target.name, name: target.name } }
  }
}

/** The outcome of one rule for one target (trace, `/config_dump`). */
export interface McpRuleResult {
  mode: RuleMode
  expression: string
  /** Whether the rule took part: a deny or require rule naming other kinds of target does not. */
  applies: boolean
  matched: boolean
  error?: string
}

/** Compiled `mcpAuthorization` rules of a route (every policy on it, merged). */
export interface McpAuthorization {
  readonly rules: ReadonlyArray<{ mode: RuleMode; expression: string }>
  /** Tool names the rules compare `mcp.tool.name` with: real tools, for the metrics' labels. */
  readonly toolNames: readonly string[]
  /** Whether the caller with `claims` may use `target` (requested with `method`). */
  allows(claims: Readonly<Record<string, unknown>>, method: string, target: McpTarget): boolean
  /** The same decision with every rule's outcome, for the trace. */
  explain(
    claims: Readonly<Record<string, unknown>>,
    method: string,
    target: McpTarget,
  ): { allowed: boolean; rules: McpRuleResult[] }
}

interface CompiledRule {
  mode: RuleMode
  expression: string
  program: CelProgram
  /** Kinds of target the expression names; empty: it names none and applies to all. */
  kinds: ReadonlySet<TargetKind>
  /** Whether the outcome may depend on tool arguments (then it is never cached). */
  usesArguments: boolean
}

const KINDS = new Set<string>(['tool', 'prompt', 'resource'])

/** Names longer than this are not kept in the decision cache. */
export const MAX_CACHED_NAME = 256

/** The kinds of target an expression reads (`mcp.tool…`, `has(mcp.prompt)`, …). */
function targetKinds(ast: unknown, found: Set<TargetKind>): void {
  if (Array.isArray(ast)) {
    for (const a of ast) targetKinds(a, found)
    return
  }
  if (typeof ast !== 'object' || ast === null) return
  const node = ast as { op?: unknown; args?: unknown }
  if (node.op === '.' && Array.isArray(node.args)) {
    const [object, field] = node.args as [{ op?: unknown; args?: unknown }, unknown]
    if (object?.op === 'id' && object.args === 'mcp' && typeof field === 'string') {
      if (KINDS.has(field)) found.add(field as TargetKind)
    }
  }
  targetKinds(node.args, found)
}

/** Whether an AST node is `mcp.tool.name`. */
function isToolName(node: unknown): boolean {
  const n = node as { op?: unknown; args?: unknown } | null
  if (n?.op !== '.' || !Array.isArray(n.args) || n.args[1] !== 'name') return false
  const tool = n.args[0] as { op?: unknown; args?: unknown } | null
  if (tool?.op !== '.' || !Array.isArray(tool.args) || tool.args[1] !== 'tool') return false
  const mcp = tool.args[0] as { op?: unknown; args?: unknown } | null
  return mcp?.op === 'id' && mcp.args === 'mcp'
}

/** String literals of a value or list node. */
function literals(node: unknown, into: Set<string>): void {
  const n = node as { op?: unknown; args?: unknown } | null
  if (n?.op === 'value' && typeof n.args === 'string') into.add(n.args)
  else if (n?.op === 'list' && Array.isArray(n.args)) for (const a of n.args) literals(a, into)
}

/** Tool names an expression compares `mcp.tool.name` with (`==`, `in [...]`). */
function toolNamesOf(ast: unknown, into: Set<string>): void {
  if (Array.isArray(ast)) {
    for (const a of ast) toolNamesOf(a, into)
    return
  }
  if (typeof ast !== 'object' || ast === null) return
  const node = ast as { op?: unknown; args?: unknown }
  if ((node.op === '==' || node.op === 'in') && Array.isArray(node.args)) {
    const [left, right] = node.args as [unknown, unknown]
    if (isToolName(left)) literals(right, into)
    if (node.op === '==' && isToolName(right)) literals(left, into)
  }
  toolNamesOf(node.args, into)
}

function modeOf(rule: McpRuleConfig): { mode: RuleMode; expression: string } {
  if (typeof rule === 'string') return { mode: 'allow', expression: rule }
  if ('allow' in rule) return { mode: 'allow', expression: rule.allow }
  if ('deny' in rule) return { mode: 'deny', expression: rule.deny }
  return { mode: 'require', expression: rule.require }
}

/** Compiles one rule (`rules[i]`): its mode, its program and the kinds of target it names. */
function compileRule(cel: CelCompiler, rule: McpRuleConfig, i: number): CompiledRule {
  const { mode, expression } = modeOf(rule)
  let program: CelProgram
  try {
    program = cel.compile(expression, 'mcp', 'bool')
  } catch (err) {
    throw new Error(`rules[${i}]: ${(err as Error).message}`, { cause: err })
  }
  const kinds = new Set<TargetKind>()
  targetKinds(program.ast, kinds)
  return { mode, expression, program, kinds, usesArguments: expression.includes('arguments') }
}

/** Whether a rule takes part for a target: a deny or require rule naming other kinds does not. */
function appliesTo(rule: CompiledRule, target: McpTarget): boolean {
  return rule.mode === 'allow' || rule.kinds.size === 0 || rule.kinds.has(target.kind)
}

/**
 * Evaluates one rule, fail closed: an undecidable allow or require rule does not hold, a deny
 * rule matches.
 */
function evaluateRule(rule: CompiledRule, activation: Record<string, unknown>): McpRuleResult {
  const base = { mode: rule.mode, expression: rule.expression, applies: true }
  try {
    const v = rule.program.run(activation)
    if (typeof v !== 'boolean') {
      return { ...base, matched: rule.mode === 'deny', error: `evaluated to ${typeof v}` }
    }
    return { ...base, matched: v }
  } catch (err) {
    return { ...base, matched: rule.mode === 'deny', error: (err as Error).message }
  }
}

/**
 * The decision over the rules, in order (see the module comment). With `all`, every rule's
 * outcome is reported (the trace); without, evaluation stops once the outcome is known.
 */
function decide(
  { compiled, hasAllow }: { compiled: readonly CompiledRule[]; hasAllow: boolean },
  request: { claims: Readonly<Record<string, unknown>>; method: string; target: McpTarget },
  all: boolean,
): { allowed: boolean; rules: McpRuleResult[] } {
  const { claims, method, target } = request
  const activation = { jwt: claims, mcp: mcpCelValue(method, target) }
  const results: McpRuleResult[] = []
  let denied = false
  let allowed = false
  for (const rule of compiled) {
    if (!appliesTo(rule, target)) {
      if (all) {
        results.push({
          mode: rule.mode,
          expression: rule.expression,
          applies: false,
          matched: false,
        })
      }
      continue
    }
    if (!all && (denied || (allowed && rule.mode === 'allow'))) continue
    const r = evaluateRule(rule, activation)
    results.push(r)
    if (rule.mode === 'deny' && r.matched) denied = true
    else if (rule.mode === 'require' && !r.matched) denied = true
    else if (rule.mode === 'allow' && r.matched) allowed = true
  }
  return { allowed: !denied && (allowed || !hasAllow), rules: results }
}

/**
 * Decisions per claims object (one per cached token) and target: the rules see nothing else.
 * Bounded: a client listing or calling many names cannot grow it without end.
 */
class DecisionCache {
  readonly #byClaims = new WeakMap<object, Map<string, boolean>>()

  /** The decision cached for these claims, method and target, if any. */
  get(claims: object, key: string): boolean | undefined {
    return this.#byClaims.get(claims)?.get(key)
  }

  set(claims: object, key: string, allowed: boolean): void {
    let byTarget = this.#byClaims.get(claims)
    if (!byTarget) {
      byTarget = new Map()
      this.#byClaims.set(claims, byTarget)
    }
    if (byTarget.size >= 1024) byTarget.clear()
    byTarget.set(key, allowed)
  }
}

/**
 * Compiles rules (of every policy on a route, in order: merging rule sets is concatenation).
 * Expressions are parsed and type-checked once per compilation (`config/cel.ts`).
 * @param cel - the compilation's CEL compiler (`CompiledConfig.cel`), which holds the programs.
 * @throws Error `rules[i]: invalid CEL "…": …` for the first rule that does not compile.
 */
export function compileMcpAuthorization(
  rules: readonly McpRuleConfig[],
  cel: CelCompiler = newCelCompiler(),
): McpAuthorization {
  const compiled = rules.map((rule, i) => compileRule(cel, rule, i))
  const toolNames = new Set<string>()
  for (const rule of compiled) toolNamesOf(rule.program.ast, toolNames)
  const ruleSet = { compiled, hasAllow: compiled.some((r) => r.mode === 'allow') }
  const cacheable = !compiled.some((r) => r.usesArguments)
  const cache = new DecisionCache()
  return {
    rules: compiled.map(({ mode, expression }) => ({ mode, expression })),
    toolNames: [...toolNames],
    allows(claims, method, target) {
      if (compiled.length === 0) return true
      // A long name (a client may send 4 MiB of one) is decided afresh: 1024 of them cached
      // would hold gigabytes.
      if (!cacheable || target.name.length > MAX_CACHED_NAME) {
        return decide(ruleSet, { claims, method, target }, false).allowed
      }
      const key = `${target.kind}\u0000${method}\u0000${target.name}`
      const hit = cache.get(claims, key)
      if (hit !== undefined) return hit
      const allowed = decide(ruleSet, { claims, method, target }, false).allowed
      cache.set(claims, key, allowed)
      return allowed
    },
    explain(claims, method, target) {
      return decide(ruleSet, { claims, method, target }, true)
    },
  }
}
