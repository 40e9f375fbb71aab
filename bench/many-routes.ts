/**
 * The large configuration the reload and growth benches share: `n` routes under one JWT policy
 * (inline ES256 key, one CEL rule), each route with a CORS filter whose `maxAge` a reload changes.
 */
import { generateKeyPairSync } from 'node:crypto'

/**
 * The `routes:` entries of `n` routes (`r0` … `r<n-1>`, PathPrefix `/t<i>/mcp`, backend `b`) and the
 * `policies:` section of the one JWT policy on all of them, as YAML to follow a `routes:` line.
 * `parentRef` names the gateway each route attaches to (none: every gateway).
 */
export function manyRoutesYaml(n: number, maxAge: number, parentRef?: string): string {
  const jwk = JSON.stringify({
    ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
    kid: 'k',
    alg: 'ES256',
  })
  const parent = parentRef === undefined ? '' : `\n    parentRefs: [{ name: ${parentRef} }]`
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    out.push(`  r${i}:${parent}
    rules:
      - matches: [{ path: { type: PathPrefix, value: /t${i}/mcp } }]
        filters: [{ type: CORS, cors: { allowOrigins: ['*'], maxAge: ${maxAge} } }]
        backendRefs: [{ name: b }]`)
  }
  out.push(`policies:
  p:
    targetRefs:
${Array.from({ length: n }, (_, i) => `      - { kind: HTTPRoute, name: r${i} }`).join('\n')}
    traffic:
      jwtAuthentication:
        mode: Strict
        providers:
          - issuer: https://idp.example
            audiences: [x]
            jwks: { inline: { keys: [${jwk}] } }
      authorization:
        action: Allow
        policy: { matchExpressions: ['"a" in jwt.groups'] }`)
  return out.join('\n')
}
