#!/usr/bin/env node
/**
 * `npm run conformance:cross-judge [-- --check] [-- --only <client,…>]`: judges the SDK client,
 * the hand-written client and each planted fault (conformance/test/client/clients/faults.ts) with
 * gatehouse's client mode and with the official suite (`--suite auth`, Node 22), and writes the
 * table between the cross-judge markers of docs/judges.md — or, with `--check`, exits 1 when it
 * differs from what is there. With `--only`, only those clients' rows are replaced. Takes minutes (the official suite alone is ~1–2 min per client).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CAUGHT_BY } from '@gatehouse/conformance/internal/client-faults'
import {
  gatehouseVerdict,
  type JudgedClient,
  mergeRows,
  officialVerdict,
  type Row,
  regionOf,
  tableHeader,
  tableRow,
  withRegion,
} from '../src/cross-judge.js'
import { ROOT } from '../src/paths.js'

const args = process.argv.slice(2)
const check = args.includes('--check')
const only = args.includes('--only')
  ? (args[args.indexOf('--only') + 1] ?? '').split(',')
  : undefined

const HAND = 'npx tsx conformance/test/client/clients/hand-client.ts'
const clients: JudgedClient[] = [
  { name: 'sdk-client', command: 'npx tsx conformance/src/client/examples/sdk-client.ts' },
  { name: 'hand-client', command: HAND },
  ...Object.entries(CAUGHT_BY)
    .filter(([fault]) => fault !== 'hang-on-refusal')
    .map(([fault, c]) => ({
      name: fault,
      command: `${HAND} --fault ${fault}`,
      scenarios: [c.scenario],
    })),
].filter((c) => !only || only.includes(c.name))

const version = (
  JSON.parse(
    readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/conformance/package.json'), 'utf8'),
  ) as { version: string }
).version

const rows: Row[] = []
for (const client of clients) {
  const gatehouse = await gatehouseVerdict(client)
  const official = await officialVerdict(client.command, { suite: 'auth' })
  rows.push({
    client,
    gatehouse: gatehouse.failures,
    official: official.failures,
    officialScenarios: official.scenarios,
  })
  process.stdout.write(`${client.name}: judged\n`)
}
const path = join(ROOT, 'docs/judges.md')
const before = readFileSync(path, 'utf8')
// Every client: the table is this run's; some (--only): their rows replaced, the others kept.
const header = tableHeader(version)
const table = only
  ? mergeRows(regionOf(before), rows.map(tableRow), header)
  : [header, ...rows.map(tableRow)].join('\n')
const after = withRegion(before, table)
if (check) {
  if (after !== before) {
    process.stderr.write(
      'docs/judges.md: the cross-judge table differs from this run (npm run conformance:cross-judge rewrites it)\n',
    )
    process.exit(1)
  }
  process.stdout.write('docs/judges.md: in step\n')
} else {
  writeFileSync(path, after)
  process.stdout.write(`docs/judges.md: ${after === before ? 'in step' : 'rewritten'}\n`)
}
