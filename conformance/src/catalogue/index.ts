/** The requirements catalogue, in report order. */
import type { Requirement } from '../types.js'
import { admin } from './admin.js'
import { asDiscovery } from './as-discovery.js'
import { authorization2026 } from './authorization-2026.js'
import { bridged } from './bridged.js'
import { brokerProfile } from './broker.js'
import { brokerFlow } from './broker-flow.js'
import { challenges } from './challenges.js'
import { core } from './core.js'
import { cors } from './cors.js'
import { flow } from './flow.js'
import { mcpPolicy } from './mcp-policy.js'
import { modern } from './modern.js'
import { opaqueTokens } from './opaque-tokens.js'
import { resourceMetadata } from './resource-metadata.js'
import { withSpecVersions } from './revisions.js'
import { scopes } from './scopes.js'
import { sessionBinding } from './session-binding.js'
import { tlsProfile } from './tls.js'
import { transport } from './transport.js'

/**
 * Every requirement, in report order (admin last: its shutdown check ends a run), each with the
 * MCP revisions it follows (revisions.ts).
 */
export const CATALOGUE: readonly Requirement[] = [
  ...core,
  ...challenges,
  ...scopes,
  ...opaqueTokens,
  ...resourceMetadata,
  ...bridged,
  ...asDiscovery,
  ...flow,
  ...cors,
  ...transport,
  ...sessionBinding,
  ...mcpPolicy,
  ...brokerProfile,
  ...brokerFlow,
  ...modern,
  ...authorization2026,
  ...tlsProfile,
  ...admin,
].map(withSpecVersions)
