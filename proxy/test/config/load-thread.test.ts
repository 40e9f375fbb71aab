/**
 * The configuration loaded on a worker thread (proxy/src/config/load-thread.ts) is the one the
 * main thread loads: the same values, `Duration`s revived, frozen, with a digest; the same
 * `ConfigError` (file, line, field, never the content); Kubernetes warnings located.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Duration } from '../../src/config/duration.js'
import { configDigest } from '../../src/config/load.js'
import { loadConfigSourcesOffThread } from '../../src/config/load-thread.js'
import { loadConfigSources } from '../../src/config/sources.js'
import { configWarnings } from '../../src/config/warnings.js'
import { ConfigError } from '../../src/errors.js'

function write(text: string, name = 'gatehouse.yaml'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gh-load-thread-')), name)
  writeFileSync(file, text)
  return file
}

const CONFIG = `config: { adminAddr: "off", drainTimeout: 3s }
gateways: { default: { port: 3000 } }
backends:
  b: { static: { host: 127.0.0.1, port: 9 }, timeouts: { response: 1m30s } }
routes:
  r:
    allowUnauthenticated: true
    rules:
      - matches: [{ path: { type: PathPrefix, value: /mcp } }]
        backendRefs: [{ name: b }]
`

describe('loadConfigSourcesOffThread', () => {
  it('loads what loadConfigSources loads: Durations revived, frozen, with the digest of the configuration', async () => {
    const file = write(CONFIG)
    const [here, there] = await Promise.all([
      loadConfigSources([file], { env: {} }),
      loadConfigSourcesOffThread([file], { env: {} }),
    ])
    // The same objects, prototypes included (a Duration is a Duration), key for key.
    expect(there.config).toStrictEqual(here.config)
    const timeout = there.config.backends.b?.timeouts.response
    expect(timeout).toBeInstanceOf(Duration)
    expect(timeout?.ms).toBe(90_000)
    expect(there.config.config.drainTimeout.ms).toBe(3000)
    expect(Object.isFrozen(there.config.routes.r?.rules)).toBe(true)
    expect(there.digest).toBe(configDigest(here.config))
    expect(there.inputs).toEqual(here.inputs)
    expect(there.format).toBe('standalone')
  })

  it('rejects with the ConfigError the main thread gives: file, line and field, never the content', async () => {
    const file = write(CONFIG.replace('port: 3000', 'port: "s3cr3t-value"'))
    const here = await loadConfigSources([file], { env: {} }).catch((e: unknown) => e)
    const there = await loadConfigSourcesOffThread([file], { env: {} }).catch((e: unknown) => e)
    expect(there).toBeInstanceOf(ConfigError)
    expect((there as ConfigError).message).toBe((here as ConfigError).message)
    expect((there as ConfigError).code).toBe('GW_ERR_CONFIG_INVALID')
    expect((there as ConfigError).message).toContain(`${file}: invalid configuration`)
    expect((there as ConfigError).message).toContain('gateways.default.port')
    expect((there as ConfigError).message).toContain('(line 2)')
    expect((there as ConfigError).message).not.toContain('s3cr3t')
  })

  it('rejects a file it cannot read as GW_ERR_CONFIG_READ', async () => {
    const err = await loadConfigSourcesOffThread(['/nonexistent/gatehouse.yaml']).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).code).toBe('GW_ERR_CONFIG_READ')
  })

  it('locates the warnings of Kubernetes resources as the main thread does, and other issues by translating again', async () => {
    const manifests = new URL('../../../examples/kubernetes/mcp-auth.yaml', import.meta.url)
      .pathname
    const here = await loadConfigSources([manifests], { env: {} })
    const there = await loadConfigSourcesOffThread([manifests], { env: {} })
    expect(there.format).toBe('kubernetes')
    expect(there.resources).toEqual(here.resources)
    const warnings = configWarnings(there.config)
    expect(warnings.map(there.locate)).toEqual(configWarnings(here.config).map(here.locate))
    // Made on the worker, so that logging them after a reload walks nothing on the main thread.
    expect(there.configWarnings).toEqual(configWarnings(here.config).map(here.locate))
    const policy = Object.keys(there.config.policies)[0] as string
    const issue = { path: `policies.${policy}.traffic`, message: 'a compile issue' }
    expect(there.locate(issue)).toEqual(here.locate(issue))
    expect(there.locate(issue).path).not.toBe(issue.path)
  })
})
