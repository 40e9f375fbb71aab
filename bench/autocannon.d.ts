/**
 * The part of autocannon's API the benchmark uses (autocannon ships no type declarations).
 */
declare module 'autocannon' {
  interface Options {
    url: string
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
    body?: string
    headers?: Record<string, string>
    connections?: number
    duration?: number
    /** Stop after this many requests instead of after `duration`. */
    amount?: number
    /** The request sequence; `setupRequest` may change each request before it is sent. */
    requests?: Array<{
      setupRequest?: (req: Request) => Request
    }>
  }
  interface Request {
    headers: Record<string, string>
    [key: string]: unknown
  }
  interface Histogram {
    average: number
    p50: number
    p99: number
    /** Sum over the run (for `requests`: how many completed). */
    total: number
  }
  interface Result {
    requests: Histogram
    latency: Histogram
    non2xx: number
    errors: number
    timeouts: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
