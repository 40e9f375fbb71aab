#!/usr/bin/env node
import { run } from '../src/cli.js'

// Ctrl-C ends a waiting trace or profile cleanly instead of killing the process mid-write; a
// second one leaves at once. The listeners stay registered (`on`, not `once`): ink's signal-exit
// re-raises a signal when it finds itself the only listener, which would kill gwctl by signal
// and drop the exit code.
const abort = new AbortController()
const onSignal = (signal: NodeJS.Signals) => {
  if (abort.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143)
  abort.abort()
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)

const code = await run(process.argv.slice(2), { signal: abort.signal })
process.exitCode = code
// Stdout may be a pipe: let it drain, then leave even if a socket is still being closed.
process.stdout.write('', () => process.exit(code))
