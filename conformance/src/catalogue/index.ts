/** The requirements catalogue, in report order. */
import type { Requirement } from '../types.js'
import { admin } from './admin.js'
import { bridged } from './bridged.js'
import { core } from './core.js'
import { cors } from './cors.js'
import { transport } from './transport.js'

export const CATALOGUE: readonly Requirement[] = [
  ...core,
  ...bridged,
  ...cors,
  ...transport,
  ...admin,
]
