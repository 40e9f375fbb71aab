import { mkdtemp, readdir, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { Profile, StringTable, ValueType } from 'pprof-format'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type LiveGatehouse,
  runGwctl,
  spawnGwctl,
  startLiveGatehouse,
  startScriptedAdmin,
} from '../helpers.js'

const tempDir = () => mkdtemp(join(tmpdir(), 'gwctl-profile-'))

function decode(buf: Buffer): Profile {
  return Profile.decode(gunzipSync(buf))
}

function sampleTypes(p: Profile): string[] {
  return p.sampleType.map(
    (t) => `${p.stringTable.strings[Number(t.type)]}/${p.stringTable.strings[Number(t.unit)]}`,
  )
}

describe('gwctl proxy profile against a running gatehouse', () => {
  let live: LiveGatehouse
  beforeAll(async () => {
    live = await startLiveGatehouse()
  })
  afterAll(async () => {
    await live.close()
  })

  it('writes a CPU profile with the default name in the cwd and prints one line', async () => {
    const cwd = await tempDir()
    const r = await runGwctl(
      ['-p', live.adminPort, 'proxy', 'profile', 'cpu', '--local', '--seconds', '1'],
      {
        cwd,
      },
    )
    expect(r.code).toBe(0)
    const files = await readdir(cwd)
    expect(files).toHaveLength(1)
    const name = files[0] ?? ''
    expect(name).toMatch(/^gatehouse-cpu-\d{8}T\d{6}Z\.pb\.gz$/)
    const bytes = await readFile(join(cwd, name))
    expect(r.stdout).toBe(`wrote CPU profile to ${join(cwd, name)} (${bytes.length} bytes, 1s)\n`)
    const profile = decode(bytes)
    expect(sampleTypes(profile)).toContain('cpu/nanoseconds')
  })

  it('writes a heap profile with the default name in the cwd', async () => {
    const cwd = await tempDir()
    const r = await runGwctl(['--admin', live.admin, 'proxy', 'profile', 'heap', '--local'], {
      cwd,
    })
    expect(r.code).toBe(0)
    const files = await readdir(cwd)
    expect(files).toHaveLength(1)
    const name = files[0] ?? ''
    expect(name).toMatch(/^gatehouse-heap-\d{8}T\d{6}Z\.pb\.gz$/)
    const bytes = await readFile(join(cwd, name))
    expect(r.stdout).toBe(`wrote heap profile to ${join(cwd, name)} (${bytes.length} bytes)\n`)
    expect(sampleTypes(decode(bytes)).length).toBeGreaterThan(0)
  })

  it('writes to -o relative to the cwd', async () => {
    const cwd = await tempDir()
    const r = await runGwctl(
      ['-p', live.adminPort, 'proxy', 'profile', 'heap', '-o', 'heap.pb.gz'],
      { cwd },
    )
    expect(r.code).toBe(0)
    expect(await readdir(cwd)).toEqual(['heap.pb.gz'])
    expect(r.stdout).toMatch(
      new RegExp(`^wrote heap profile to ${join(cwd, 'heap.pb.gz')} \\(\\d+ bytes\\)\\n$`),
    )
    decode(await readFile(join(cwd, 'heap.pb.gz')))
  })

  it('says it cannot write into a missing directory, exits 1 and leaves no partial file', async () => {
    const cwd = await tempDir()
    const r = await runGwctl(
      ['-p', live.adminPort, 'proxy', 'profile', 'heap', '-o', 'missing/heap.pb.gz'],
      {
        cwd,
      },
    )
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      new RegExp(`^gwctl: cannot write ${join(cwd, 'missing/heap.pb.gz')}: ENOENT`),
    )
    expect(await readdir(cwd)).toEqual([])
  })
})

/** A small valid CPU profile, as a scripted admin serves it. */
function cpuProfileBytes(): Buffer {
  const strings = new StringTable()
  const profile = new Profile({
    sampleType: [new ValueType({ type: strings.dedup('cpu'), unit: strings.dedup('nanoseconds') })],
    stringTable: strings,
  })
  return gzipSync(profile.encode())
}

describe('gwctl proxy profile cpu parameters and failures', () => {
  it('asks for 30 seconds by default and never sends a frequency', async () => {
    const queries: string[] = []
    const admin = await startScriptedAdmin({
      '/debug/pprof/profile': (req, res) => {
        queries.push(new URL(req.url ?? '/', 'http://x').search)
        res.writeHead(200, { 'content-type': 'application/octet-stream' })
        res.end(cpuProfileBytes())
      },
    })
    try {
      const cwd = await tempDir()
      const r = await runGwctl(
        ['--admin', admin.admin, 'proxy', 'profile', 'cpu', '--local', '-o', 'cpu.pb.gz'],
        {
          cwd,
        },
      )
      expect(r.code).toBe(0)
      expect(queries).toEqual(['?seconds=30'])
      expect(r.stdout).toMatch(/ bytes, 30s\)\n$/)
      expect(sampleTypes(decode(await readFile(join(cwd, 'cpu.pb.gz'))))).toEqual([
        'cpu/nanoseconds',
      ])
    } finally {
      await admin.close()
    }
  })

  it('explains that CPU profiling exists on Linux builds only on a 404, exits 1 and writes nothing', async () => {
    const admin = await startScriptedAdmin({})
    try {
      const cwd = await tempDir()
      const r = await runGwctl(
        ['--admin', admin.admin, 'proxy', 'profile', 'cpu', '--seconds', '1'],
        { cwd },
      )
      expect(r.code).toBe(1)
      expect(r.stderr).toBe(
        `gwctl: the admin interface at ${admin.admin} answered 404 to /debug/pprof/profile: CPU profiling exists on Linux builds of gatehouse only. A heap profile (gwctl proxy profile heap) works everywhere.\n`,
      )
      expect(await readdir(cwd)).toEqual([])
    } finally {
      await admin.close()
    }
  })

  it('quotes any other refusal, such as a profile already running', async () => {
    const admin = await startScriptedAdmin({
      '/debug/pprof/profile': (_req, res) => {
        res.writeHead(409, { 'content-type': 'text/plain' })
        res.end('a CPU profile is already running; retry when it has finished\n')
      },
    })
    try {
      const r = await runGwctl(
        ['--admin', admin.admin, 'proxy', 'profile', 'cpu', '--seconds', '5'],
        {
          cwd: await tempDir(),
        },
      )
      expect(r.code).toBe(1)
      expect(r.stderr).toBe(
        `gwctl: the admin interface at ${admin.admin} answered 409 to /debug/pprof/profile: a CPU profile is already running; retry when it has finished\n`,
      )
    } finally {
      await admin.close()
    }
  })

  it('stops on Ctrl-C while the profile records: exit 130 and no file', async () => {
    let arrived!: () => void
    const requested = new Promise<void>((r) => (arrived = r))
    // Holds the request like a real profile of --seconds would, and never answers.
    const admin = await startScriptedAdmin({
      '/debug/pprof/profile': () => arrived(),
    })
    try {
      const cwd = await tempDir()
      const gw = spawnGwctl(
        ['--admin', admin.admin, 'proxy', 'profile', 'cpu', '--seconds', '60'],
        {
          cwd,
        },
      )
      await requested
      gw.child.kill('SIGINT')
      const r = await gw.done
      expect(r.code).toBe(130)
      expect(r.stderr).toMatch(
        /^gwctl: interrupted: .*gatehouse-cpu-\d{8}T\d{6}Z\.pb\.gz not written\n$/,
      )
      expect(await readdir(cwd)).toEqual([])
    } finally {
      await admin.close()
    }
  })

  it.each(['0', '301', '1.5', 'ten'])('exits 2 for --seconds %s', async (seconds) => {
    const r = await runGwctl(['proxy', 'profile', 'cpu', '--seconds', seconds])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      `option '--seconds <n>' argument '${seconds}' is invalid. expected whole seconds from 1 to 300.`,
    )
  })

  it('has no --frequency flag', async () => {
    const r = await runGwctl(['proxy', 'profile', 'cpu', '--frequency', '500'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("error: unknown option '--frequency'")
  })
})
