/**
 * Building blocks shared by the sections of the configuration schema: names, ports, host names,
 * bounded counts and bounded durations.
 */
import { z } from 'zod'
import { Duration } from '../duration.js'
import { describeValue } from '../issues.js'

/** A name of a gateway, backend, route or policy: an RFC 1123 DNS label. */
export const name = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
  error: (iss) =>
    `expected an RFC 1123 DNS label (the Kubernetes object-name rule): 1-63 characters, lowercase letters, digits and "-", starting and ending with a letter or digit; got ${describeValue(iss.input)}`,
})

// Durations: bounded, so a typo cannot disable a timeout (Node's timers fire at once beyond
// 2^31-1 ms, about 24.8 days: `drainTimeout: 99999999h` used to mean "do not drain at all").

const DURATION_FORMAT = 'a number followed by ms, s, m or h, or a compound such as "1m30s"'

/** What a duration looks like: the JSON Schema's `pattern`, the language `parseDuration` reads. */
export const DURATION_PATTERN = /^(\d+(\.\d+)?(ms|s|m|h))+$/

/**
 * A duration such as `500ms`, `30s`, `5m` or `1h`, between `min` and `max` inclusive, parsed into
 * a {@link Duration}: consumers read `.ms`, a dump shows the text. `0s` is only accepted where
 * `min` is `0s` (and the field documents what zero means). Give defaults with `.prefault("30s")`,
 * so they are parsed like written values.
 */
export function duration(min: string, max: string) {
  const lo = Duration.of(min).ms
  const hi = Duration.of(max).ms
  const format = (v: unknown) =>
    `expected a duration such as "500ms", "30s", "5m" or "1h" (${DURATION_FORMAT}), got ${describeValue(v)}`
  return z
    .string({ error: (iss) => format(iss.input) })
    .regex(DURATION_PATTERN, { error: (iss) => format(iss.input) })
    .describe(`A duration from ${min} to ${max}: ${DURATION_FORMAT} (for example "30s").`)
    .transform((v, ctx) => {
      // `continue: true`: the enclosing object's own checks still run, so every problem is
      // reported at once (an out-of-bounds value still carries its milliseconds).
      const d = Duration.parse(v)
      if (!d) {
        ctx.addIssue({ code: 'custom', message: format(v), continue: true })
        return z.NEVER
      }
      if (d.ms < lo || d.ms > hi) {
        ctx.addIssue({
          code: 'custom',
          message: `expected a duration from ${min} to ${max}, got ${describeValue(v)}`,
          continue: true,
        })
      }
      return d
    })
}

/** A TCP port, 1-65535. */
export const port = boundedInteger(1, 65535, (input) => `expected integer 1-65535, got ${input}`)

/** A DNS name or an IP address. */
export const hostname = z
  .string()
  .min(1)
  .describe('A DNS name or an IP address, without scheme or port.')

/** An integer from `min` to `max`, with an error that says so. */
export function count(min: number, max: number) {
  return boundedInteger(
    min,
    max,
    (input) => `expected an integer from ${min} to ${max}, got ${input}`,
  )
}

/** An integer from `min` to `max`; every failure answered with `message(<what the input is>)`. */
function boundedInteger(min: number, max: number, message: (input: string) => string) {
  const error = (iss: { input?: unknown }) => message(describeValue(iss.input))
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error })
}
