#!/usr/bin/env node
/**
 * Runs a script on a supported Node.js: the machine's own when it is 22 or newer, else the
 * repository's Node 22 package (`node_modules/node-lts-22`, the root optionalDependency that
 * ci/node-lts.ts describes), saying so once, in one line. `npm start`, `npm run test:unit` and the
 * installed commands (`<workspace>/bin/*.js`, through {@link relaunchOnSupportedNode}) go through
 * it, so a machine whose Node is 20 (end of life) runs the demo, the tests and `node:sqlite` on 22.
 *
 * `node:sqlite`'s ExperimentalWarning is not shown (`--disable-warning=ExperimentalWarning`, passed
 * down in NODE_OPTIONS so the processes the script starts inherit it); every other warning is.
 *
 *     node scripts/supported-node.mjs <script.ts|script.js> [arguments…]
 *
 * A `.ts` script runs through tsx (`--import tsx`). Plain JavaScript, no TypeScript: it runs before
 * anything is built.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The oldest Node.js major the repository supports (package.json `engines`). */
export const SUPPORTED_MAJOR = 22

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const QUIET = '--disable-warning=ExperimentalWarning'

/** The Node 22 binary of the repository, or undefined where npm skipped it (not Linux x64). */
export function bundledNode(root = ROOT) {
  const path = `${root}node_modules/node-lts-${SUPPORTED_MAJOR}/bin/node`
  return existsSync(path) ? path : undefined
}

/**
 * The binary to run on and the one line to say about it: this process's own Node when it is
 * supported, else the bundled one (or, where there is none — `bundled` empty — this one with a
 * warning).
 */
export function chooseNode(current = process.versions.node, bundled = bundledNode()) {
  const major = Number(current.split('.')[0])
  if (major >= SUPPORTED_MAJOR) return { path: process.execPath, note: undefined }
  if (bundled) {
    return {
      path: bundled,
      note: `Node ${current} is past its end of life: running on the repository's Node ${SUPPORTED_MAJOR} (node_modules/node-lts-${SUPPORTED_MAJOR})`,
    }
  }
  return {
    path: process.execPath,
    note: `Node ${current} is past its end of life and no Node ${SUPPORTED_MAJOR} package is installed here (it is Linux x64 only): install Node ${SUPPORTED_MAJOR} or 24`,
  }
}

/** NODE_OPTIONS with the ExperimentalWarning silenced (once). */
export function quietNodeOptions(options = process.env.NODE_OPTIONS ?? '') {
  return options.split(/\s+/).includes(QUIET) ? options : `${options} ${QUIET}`.trim()
}

/**
 * Runs `args` (a script and its arguments) on `node` with stdio inherited, passes SIGTERM, SIGHUP
 * (a reload for gatehouse) and, without a terminal, SIGINT on, and exits with the child's status.
 */
function runChild(node, args) {
  const child = spawn(node, args, {
    stdio: 'inherit',
    env: { ...process.env, NODE_OPTIONS: quietNodeOptions(), GATEHOUSE_NODE_CHOSEN: '1' },
  })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      // Ctrl-C in a terminal reaches the child itself (one foreground process group): passing it
      // on too would be a second SIGINT, which the demo takes as "exit at once".
      if (signal === 'SIGINT' && process.stdin.isTTY) return
      child.kill(signal)
    })
  }
  child.once('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal)
    else process.exit(code ?? 1)
  })
}

/**
 * For the installed commands: when this process runs on an unsupported Node and the repository's
 * Node 22 is here, runs `script` again on it and returns true (the caller then does nothing
 * more); else returns false and the command goes on in this process. A process started by
 * this module never relaunches (GATEHOUSE_NODE_CHOSEN).
 */
export function relaunchOnSupportedNode(script) {
  if (process.env.GATEHOUSE_NODE_CHOSEN) return false
  const { path, note } = chooseNode()
  if (path === process.execPath) {
    if (note) process.stderr.write(`${note}\n`)
    return false
  }
  process.stderr.write(`${note}\n`)
  runChild(path, [QUIET, fileURLToPath(script), ...process.argv.slice(2)])
  return true
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [script, ...rest] = process.argv.slice(2)
  if (!script) {
    process.stderr.write(
      'usage: node scripts/supported-node.mjs <script.ts|script.js> [arguments…]\n',
    )
    process.exit(2)
  }
  const { path, note } = chooseNode()
  if (note) process.stderr.write(`${note}\n`)
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : []
  runChild(path, [QUIET, ...loader, script, ...rest])
}
