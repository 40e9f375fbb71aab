/** tmux for gwctl's terminal-UI tests. `npm run setup:test-tools` installs it where it can. */
import { existsSync } from 'node:fs'

/** Where the tests look for tmux: `TMUX_PATH`, else `/usr/bin/tmux`. */
export function tmuxPath(): string {
  return process.env.TMUX_PATH ?? '/usr/bin/tmux'
}

/** Whether a tmux binary is where {@link tmuxPath} says. */
export function hasTmux(): boolean {
  return existsSync(tmuxPath())
}
