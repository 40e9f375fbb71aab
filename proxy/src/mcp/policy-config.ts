/**
 * The configuration side of the MCP-aware stage: whether a policy asks for it, its rate limits in
 * the limiter's terms, and the static checks `gatehouse --validate` runs (CEL parsed and
 * type-checked, unique limit names).
 */
import type { CelCompiler } from '../config/cel.js'
import type { PolicyConfig } from '../config/schema.js'
import type { ConfigIssue } from '../errors.js'
import { compileMcpAuthorization } from './authorization.js'
import { compileRateLimits, type LocalRateLimitConfig } from './local-rate-limit.js'

/** Whether a policy asks for the MCP-aware stage. */
export function isMcpAware(policy: PolicyConfig): boolean {
  return (
    policy.traffic.mcpAuthorization !== undefined || policy.traffic.localRateLimit !== undefined
  )
}

/** The policy's `localRateLimit` entries as the rate limiter takes them (named, durations in ms). */
export function limitsOf(name: string, policy: PolicyConfig): LocalRateLimitConfig[] {
  return (policy.traffic.localRateLimit ?? []).map((l, i) => ({
    name: l.name ?? `${name}-${i}`,
    maxTokens: l.maxTokens,
    tokensPerFill: l.tokensPerFill,
    fillIntervalMs: l.fillInterval.ms,
    key: l.key,
    when: l.when,
  }))
}

/**
 * Static checks of a policy's MCP sections, for start-up and `gatehouse --validate`: CEL parsed
 * and type-checked against `jwt` and `mcp` (`config/cel.ts`; the programs stay in `cel`, the
 * compilation's compiler, so the route policy compiled with it afterwards reuses them), unique
 * limit names.
 */
export function checkMcpPolicy(
  name: string,
  policy: PolicyConfig,
  cel: CelCompiler,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const base = `policies.${name}.traffic`
  policy.traffic.mcpAuthorization?.rules.forEach((rule, i) => {
    try {
      compileMcpAuthorization([rule], cel)
    } catch (err) {
      issues.push({
        path: `${base}.mcpAuthorization.rules[${i}]`,
        message: (err as Error).message.replace(/^rules\[0\]: /, ''),
      })
    }
  })
  limitsOf(name, policy).forEach((limit, i) => {
    // `key` and `when` apart, so a problem in each is reported.
    for (const one of [
      { ...limit, when: undefined },
      { ...limit, key: undefined },
    ]) {
      try {
        compileRateLimits([one], undefined, cel)
      } catch (err) {
        const m = /^\[0\]\.(\w+): (.*)$/s.exec((err as Error).message)
        issues.push({
          path: `${base}.localRateLimit[${i}]${m ? `.${m[1]}` : ''}`,
          message: m?.[2] ?? (err as Error).message,
        })
      }
    }
  })
  const names = new Set<string>()
  limitsOf(name, policy).forEach((limit, i) => {
    if (names.has(limit.name)) {
      issues.push({
        path: `${base}.localRateLimit[${i}].name`,
        message: `the name "${limit.name}" is used twice; each limit needs its own`,
      })
    }
    names.add(limit.name)
  })
  return issues
}
