/**
 * `GET /metrics` on the admin address (docs/observability.md): the proxy's Prometheus metrics in the text
 * exposition format. Served beside the other admin endpoints, so it is as local as they are:
 * scrape it from the same host (a sidecar, node agent) or through `kubectl port-forward`.
 */
import type { FastifyReply } from 'fastify'
import type { Metrics } from '../telemetry/metrics.js'
import { sendTextError } from './reply.js'

/** Answers with the exposition text; 503 when this proxy collects no metrics. */
export async function serveMetrics(
  reply: FastifyReply,
  metrics: Pick<Metrics, 'render'> | undefined,
): Promise<FastifyReply> {
  if (!metrics) {
    return sendTextError(
      reply,
      'GW_ERR_ADMIN_UNAVAILABLE',
      'metrics are not collected by this proxy',
    )
  }
  const { contentType, body } = await metrics.render()
  return reply.code(200).type(contentType).header('cache-control', 'no-store').send(body)
}
