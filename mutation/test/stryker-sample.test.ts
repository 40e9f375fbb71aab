import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Location } from '@stryker-mutator/api/core'
import type { Logger } from '@stryker-mutator/api/logging'
import { Instrumenter } from '@stryker-mutator/instrumenter'
import { afterAll, describe, expect, it } from 'vitest'
import {
  chooseSample,
  listMutants,
  locationKey,
  mutatePatterns,
  parseKey,
  type Sample,
  sampleIgnorer,
} from '../src/stryker/sample.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-stryker-sample-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const A = `export function allowed(groups: string[], method: string): boolean {
  if (method === 'OPTIONS') return true
  return groups.includes('admins') || groups.length > 3
}
`
const B = `export const limit = (n: number) => (n > 10 ? 'many' : n === 0 ? 'none' : 'some')
export function join(a: string, b: string): string {
  return a + '/' + b
}
`
writeFileSync(join(dir, 'a.ts'), A)
writeFileSync(join(dir, 'b.ts'), B)
const files = [join(dir, 'a.ts'), join(dir, 'b.ts')]
const lengths = { 'a.ts': A.length, 'b.ts': B.length }

const quiet = new Proxy({} as Logger, {
  get: (_t, key) => (String(key).startsWith('is') ? () => false : () => {}),
})

/** What Stryker would run for a sample: the mutants at the `mutate` ranges the ignorer lets by. */
async function instrumentSample(sample: Sample) {
  const ranges = mutatePatterns(sample).map((p) => {
    const m = /^(.*):(\d+):(\d+)-(\d+):(\d+)$/.exec(p)
    if (!m) throw new Error(p)
    const [, file, sl, sc, el, ec] = m
    // Stryker's option is 1-based in lines; its ranges (and mutant locations) are 0-based.
    const range = {
      start: { line: Number(sl) - 1, column: Number(sc) },
      end: { line: Number(el) - 1, column: Number(ec) },
    }
    return { file: join(dir, file as string), range }
  })
  const result = await new Instrumenter(quiet).instrument(
    files.map((name) => ({
      name,
      content: name.endsWith('a.ts') ? A : B,
      mutate: ranges.filter((r) => r.file === name).map((r) => r.range),
    })),
    { plugins: null, excludedMutations: [], ignorers: [sampleIgnorer(() => sample)] },
  )
  return result.mutants.filter((m) => m.status !== 'Ignored')
}

describe('Stryker sample (conformance:stryker --sample)', () => {
  it('chooses the same locations every time, holding at least the number asked for', async () => {
    const all = await listMutants(dir, files)
    expect(all.length).toBeGreaterThan(15)
    const one = chooseSample(all, 6, lengths)
    const two = chooseSample([...all].reverse(), 6, lengths)
    expect(two).toEqual(one)
    expect(one.mutants).toBeGreaterThanOrEqual(6)
    expect(one.mutants).toBeLessThan(all.length)
    expect(chooseSample(all, 10_000, lengths).mutants).toBe(all.length)
  })

  it('makes Stryker run the mutants at the chosen locations and none nested in them', async () => {
    const all = await listMutants(dir, files)
    const within = (outer: Location, inner: Location) =>
      (outer.start.line < inner.start.line ||
        (outer.start.line === inner.start.line && outer.start.column <= inner.start.column)) &&
      (inner.end.line < outer.end.line ||
        (inner.end.line === outer.end.line && inner.end.column <= outer.end.column))
    let nested = 0
    for (const n of [2, 4, 8, 16, 24]) {
      const sample = chooseSample(all, n, lengths)
      const run = await instrumentSample(sample)
      for (const m of run) {
        const file = m.fileName.slice(dir.length + 1)
        const chosen = (sample.locations[file] ?? []).map(parseKey)
        const key = locationKey(m.location)
        if (chosen.some((l) => locationKey(l) === key)) continue
        // The one exception (documented): a node between two chosen ones.
        expect(
          chosen.some((l) => within(l, m.location)) && chosen.some((l) => within(m.location, l)),
          `${file} ${key} ${m.mutatorName} is not in the sample of ${n}`,
        ).toBe(true)
        nested++
      }
      for (const key of Object.entries(sample.locations).flatMap(([f, ks]) =>
        ks.map((k) => `${f}@${k}`),
      )) {
        expect(
          run.some((m) => `${m.fileName.slice(dir.length + 1)}@${locationKey(m.location)}` === key),
          key,
        ).toBe(true)
      }
    }
    expect(nested).toBeLessThan(all.length / 4)
  })
})
