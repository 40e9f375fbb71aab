/** `gwctl version`: the version of gwctl itself. */
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { write } from '../io.js'
import type { Action } from './context.js'

/** gwctl's version, from its package.json. */
export const GWCTL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
).version

/** Builds `version`; `setAction` receives the action to run. */
export function versionCommand(setAction: (a: Action) => void): Command {
  return new Command('version').description('Print the gwctl version').action(() => {
    setAction(async (io) => {
      await write(io.stdout, `gwctl ${GWCTL_VERSION} (node ${process.version})\n`)
      return 0
    })
  })
}
