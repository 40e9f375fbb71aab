/**
 * The proxy's version, on its own so that `gatehouse --version` loads nothing else. The JSON
 * import is inlined by the build, so the bundle does not depend on where package.json lies.
 */
import pkg from '../package.json' with { type: 'json' }

/** The proxy's version, from its package.json. */
export const VERSION: string = pkg.version
