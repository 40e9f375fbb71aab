/**
 * `config.maxRoutes`: how many routes one configuration may hold (docs/reliability.md,
 * "Configuration input and operator mistakes"). A configuration with more is refused as soon as
 * its routes can be counted — after the YAML parse, before the schema validation and the compile,
 * which is where a large configuration costs its time and memory — with the count, the limit and
 * how to raise it. It runs in `validateConfig`, the validation every source goes through (the
 * standalone file, translated Kubernetes resources).
 */
import type { ConfigIssue } from '../errors.js'
import { DEFAULT_MAX_ROUTES, MAX_ROUTES_CEILING } from './schema/process.js'

/** The issue of `count` routes against `limit`, or none when it is within. */
export function routeCountIssues(count: number, limit: number): ConfigIssue[] {
  if (count <= limit) return []
  return [
    {
      path: 'routes',
      message: `${count} routes is more than config.maxRoutes (${limit}): the configuration is refused before it is validated or compiled. Remove routes, or raise config.maxRoutes (at most ${MAX_ROUTES_CEILING}) on a machine with the memory for them (docs/configuration.md, config.maxRoutes)`,
    },
  ]
}

/**
 * The limit a configuration not validated yet asks for: its `config.maxRoutes` when that is a
 * valid one, else the default (an invalid value is then reported by the schema).
 */
export function rawRouteLimit(rawConfigSection: unknown): number {
  const value =
    rawConfigSection && typeof rawConfigSection === 'object'
      ? (rawConfigSection as Record<string, unknown>).maxRoutes
      : undefined
  return Number.isInteger(value) &&
    (value as number) >= 1 &&
    (value as number) <= MAX_ROUTES_CEILING
    ? (value as number)
    : DEFAULT_MAX_ROUTES
}

/** How many entries a raw `routes` section holds (0 when it is not a mapping). */
export function rawRouteCount(rawRoutes: unknown): number {
  return rawRoutes && typeof rawRoutes === 'object' && !Array.isArray(rawRoutes)
    ? Object.keys(rawRoutes).length
    : 0
}
