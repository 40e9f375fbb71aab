/**
 * The rule every IdP endpoint URL the gateway calls or sends a browser to must meet, whether
 * configured (`providers[].endpoints`) or read from a discovery document: `https`, or `http` on a
 * loopback host only (RFC 8252 §8.3; OAuth 2.1 §1.5: "all communication ... MUST use TLS" except
 * loopback), no credentials in the URL, no fragment (RFC 6749 §3.1 and §3.2: "MUST NOT include a
 * fragment component").
 */

/** Whether `hostname` (as URL gives it) is a loopback address or `localhost`. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return (
    h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h)
  )
}

/**
 * Why `value` is not an acceptable IdP endpoint URL, or `undefined` when it is.
 * @example endpointUrlProblem('http://idp.example.com/token') // 'uses http on a host that is not loopback: …'
 */
export function endpointUrlProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return `is not an absolute URL: "${value}"`
  const u = new URL(value)
  if (u.username || u.password) return 'carries credentials in the URL: put them in clientSecret'
  if (u.hash) return 'has a fragment (#…), which an OAuth endpoint must not have (RFC 6749 §3.1)'
  if (u.protocol === 'https:') return undefined
  if (u.protocol === 'http:') {
    return isLoopbackHost(u.hostname)
      ? undefined
      : `uses http on ${u.hostname}, which is not a loopback host: tokens and codes would cross the network in the clear; use https`
  }
  return `uses ${u.protocol.replace(/:$/, '')}: expected https (http on a loopback host only)`
}
