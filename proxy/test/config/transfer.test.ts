/**
 * A configuration handed from the load thread in parts (proxy/src/config/transfer.ts) comes back
 * exactly as it was — `Duration`s as `Duration`s, frozen — and the main thread's side gives the
 * event loop a turn between parts, so that a large one does not hold it in one piece.
 */
import { describe, expect, it } from 'vitest'
import { Duration } from '../../src/config/duration.js'
import { parseConfig } from '../../src/config/load.js'
import type { GatehouseConfig } from '../../src/config/schema.js'
import { loadConfigSources } from '../../src/config/sources.js'
import { PART_ENTRIES, packConfig, unpackConfig } from '../../src/config/transfer.js'
import { turnsDuring } from '../event-loop-turns.js'
import { oneRouteConfig } from './many-routes.js'

const EXAMPLE = new URL('../../../examples/standalone/gatehouse.yaml', import.meta.url).pathname
const MANIFESTS = new URL('../../../examples/kubernetes/mcp-auth.yaml', import.meta.url).pathname

/** `n` routes, one with a `Duration` inside it, and durations outside the maps. */
function large(n: number): string {
  const out = [
    'config: { adminAddr: "off", drainTimeout: 3s }',
    'gateways: { default: { port: 3000 } }',
    'backends:\n  b: { static: { host: 127.0.0.1, port: 9 }, timeouts: { response: 1m30s } }',
    'routes:',
  ]
  for (let i = 0; i < n; i++) {
    out.push(
      `  r${i}: { allowUnauthenticated: true, rules: [{ matches: [{ path: { type: PathPrefix, value: /t${i} } }], backendRefs: [{ name: b }] }] }`,
    )
  }
  return `${out.join('\n')}\n`
}

/**
 * {@link large}`(1)` validated, its route copied `n` times (validating 10,000 routes here would
 * take most of the test's time; the transfer only walks plain data).
 */
function copies(n: number): Readonly<GatehouseConfig> {
  const one = parseConfig(large(1))
  const route = one.routes.r0 as GatehouseConfig['routes'][string]
  return {
    ...one,
    routes: Object.fromEntries(Array.from({ length: n }, (_, i) => [`r${i}`, route])),
  }
}

describe('packConfig / unpackConfig', () => {
  it('gives back the example configuration as it was: the same values, Durations as Durations, frozen', async () => {
    const { config } = await loadConfigSources([EXAMPLE], { env: {} })
    const packed = packConfig(config)
    const back = await unpackConfig(packed)
    // Not one object of the original crosses: the parts are text.
    expect(typeof packed.head).toBe('string')
    expect(
      packed.parts.every(([map, text]) => typeof map === 'string' && typeof text === 'string'),
    ).toBe(true)
    expect(back).toStrictEqual(config)
    expect(back.config.drainTimeout).toBeInstanceOf(Duration)
    expect(Object.isFrozen(back)).toBe(true)
    expect(Object.isFrozen(back.routes)).toBe(true)
    expect(Object.values(back.routes).every((r) => Object.isFrozen(r.rules[0]))).toBe(true)
  })

  it('gives back the Kubernetes example translated as it was', async () => {
    const { config } = await loadConfigSources([MANIFESTS], { env: {} })
    expect(await unpackConfig(packConfig(config))).toStrictEqual(config)
  })

  it('puts back Durations inside an entry, at the top of a map and outside the maps', async () => {
    const config = parseConfig(large(3))
    const back = await unpackConfig(packConfig(config))
    expect(back).toStrictEqual(config)
    expect(back.backends.b?.timeouts.response).toBeInstanceOf(Duration)
    expect(back.backends.b?.timeouts.response.ms).toBe(90_000)
    expect(back.config.drainTimeout.ms).toBe(3000)
    expect(Object.isFrozen(back.backends.b?.timeouts)).toBe(true)
  })

  it('keeps the routes in configuration order across parts', async () => {
    const config = copies(PART_ENTRIES * 2 + 7)
    const back = await unpackConfig(packConfig(config))
    expect(Object.keys(back.routes)).toEqual(Object.keys(config.routes))
  })

  it('sends a policy naming 1,000 routes with its targetRefs in parts, and gives it back whole, in order, frozen', async () => {
    const one = oneRouteConfig()
    const p = one.policies.p as GatehouseConfig['policies'][string]
    const ref = p.targetRefs[0] as (typeof p.targetRefs)[number]
    const refs = Array.from({ length: 1_000 }, (_, i) => ({ ...ref, name: `r${i}` }))
    const config = { ...one, policies: { p: { ...p, targetRefs: refs } } }
    const packed = packConfig(config)
    expect(
      packed.parts.filter(([map, , entry]) => map === 'policies' && entry === 'p'),
    ).toHaveLength(1_000 / PART_ENTRIES)
    const back = await unpackConfig(packed)
    expect(back).toStrictEqual(config)
    expect(Object.isFrozen(back.policies.p?.targetRefs)).toBe(true)
    expect(Object.isFrozen(back.policies.p?.targetRefs[999])).toBe(true)
  })

  it('parses a 10,000-route configuration a part per turn: other callbacks run between its parts', async () => {
    const config = copies(10_000)
    const packed = packConfig(config)
    const routeParts = packed.parts.filter(([map, , entry]) => map === 'routes' && !entry).length
    expect(routeParts).toBe(10_000 / PART_ENTRIES)
    const { result: back, turns } = await turnsDuring(() => unpackConfig(packed))
    expect(turns).toBeGreaterThanOrEqual(routeParts)
    expect(Object.keys(back.routes)).toHaveLength(10_000)
  })
})
