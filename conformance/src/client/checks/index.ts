/** The client catalogue, in report order. */
import { authorization } from './authorization.js'
import { discovery } from './discovery.js'
import { legacy } from './legacy.js'
import { session } from './session.js'
import { tokenEndpoint } from './token-endpoint.js'
import type { ClientRequirement } from './types.js'

export type { ClientCheckContext, ClientRequirement } from './types.js'

/** Every client requirement, in report order. */
export const CLIENT_CATALOGUE: readonly ClientRequirement[] = [
  ...session.filter((r) => r.id.startsWith('CLI-FLOW')),
  ...discovery,
  ...legacy,
  ...authorization,
  ...tokenEndpoint,
  ...session.filter((r) => !r.id.startsWith('CLI-FLOW')),
]
