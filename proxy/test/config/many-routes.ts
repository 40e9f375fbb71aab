/**
 * The compile and transfer tests' large configurations: one route `r` under one policy `p` with a
 * CEL rule, and the same with `n` copies of the route (`r0` … ) that the policy names each of.
 */
import { parseConfig } from '../../src/config/load.js'

/** One route, one backend, one policy naming the route, with one CEL rule. */
export function oneRouteConfig() {
  return parseConfig(
    `gateways: { default: { port: 3000 } }
backends: { b: { static: { host: 127.0.0.1, port: 9 } } }
routes:
  r: { allowUnauthenticated: true, rules: [ { matches: [ { path: { type: PathPrefix, value: / } } ], backendRefs: [ { name: b } ] } ] }
policies:
  p:
    targetRefs: [ { name: r } ]
    traffic: { authorization: { policy: { matchExpressions: [ 'jwt.sub == "alice"' ] } } }
`,
    'compile.yaml',
    {},
  )
}

/** `n` routes (`r0` … ) under one policy whose `targetRefs` names each of them. */
export function manyRoutes(n: number): ReturnType<typeof oneRouteConfig> {
  const one = oneRouteConfig()
  const names = Array.from({ length: n }, (_, i) => `r${i}`)
  const p = one.policies.p as (typeof one.policies)[string]
  return {
    ...one,
    routes: Object.fromEntries(names.map((name) => [name, one.routes.r])),
    policies: { p: { ...p, targetRefs: names.map((name) => ({ ...p.targetRefs[0], name })) } },
  } as typeof one
}
