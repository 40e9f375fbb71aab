/** Shared fixtures of the runner's tests. */
import type { Target } from '../src/types.js'

/**
 * A target at `base` with an inert IdP: for catalogues written in the test, whose checks only
 * speak HTTP to `base`.
 */
export function plainTarget(base: string): Target {
  return {
    base,
    configuredBase: base,
    idp: {
      issuer: 'x',
      audience: 'y',
      orgUrl: 'z',
      control: {
        token: async () => ({ access_token: 't' }),
        registrations: async () => [],
        requests: async () => [],
        clearRequests: async () => {},
      },
    },
    secrets: [],
    allowShutdown: false,
  }
}
