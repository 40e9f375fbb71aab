#!/usr/bin/env node
import { run } from '../src/cli.js'

const code = await run(process.argv.slice(2))
// Let pino flush its asynchronous buffer before leaving.
setImmediate(() => process.exit(code))
