/**
 * The HTML report of the server mode (`--html`): the catalogue's results by profile. It has no
 * sequence diagrams (page.ts says why on the page).
 */
import { CATALOGUE } from '../../catalogue/index.js'
import { PROFILES, type ReportRow } from '../../types.js'
import { type Clause, htmlReport } from './page.js'

/** What the server-mode page says besides the results. */
export interface ServerHtmlOptions {
  /** The console report's title. */
  title: string
  /** What was judged (target base, admin URL, revisions), as label and value. */
  facts?: ReadonlyArray<readonly [string, string]>
  /** When the run ended; default now. */
  generatedAt?: Date
}

/** The sentence each server requirement cites and its level note, by ID. */
function serverClauses(): Map<string, Clause> {
  return new Map(
    CATALOGUE.map((r) => [
      r.id,
      {
        ...(r.quote ? { quote: r.quote } : {}),
        ...(r.levelNote ? { levelNote: r.levelNote } : {}),
      },
    ]),
  )
}

/** The page for a server-mode run. */
export function serverHtmlReport(
  results: readonly ReportRow[],
  options: ServerHtmlOptions,
): string {
  return htmlReport({
    mode: 'server',
    title: options.title,
    generatedAt: (options.generatedAt ?? new Date()).toISOString(),
    results,
    groups: PROFILES,
    clauses: serverClauses(),
    facts: options.facts ?? [],
  })
}
