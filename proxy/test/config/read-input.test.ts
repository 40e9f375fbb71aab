import { execFileSync } from 'node:child_process'
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_CONFIG_BYTES, readConfigInputs } from '../../src/config/read-input.js'
import { ConfigError } from '../../src/errors.js'

const dir = () => mkdtempSync(join(tmpdir(), 'gatehouse-input-'))

async function refusal(paths: string[], maxBytes?: number): Promise<ConfigError> {
  try {
    await readConfigInputs(paths, maxBytes)
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('readConfigInputs', () => {
  it('reads a file and a directory of files, each with the -f path that named it', async () => {
    const d = dir()
    writeFileSync(join(d, 'a.yaml'), 'a: 1\n')
    writeFileSync(join(d, 'b.yml'), 'b: 2\n')
    const single = join(dir(), 'c.yaml')
    writeFileSync(single, 'c: 3\n')
    expect(await readConfigInputs([d, single])).toEqual([
      { path: d, file: join(d, 'a.yaml'), text: 'a: 1\n' },
      { path: d, file: join(d, 'b.yml'), text: 'b: 2\n' },
      { path: single, file: single, text: 'c: 3\n' },
    ])
  })

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = join(dir(), 'gatehouse.yaml')
    execFileSync('mkfifo', [fifo])
    const e = await refusal([fifo])
    expect(e.code).toBe('GW_ERR_CONFIG_READ')
    expect(e.message).toContain('not a regular file (a FIFO)')
  })

  it('refuses a FIFO inside a configuration directory', async () => {
    const d = dir()
    writeFileSync(join(d, 'a.yaml'), 'a: 1\n')
    execFileSync('mkfifo', [join(d, 'b.yaml')])
    expect((await refusal([d])).message).toContain(`${join(d, 'b.yaml')}: `)
  })

  it('refuses a character device such as /dev/urandom, also through a symlink', async () => {
    const link = join(dir(), 'gatehouse.yaml')
    symlinkSync('/dev/urandom', link)
    for (const path of ['/dev/urandom', link]) {
      const e = await refusal([path])
      expect(e.code).toBe('GW_ERR_CONFIG_READ')
      expect(e.message).toContain('not a regular file (a character device)')
    }
  })

  it('refuses a file larger than the limit before reading it, naming the limit', async () => {
    const file = join(dir(), 'big.yaml')
    writeFileSync(file, Buffer.alloc(MAX_CONFIG_BYTES + 1, 'a'))
    const e = await refusal([file])
    expect(e.code).toBe('GW_ERR_CONFIG_READ')
    expect(e.message).toContain(`larger than ${MAX_CONFIG_BYTES} bytes (8 MiB`)
  })

  it('counts every file of one load against one limit', async () => {
    const d = dir()
    writeFileSync(join(d, 'a.yaml'), 'x'.repeat(60))
    writeFileSync(join(d, 'b.yaml'), 'y'.repeat(60))
    expect(await readConfigInputs([d], 120)).toHaveLength(2)
    expect((await refusal([d], 100)).message).toContain(`${join(d, 'b.yaml')}: `)
  })

  it('cuts off a file whose size says 0 but that holds more than the limit (/proc)', async () => {
    const e = await refusal(['/proc/self/maps'], 16)
    expect(e.message).toContain('larger than 16 bytes')
  })

  it('says a missing file is not found', async () => {
    expect((await refusal([join(dir(), 'nope.yaml')])).message).toContain('file not found')
  })
})
