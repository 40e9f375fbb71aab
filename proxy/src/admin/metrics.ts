/**
 * `GET /metrics` on the admin address (issue #14): the proxy's Prometheus metrics in the text
 * exposition format. Served beside the other admin endpoints, so it is as local as they are:
 * scrape it from the same host (a sidecar, node agent) or through `kubectl port-forward`.
 */
import type { ServerResponse } from 'node:http'
import type { Metrics } from '../telemetry/metrics.js'

/** Writes the exposition text; 503 when this proxy collects no metrics. */
export async function serveMetrics(
  res: ServerResponse,
  metrics: Metrics | undefined,
): Promise<void> {
  if (!metrics) {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
    res.end('metrics are not collected by this proxy\n')
    return
  }
  const { contentType, body } = await metrics.render()
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
  res.end(body)
}
