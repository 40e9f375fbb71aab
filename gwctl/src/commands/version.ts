/** `gwctl version`: the version of gwctl itself. */
import { Command } from 'commander'
import pkg from '../../package.json' with { type: 'json' }
import { write } from '../io.js'
import type { Action } from './context.js'

/** gwctl's version, from its package.json (inlined by the build, wherever the bundle lies). */
export const GWCTL_VERSION: string = pkg.version

/** Builds `version`; `setAction` receives the action to run. */
export function versionCommand(setAction: (a: Action) => void): Command {
  return new Command('version').description('Print the gwctl version').action(() => {
    setAction(async (io) => {
      await write(io.stdout, `gwctl ${GWCTL_VERSION} (node ${process.version})\n`)
      return 0
    })
  })
}
