/** @jsxRuntime automatic */
/** @jsxImportSource react */
/**
 * The terminal UI of `gwctl proxy trace`: a timeline of one request's events with the time since
 * the request started, then its status. A pure function of its props, so the command re-renders
 * it as events arrive and tests render it with ink-testing-library from recorded events.
 *
 * The pragmas above pin the automatic JSX runtime in the file itself: tsx reads the tsconfig of
 * the current directory, and gwctl runs from any directory (a temp dir without one would fall
 * back to the classic `React.createElement` transform and fail with "React is not defined").
 */
import { Box, Text } from 'ink'
import { describeEvent } from './describe.js'
import { FINAL_EVENT, type TraceEvent } from './events.js'
import { printable } from './printable.js'

/** Props of {@link TraceView}. */
export interface TraceViewProps {
  /** The admin address, as shown in the header. */
  admin: string
  /** The `--path` filter, if any. */
  pathPrefix?: string | undefined
  /** Whether the view keeps following requests (`--follow`). */
  follow: boolean
  /** Traced requests, oldest first; the last one may still be running. */
  requests: readonly TraceEvent[][]
  /** True while waiting for the next request to start. */
  waiting: boolean
  /** False until the admin interface accepted the trace stream. */
  connected: boolean
  /** Show the title line. Default true; off for the plain-text output to a file or pipe. */
  header?: boolean
}

/** The whole screen: header, earlier requests as one line each, the current one in full. */
export function TraceView(props: TraceViewProps) {
  const { requests } = props
  const current = requests.at(-1)
  const earlier = requests.slice(0, -1)
  return (
    <Box flexDirection="column">
      {props.header === false ? null : (
        <Text>
          <Text bold>gwctl trace</Text>
          <Text dimColor>
            {' '}
            admin {printable(props.admin)}
            {props.pathPrefix ? ` · path ${printable(props.pathPrefix)}` : ''}
            {props.follow ? ' · following' : ''}
          </Text>
        </Text>
      )}
      {earlier.map((events) => (
        <Summary key={events[0]?.requestId ?? ''} events={events} />
      ))}
      {current && !props.waiting ? <Timeline events={current} /> : null}
      {current && props.waiting ? <Summary events={current} /> : null}
      {props.waiting && !props.connected ? (
        <Text color="yellow">Connecting to the admin interface…</Text>
      ) : null}
      {props.waiting && props.connected ? (
        <Text color="yellow">
          Waiting for the next request{props.pathPrefix ? ` under ${props.pathPrefix}` : ''}…
          (Ctrl-C to stop)
        </Text>
      ) : null}
    </Box>
  )
}

/** The request's method and path (or id), {@link printable}: they come from the client. */
function requestLine(events: readonly TraceEvent[]): string {
  const start = events.find((e) => e.type === 'request_started')?.data
  return printable(
    start ? `${String(start.method)} ${String(start.path)}` : (events[0]?.requestId ?? ''),
  )
}

function requestIdOf(events: readonly TraceEvent[]): string {
  return printable(events[0]?.requestId ?? '')
}

function finalStatus(events: readonly TraceEvent[]): { status: number; ms: number } | undefined {
  const fin = events.find((e) => e.type === FINAL_EVENT)
  if (!fin) return undefined
  const status = typeof fin.data.status === 'number' ? fin.data.status : 0
  const ms = typeof fin.data.durationMs === 'number' ? fin.data.durationMs : fin.elapsedMs
  return { status, ms }
}

function StatusText({ events }: { events: readonly TraceEvent[] }) {
  const fin = finalStatus(events)
  if (!fin) return <Text color="yellow">in progress</Text>
  return (
    <Text color={fin.status >= 400 || fin.status === 0 ? 'red' : 'green'}>
      status {fin.status} in {formatMs(fin.ms)}
    </Text>
  )
}

function Summary({ events }: { events: readonly TraceEvent[] }) {
  return (
    <Text>
      <Text dimColor>{requestIdOf(events)} </Text>
      {requestLine(events)} <StatusText events={events} />
    </Text>
  )
}

// The longest label ("backend response") plus two spaces, so the detail column stays apart.
const LABEL_WIDTH = 18
const TIME_WIDTH = 12

function Timeline({ events }: { events: readonly TraceEvent[] }) {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        <Text dimColor>{requestIdOf(events)} </Text>
        <Text bold>{requestLine(events)}</Text> <StatusText events={events} />
      </Text>
      {events.map((e) => {
        const d = describeEvent(e)
        return (
          <Box key={e.seq} flexDirection="column">
            <Text>
              <Text dimColor>{`+${formatMs(e.elapsedMs)}`.padStart(TIME_WIDTH)} </Text>
              <Text bold color={d.failed ? 'red' : 'cyan'}>
                {d.label.padEnd(LABEL_WIDTH)}
              </Text>
              <Text color={d.failed ? 'red' : undefined}>{d.detail}</Text>
            </Text>
            {d.lines.map((l, i) => (
              // Lines of one event are positional (rule order), so the index is their identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: rules have no other identity
              <Text key={i}>
                {' '.repeat(TIME_WIDTH + 1 + LABEL_WIDTH)}
                <Text color={l.ok === false ? 'red' : l.ok === true ? 'green' : undefined}>
                  {l.ok === false ? '✗' : l.ok === true ? '✓' : '·'} {l.text}
                </Text>
              </Text>
            ))}
          </Box>
        )
      })}
    </Box>
  )
}

/** `12.345 ms` with three decimals, the resolution of the proxy's timer. */
export function formatMs(ms: number): string {
  return `${ms.toFixed(3)} ms`
}
