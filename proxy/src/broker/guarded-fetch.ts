/**
 * An outbound GET of a URL a client chose (a Client ID Metadata Document), guarded against SSRF
 * (OWASP SSRF Prevention; draft-ietf-oauth-client-id-metadata-document §6 "Security
 * Considerations"): https only (unless allowed), no userinfo, every resolved address public unless
 * allowed — checked on the address the name resolves to, and the connection made to that very
 * address (the check and the connect share one resolution, so DNS rebinding between them is not
 * possible) — a size cap enforced while reading, one deadline for the whole fetch (redirects and a
 * slow-trickled body included), and a redirect limit with loop detection.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

/** The guards of one fetch. */
export interface FetchGuards {
  /** Accept http:// URLs (and redirects to them). */
  allowHttp: boolean
  /** Accept loopback, private, link-local and other non-public addresses. */
  allowPrivateAddresses: boolean
  /** Largest body accepted, in bytes. */
  maxBytes: number
  /** Time for the whole fetch, redirects and body included, in milliseconds. */
  timeoutMs: number
  /** Redirects followed. */
  maxRedirects: number
  /** Name resolution (default `dns.lookup`): the addresses it returns are checked and connected to. */
  resolve?: (
    hostname: string,
    callback: (err: Error | null, addresses: LookupAddress[]) => void,
  ) => void
}

/** A fetched document. */
export interface GuardedResponse {
  /** The URL that answered (after redirects). */
  url: string
  headers: IncomingHttpHeaders
  body: Buffer
}

/** A guard refused the fetch, or it failed; `message` says which and why. */
export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError'
}

/** Whether an IP address is a public unicast address (not loopback, private, link-local, …). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  return ipaddr.process(address).range() === 'unicast'
}

/** GETs `url` within the guards; rejects with {@link GuardedFetchError} naming the guard. */
export async function guardedGet(url: string, guards: FetchGuards): Promise<GuardedResponse> {
  const signal = AbortSignal.timeout(guards.timeoutMs)
  const visited = new Set<string>()
  let current = url
  for (let hop = 0; ; hop++) {
    visited.add(current)
    const res = await requestOnce(current, guards, signal)
    const location = res.headers.location
    if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.destroy()
      let next: string
      try {
        next = new URL(location, current).href
      } catch {
        throw new GuardedFetchError(`${current} redirects to an invalid URL`)
      }
      if (visited.has(next))
        throw new GuardedFetchError(`${current} redirects in a loop (to ${next})`)
      if (hop >= guards.maxRedirects) {
        throw new GuardedFetchError(
          `${url} redirects more than ${guards.maxRedirects} time${guards.maxRedirects === 1 ? '' : 's'}`,
        )
      }
      current = next
      continue
    }
    if (res.statusCode !== 200) {
      res.destroy()
      throw new GuardedFetchError(`${current} answered HTTP ${res.statusCode}, not 200`)
    }
    const body = await readCapped(res, guards.maxBytes, current, signal)
    return { url: current, headers: res.headers, body }
  }
}

function requestOnce(
  url: string,
  guards: FetchGuards,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return Promise.reject(new GuardedFetchError(`${url} is not a URL`))
  }
  if (target.protocol !== 'https:' && !(guards.allowHttp && target.protocol === 'http:')) {
    return Promise.reject(
      new GuardedFetchError(`${url} is not https${guards.allowHttp ? ' or http' : ''}`),
    )
  }
  if (target.username || target.password) {
    return Promise.reject(new GuardedFetchError(`${url} contains userinfo`))
  }
  const host = target.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) && !guards.allowPrivateAddresses && !isPublicAddress(host)) {
    return Promise.reject(new GuardedFetchError(`${url}: ${host} is not a public address`))
  }
  const client = target.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = client.request(target, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'gatehouse' },
      lookup: checkedLookup(guards, url),
      agent: false,
      signal,
    })
    req.on('response', resolve)
    req.on('error', (err) => reject(describe(err, url, guards)))
    req.end()
  })
}

/**
 * A `lookup` for the request: resolves the name once, refuses when any address is not public
 * (unless allowed), and hands the checked addresses to the socket, which connects to them.
 */
function checkedLookup(guards: FetchGuards, url: string): LookupFunction {
  const resolve =
    guards.resolve ??
    ((hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback))
  return (hostname, options, callback) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err, '', 0)
      const usable = addresses.filter((a) => !options.family || a.family === options.family)
      const bad = usable.find((a) => !guards.allowPrivateAddresses && !isPublicAddress(a.address))
      if (bad || usable.length === 0) {
        const why = bad
          ? `${hostname} resolves to ${bad.address}, which is not a public address`
          : `${hostname} has no address`
        return callback(new GuardedFetchError(`${url}: ${why}`) as NodeJS.ErrnoException, '', 0)
      }
      if (options.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable)
      const first = usable[0] as LookupAddress
      callback(null, first.address, first.family)
    })
  }
}

function readCapped(
  res: IncomingMessage,
  maxBytes: number,
  url: string,
  signal: AbortSignal,
): Promise<Buffer> {
  const declared = Number(res.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy()
    return Promise.reject(
      new GuardedFetchError(`${url} is larger than ${maxBytes} bytes (${declared})`),
    )
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onAbort = () => {
      res.destroy()
      reject(describe(signal.reason, url, undefined))
    }
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    res.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        signal.removeEventListener('abort', onAbort)
        res.destroy()
        reject(new GuardedFetchError(`${url} is larger than ${maxBytes} bytes`))
        return
      }
      chunks.push(chunk)
    })
    res.on('end', () => {
      signal.removeEventListener('abort', onAbort)
      resolve(Buffer.concat(chunks))
    })
    res.on('error', (err) => {
      signal.removeEventListener('abort', onAbort)
      reject(describe(err, url, undefined))
    })
  })
}

function describe(err: unknown, url: string, guards: FetchGuards | undefined): GuardedFetchError {
  if (err instanceof GuardedFetchError) return err
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown }
  if (e.cause instanceof GuardedFetchError) return e.cause
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'ABORT_ERR') {
    return new GuardedFetchError(
      `${url} did not answer in time${guards ? ` (${guards.timeoutMs} ms)` : ''}`,
    )
  }
  return new GuardedFetchError(`${url} could not be fetched: ${e.code ?? e.message ?? String(err)}`)
}
