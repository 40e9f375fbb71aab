/**
 * The unit tests Stryker's vitest runner judges mutants with (`npm run conformance:stryker --
 * --runner unit`): the proxy's tests, without those that start the proxy as a process (the CLI and
 * reliability tests: Stryker's in-process switch does not reach a child), the browser tests
 * (Chromium) and the examples/Dockerfile test (no proxy code under test).
 *
 * `conformance:stryker --tests GLOB` narrows them (environment variable {@link TESTS_ENV}). Code
 * that runs in a `beforeAll` hook (most tests start their proxy there) counts for Stryker as
 * covered by no test in particular, so each such mutant runs every test file included: with all of
 * them that is about a minute a mutant on two cores, with `proxy/test/auth/**` a few seconds.
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/** The environment variable holding a glob of test files to include instead of all. */
export const TESTS_ENV = 'GATEHOUSE_STRYKER_TESTS'
/** The environment variable holding a JSON array of test files to leave out as well
 * (`--without-shared-gatehouse`). */
export const EXCLUDE_ENV = 'GATEHOUSE_STRYKER_EXCLUDE'

export default defineConfig({
  test: {
    // The repository (Stryker's sandbox when it runs): this file is mutation/src/stryker/.
    root: fileURLToPath(new URL('../../..', import.meta.url)),
    include: [process.env[TESTS_ENV] ?? 'proxy/test/**/*.test.ts'],
    exclude: [
      'proxy/test/browser/**',
      'proxy/test/reliability/**',
      'proxy/test/cli.test.ts',
      'proxy/test/examples.test.ts',
      '**/node_modules/**',
      ...(JSON.parse(process.env[EXCLUDE_ENV] ?? '[]') as string[]),
    ],
    // Below Stryker's run timeout (timeoutMS 20 s + the covering tests' time): a mutant that
    // makes a test hang fails that test (killed) instead of making Stryker restart the runner,
    // which costs a whole vitest start-up.
    testTimeout: 10_000,
    hookTimeout: 10_000,
  },
})
