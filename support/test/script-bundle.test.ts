import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { runProcess } from '../src/process.js'
import { fastCommand, scriptBundle } from '../src/script-bundle.js'

/** A package with an entry that imports a module of its own and a package of the repository. */
const pkg = mkdtempSync(join(tmpdir(), 'gatehouse-script-bundle-'))
mkdirSync(join(pkg, 'bin'))
writeFileSync(join(pkg, 'package.json'), '{"type":"module"}\n')
writeFileSync(
  join(pkg, 'bin/lib.ts'),
  'export const libUrl: string = import.meta.url\nexport const libDir: string = import.meta.dirname\n',
)
writeFileSync(
  join(pkg, 'bin/entry.ts'),
  [
    "import { libDir, libUrl } from './lib.ts'",
    // A package left to Node: resolved from the entry's workspace at run time.
    "import { parse } from 'yaml'",
    'const out: Record<string, unknown> = { entry: import.meta.url, libUrl, libDir, yaml: parse("a: 1"), args: process.argv.slice(2) }',
    'console.log(JSON.stringify(out))',
    '',
  ].join('\n'),
)
// The package's own node_modules: where the bundle goes, and where `yaml` is found from it.
mkdirSync(join(pkg, 'node_modules'))
symlinkSync(join(process.cwd(), 'node_modules/yaml'), join(pkg, 'node_modules/yaml'))

afterAll(() => rmSync(pkg, { recursive: true, force: true }))

describe('scriptBundle', () => {
  it('runs what tsx runs: each module keeps its own import.meta, packages load from node_modules', async () => {
    const file = await scriptBundle(join(pkg, 'bin/entry.ts'))
    expect(file.startsWith(join(pkg, 'node_modules/.cache/gatehouse-scripts/bin-entry-'))).toBe(
      true,
    )
    const r = await runProcess('node', [file, 'a', 'b c'])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      entry: pathToFileURL(join(pkg, 'bin/entry.ts')).href,
      libUrl: pathToFileURL(join(pkg, 'bin/lib.ts')).href,
      libDir: join(pkg, 'bin'),
      yaml: { a: 1 },
      args: ['a', 'b c'],
    })
  })

  it('builds once per process, and names the file by its content: an edit gives a new file', async () => {
    const entry = join(pkg, 'bin/entry.ts')
    const first = await scriptBundle(entry)
    expect(await scriptBundle(entry)).toBe(first)
    writeFileSync(join(pkg, 'bin/other.ts'), 'console.log("one")\n')
    const other = await scriptBundle(join(pkg, 'bin/other.ts'))
    expect(other).not.toBe(first)
    expect((await runProcess('node', [other])).stdout).toBe('one\n')
  })

  it('rejects an entry outside any npm package, saying so', async () => {
    await expect(scriptBundle('/no-such-dir/entry.ts')).rejects.toThrow(/in no npm package/)
  })
})

describe('fastCommand', () => {
  it('replaces a leading tsx <file>.ts with node <bundle>, keeping the arguments', async () => {
    const command = await fastCommand('node_modules/.bin/tsx bin/entry.ts --fault x', pkg)
    expect(command).toBe(`node ${await scriptBundle(join(pkg, 'bin/entry.ts'))} --fault x`)
    const r = await runProcess('sh', ['-c', command])
    expect(JSON.parse(r.stdout).args).toEqual(['--fault', 'x'])
  })

  it('leaves any other command as it is', async () => {
    for (const command of ['node x.js', 'npx mcp-remote', 'tsx', 'FOO=1 tsx a.ts', 'tsx a.tsx']) {
      expect(await fastCommand(command, pkg)).toBe(command)
    }
  })
})
