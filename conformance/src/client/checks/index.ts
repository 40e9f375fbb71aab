/** The client catalogue, in report order. */
import { authorization } from './authorization.js'
import { authorization2026 } from './authorization-2026.js'
import { discovery } from './discovery.js'
import { endpoints } from './endpoints.js'
import { legacy } from './legacy.js'
import { requestMetadata } from './request-metadata.js'
import { session } from './session.js'
import { tokenEndpoint } from './token-endpoint.js'
import type { ClientRequirement } from './types.js'

export type { ClientCheckContext, ClientRequirement } from './types.js'

/** Every client requirement, in report order. */
export const CLIENT_CATALOGUE: readonly ClientRequirement[] = [
  ...session.filter((r) => r.id.startsWith('CLI-FLOW')),
  ...discovery,
  ...endpoints,
  ...legacy,
  ...authorization,
  ...authorization2026,
  ...tokenEndpoint,
  ...requestMetadata,
  ...session.filter((r) => !r.id.startsWith('CLI-FLOW')),
]
