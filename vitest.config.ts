import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'
import { LongestFirstSequencer } from './scripts/vitest/sequencer.js'
import { ALL, E2E, INTEGRATION } from './scripts/vitest/tiers.js'

/**
 * More globs every tier leaves out, as a JSON array (ci/test-lts.ts: the files that check the
 * repository rather than the runtime). `--exclude` on the command line does not reach a project
 * that sets its own `exclude`, as each tier does.
 */
export const EXCLUDE_ENV = 'GATEHOUSE_TEST_EXCLUDE'
const excluded = [
  ...configDefaults.exclude,
  ...(JSON.parse(process.env[EXCLUDE_ENV] ?? '[]') as string[]),
]

// The tiers (scripts/vitest/tiers.ts, CONTRIBUTING "Tests"), each with its own time limits:
// `npx vitest run --project unit` is the fast inner loop; `npm test` runs all three.
export default defineConfig({
  test: {
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one on the 2-core CI machine, where
    // a file often waits on the servers and processes it started. Two keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL,
          exclude: [...excluded, ...INTEGRATION, ...E2E],
          setupFiles: ['scripts/vitest/unit-setup.ts'],
          // One module graph per worker, not one per file: the tier's files import the same proxy
          // and zod modules again and again (the tier took 63.5 s isolated, 30 s not, on 2 cores).
          // A unit test leaves no global state behind (fake timers restored, no env or globals
          // stubbed); `--sequence.shuffle --maxWorkers=1` is how to check a new one.
          isolate: false,
          testTimeout: 10_000,
          hookTimeout: 10_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...excluded, ...E2E],
          // One module graph per worker here too (ci/README "How long it takes": 37 of the tier's
          // files took 192 s of CPU isolated and 113 s not). A file restores what it changes of
          // the process (environment, global dispatcher, fake timers) in its own hooks.
          isolate: false,
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: excluded,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
