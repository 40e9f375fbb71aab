/** The requirements catalogue, in report order. */
import type { Requirement } from '../types.js'
import { admin } from './admin.js'
import { bridged } from './bridged.js'
import { core } from './core.js'
import { cors } from './cors.js'
import { mcpPolicy } from './mcp-policy.js'
import { strykerSurvivors } from './stryker-survivors.js'
import { transport } from './transport.js'

/** Every requirement, in report order (admin last: its shutdown check ends a run). */
export const CATALOGUE: readonly Requirement[] = [
  ...core,
  ...bridged,
  ...cors,
  ...transport,
  ...mcpPolicy,
  ...strykerSurvivors,
  ...admin,
]
