#!/usr/bin/env node
import { run } from '../src/cli.js'

// Ctrl-C ends a waiting trace or profile cleanly instead of killing the process mid-write.
const abort = new AbortController()
process.once('SIGINT', () => abort.abort())
process.once('SIGTERM', () => abort.abort())

const code = await run(process.argv.slice(2), { signal: abort.signal })
process.exitCode = code
// Stdout may be a pipe: let it drain, then leave even if a socket is still being closed.
process.stdout.write('', () => process.exit(code))
