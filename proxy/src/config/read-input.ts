/**
 * Reading what `gatehouse -f` names, bounded in type and size before anything is parsed
 * (docs/configuration.md, "Input limits"; docs/reliability.md, "Configuration input"):
 *
 * - Regular files only. A path to a FIFO, a character device (`/dev/urandom`, `/dev/zero`), a
 *   socket or anything else that is not a regular file is refused at once with what it is: it is
 *   opened non-blocking (opening a FIFO for reading otherwise waits for a writer, and a reload
 *   that waits holds every later reload behind it) and checked on the open descriptor, so a path
 *   swapped between a check and the read cannot slip a device in.
 * - At most {@link MAX_CONFIG_BYTES} for all the files of one load together, checked against the
 *   file's size before reading and again while reading (a file that grows, a `/proc` file that
 *   reports size 0), so a 50 MB manifest costs a `stat`, not a parse.
 *
 * What was read is kept ({@link ConfigInput}) so that the cluster primary can hand the exact
 * configuration it accepted to a worker that starts later, instead of the worker reading the
 * files again (`../cluster/primary.ts`).
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { ConfigError } from '../errors.js'
import { sourceFiles } from './kubernetes/documents.js'

/**
 * The most configuration one load reads, all files together: 8 MiB. About 40,000 routes in the
 * standalone form; the largest configuration the proxy compiles without stalling requests is far
 * below it (bench/RESULTS.md, "bench:scale").
 */
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024

/** One file that was read, and the `-f` path that named it. */
export interface ConfigInput {
  /** The path as given to `-f` (a file or a directory). */
  path: string
  /** The file read (the path itself, or a file of the directory). */
  file: string
  text: string
}

/**
 * Reads every file `paths` stand for (a directory's YAML and JSON files in name order), at most
 * `maxBytes` in all. Throws {@link ConfigError} `GW_ERR_CONFIG_READ` naming the file and what is
 * wrong with it; never any of its content.
 */
export async function readConfigInputs(
  paths: readonly string[],
  maxBytes = MAX_CONFIG_BYTES,
): Promise<ConfigInput[]> {
  const budget = { remaining: maxBytes, max: maxBytes }
  const out: ConfigInput[] = []
  for (const path of paths) {
    for (const file of await sourceFiles(path)) {
      out.push({ path, file, text: await readBounded(file, budget) })
    }
  }
  return out
}

interface Budget {
  remaining: number
  readonly max: number
}

async function readBounded(file: string, budget: Budget): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code
    const reason = code === 'ENOENT' ? 'file not found' : `cannot open it (${code ?? 'error'})`
    throw readError(file, `cannot read the configuration file: ${reason}`, cause)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) {
      throw readError(
        file,
        `not a regular file (${kindOf(info)}): give the path of a configuration file or a directory of them`,
      )
    }
    if (info.size > budget.remaining) throw tooLarge(file, budget)
    // Read in chunks up to the budget: a file that grew since `stat`, or reports size 0 (`/proc`),
    // is still cut off at the limit.
    const chunks: Buffer[] = []
    let length = 0
    for (;;) {
      const chunk = Buffer.alloc(Math.min(Math.max(info.size, 64 * 1024), budget.remaining + 1))
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null)
      if (bytesRead === 0) break
      length += bytesRead
      if (length > budget.remaining) throw tooLarge(file, budget)
      chunks.push(chunk.subarray(0, bytesRead))
    }
    budget.remaining -= length
    return Buffer.concat(chunks, length).toString('utf8')
  } finally {
    await handle.close()
  }
}

function kindOf(info: {
  isFIFO(): boolean
  isCharacterDevice(): boolean
  isBlockDevice(): boolean
  isSocket(): boolean
  isDirectory(): boolean
}): string {
  if (info.isFIFO()) return 'a FIFO'
  if (info.isCharacterDevice()) return 'a character device'
  if (info.isBlockDevice()) return 'a block device'
  if (info.isSocket()) return 'a socket'
  if (info.isDirectory()) return 'a directory'
  return 'not a file'
}

function tooLarge(file: string, budget: Budget): ConfigError {
  return readError(
    file,
    `the configuration is larger than ${budget.max} bytes (${budget.max / 1024 / 1024} MiB, all -f files together); it is refused before parsing (docs/configuration.md, "Input limits")`,
  )
}

function readError(file: string, message: string, cause?: unknown): ConfigError {
  return new ConfigError(
    'GW_ERR_CONFIG_READ',
    [{ path: '', message }],
    file,
    cause ? { cause } : undefined,
  )
}
