/**
 * A configuration file with one MCP route and one policy `p` on it, whose `traffic` block the
 * test writes (indented by six spaces): for tests of what a policy section accepts.
 */

/**
 * The gateways, backends and routes sections of that file. The route says it may be public, so
 * that a policy without jwtAuthentication (one testing only mcpAuthorization) is a valid file.
 */
export const ROUTE = `gateways: { default: { port: 3000 } }
backends: { b: { static: { host: 127.0.0.1, port: 8090 } } }
routes:
  mcp:
    allowUnauthenticated: true
    rules:
      - matches: [ { path: { type: PathPrefix, value: /mcp } } ]
        backendRefs: [ { name: b } ]
`

/** The YAML text of that file with the given `traffic` block. */
export function policyYaml(traffic: string): string {
  return `${ROUTE}policies:\n  p:\n    targetRefs: [ { name: mcp } ]\n    traffic:\n${traffic}`
}
