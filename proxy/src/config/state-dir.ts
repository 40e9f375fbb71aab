/**
 * The state directory of the `gatehouse` command: where a broker policy without a `store` block
 * keeps its SQLite file (docs/auth.md, "Where the broker keeps its state").
 */
import { statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The environment variable that names the state directory. */
export const STATE_DIR_ENV = 'GATEHOUSE_STATE_DIR'
/** The state directory's name beside the configuration when nothing else names one. */
export const DEFAULT_STATE_DIR_NAME = '.gatehouse'

/**
 * The state directory, absolute: `--state-dir`, else `$GATEHOUSE_STATE_DIR`, else `.gatehouse`
 * beside the first `-f` path (in it when that path is a directory of manifests). Relative paths
 * are taken from the working directory.
 */
export function stateDirOf(
  files: readonly string[],
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (flag) return resolve(flag)
  const fromEnv = env[STATE_DIR_ENV]
  if (fromEnv) return resolve(fromEnv)
  const first = resolve(files[0] ?? '.')
  return join(isDirectory(first) ? first : dirname(first), DEFAULT_STATE_DIR_NAME)
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
