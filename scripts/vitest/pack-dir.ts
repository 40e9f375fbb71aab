/**
 * The `e2e` project's global setup (vitest.config.ts): one temporary directory per run, given to
 * the test files as `inject(PACK_DIR)`, where the first file that needs the packed conformance
 * package packs it and the others take the same tarball (conformance/test/packed.ts) — `npm pack`
 * builds the workspace first, about 16–24 s on the shared 2-core machine, once instead of once per
 * file. Removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'

/** The name the directory is provided under. */
export const PACK_DIR = 'gatehousePackDir'

declare module 'vitest' {
  export interface ProvidedContext {
    [PACK_DIR]: string
  }
}

/** Creates the run's directory; returns its removal. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pack-run-'))
  project.provide(PACK_DIR, dir)
  return () => rmSync(dir, { recursive: true, force: true })
}
