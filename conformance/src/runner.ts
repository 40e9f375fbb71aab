/**
 * Runs the catalogue against a target: filters by profile / ID, records one HTTP exchange per
 * request as evidence, applies an expected-failures baseline. Requirements marked `last` (they may
 * stop the target) run after all others.
 */
import { redactHeaders, redactText, redactUrl } from '@gatehouse/redact'
import { CATALOGUE } from './catalogue/index.js'
import { isJudged, notJudgedReason, type SpecSelection } from './spec-version.js'
import {
  type CheckContext,
  CheckFailure,
  CheckSkipped,
  type Exchange,
  type HttpResult,
  type Profile,
  type Requirement,
  type Result,
  type Target,
} from './types.js'

/** Selection and baseline. */
export interface RunOptions {
  /** Selects requirements (the `--profile` target profiles, profiles.ts). */
  select?: (r: Requirement) => boolean
  profiles?: readonly Profile[]
  only?: readonly string[]
  skip?: readonly string[]
  /**
   * The MCP revisions judged (`--spec-version`, spec-version.ts): a requirement following none of
   * them is skipped, saying why. Absent: every requirement is judged.
   */
  specSelection?: SpecSelection
  /** IDs expected to fail: their failure passes the run, their success is reported stale. */
  baseline?: ReadonlySet<string>
  catalogue?: readonly Requirement[]
}

/** Evidence headers: lower-case names, credentials redacted (`@gatehouse/redact`). */
function headersOf(h: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (!h) return out
  for (const [k, v] of Object.entries(redactHeaders(h))) out[k.toLowerCase()] = String(v)
  return out
}

/** A fetch failure in words: undici hides the socket error in `cause`. */
function describeNetworkError(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } }
  if (e.name === 'TimeoutError') return e.message
  const cause = e.cause
  if (cause)
    return redactText(`${e.message}: ${cause.code ? `${cause.code} ` : ''}${cause.message}`.trim())
  return redactText(e.message)
}

function createContext(target: Target, record: (e: Exchange) => void): CheckContext {
  return {
    target,
    async http(url, init = {}) {
      const { timeoutMs, ...rest } = init
      const request = {
        method: rest.method ?? 'GET',
        url: redactUrl(url),
        requestHeaders: headersOf(rest.headers as Record<string, string> | undefined),
      }
      // A check that cannot get an answer fails with the request as evidence, and the run goes on.
      let res: Response
      try {
        res = await fetch(url, { ...rest, signal: AbortSignal.timeout(timeoutMs ?? 10_000) })
      } catch (err) {
        const networkError = describeNetworkError(err)
        record({ ...request, status: 0, headers: {}, bodyExcerpt: '', networkError })
        throw new CheckFailure(`an answer to ${request.method} ${request.url}`, networkError)
      }
      let text: string
      try {
        text = await res.text()
      } catch (err) {
        const networkError = `the body broke off: ${describeNetworkError(err)}`
        record({
          ...request,
          status: res.status,
          headers: headersOf(res.headers),
          bodyExcerpt: '',
          networkError,
        })
        throw new CheckFailure(`a whole answer to ${request.method} ${request.url}`, networkError)
      }
      record({
        ...request,
        status: res.status,
        headers: headersOf(res.headers),
        // Redacted before it is cut, so a token cut in half is still recognised.
        bodyExcerpt: redactText(text).slice(0, 300),
      })
      const result: HttpResult = {
        status: res.status,
        headers: res.headers,
        text,
        json<T>() {
          return JSON.parse(text) as T
        },
      }
      return result
    },
  }
}

/** What a check's throw means: skipped (CheckSkipped) or failed, with the message to show. */
export function outcomeOf(err: unknown): { status: 'skipped' | 'failed'; message: string } {
  if (err instanceof CheckSkipped) return { status: 'skipped', message: err.message }
  const message = err instanceof CheckFailure ? err.message : `error: ${(err as Error).message}`
  return { status: 'failed', message }
}

/** The baseline mark of a result: a listed failure is expected, a listed pass is stale. */
export function baselineMark(
  status: Result['status'],
  listed: boolean,
): Result['baseline'] | undefined {
  if (!listed) return undefined
  return status === 'failed' ? 'expected-failure' : status === 'passed' ? 'stale' : undefined
}

/** Runs the selected requirements in catalogue order (those marked `last` at the end). */
export async function runChecks(target: Target, options: RunOptions = {}): Promise<Result[]> {
  const catalogue = options.catalogue ?? CATALOGUE
  const ordered = [...catalogue.filter((r) => !r.last), ...catalogue.filter((r) => r.last)]
  const results: Result[] = []
  for (const req of ordered) {
    const base = {
      id: req.id,
      level: req.level,
      profile: req.profile,
      source: req.source,
      text: req.text,
    }
    const selected =
      (!options.profiles || options.profiles.includes(req.profile)) &&
      (!options.select || options.select(req)) &&
      (!options.only || options.only.includes(req.id)) &&
      !options.skip?.includes(req.id)
    if (!selected) {
      results.push({ ...base, status: 'skipped', message: NOT_SELECTED, durationMs: 0 })
      continue
    }
    if (options.specSelection && !isJudged(options.specSelection, req.specVersions)) {
      const message = notJudgedReason(options.specSelection, req.specVersions ?? [])
      results.push({ ...base, status: 'skipped', message, durationMs: 0 })
      continue
    }
    let evidence: Exchange | undefined
    const ctx = createContext(target, (e) => {
      evidence = e
    })
    const started = performance.now()
    let result: Result
    try {
      await req.check(ctx)
      result = { ...base, status: 'passed', durationMs: 0 }
    } catch (err) {
      const outcome = outcomeOf(err)
      result = { ...base, ...outcome, durationMs: 0 }
      if (outcome.status === 'failed' && evidence) result.evidence = evidence
    }
    result.durationMs = Math.round(performance.now() - started)
    const mark = baselineMark(result.status, options.baseline?.has(req.id) ?? false)
    if (mark) result.baseline = mark
    results.push(result)
  }
  return results
}

/** The message of a requirement the run's selection (profile, --only, --skip) left out. */
export const NOT_SELECTED = 'not selected'

/**
 * Counts of the selected requirements (a row {@link NOT_SELECTED} is not counted: a summary of
 * `--only AUTH-001` is not "80 skipped"); an expected failure counts as passed.
 */
export function summarize(
  results: readonly Pick<Result, 'status' | 'baseline' | 'level' | 'message'>[],
): {
  passed: number
  failed: number
  skipped: number
  mustFailed: number
} {
  let passed = 0
  let failed = 0
  let skipped = 0
  let mustFailed = 0
  for (const r of results) {
    if (r.message === NOT_SELECTED) continue
    if (r.status === 'skipped') skipped++
    else if (r.status === 'passed' || r.baseline === 'expected-failure') passed++
    else {
      failed++
      if (r.level === 'MUST') mustFailed++
    }
  }
  return { passed, failed, skipped, mustFailed }
}

/** Parses a baseline file: one requirement ID per line, `#` comments. */
export function parseBaseline(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean),
  )
}
