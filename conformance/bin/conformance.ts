#!/usr/bin/env node
/**
 * `gatehouse-conformance [options]` (`npm run conformance [-- options]` in a checkout): judges an
 * MCP-auth gateway against the requirements catalogue. Without `--target`, starts the embedded
 * stack (mock-idp, mcp-backend and the reference proxy) and judges it. Exit 0 when no MUST failed,
 * 1 otherwise, 2 on bad usage or when the run cannot start (said in one line, no stack trace).
 * `gatehouse-conformance client --command "<cmd>"` judges an MCP client (src/client/cli.ts);
 * `gatehouse-conformance sample-client <url>` is the example client (src/client/examples/).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { createInterface } from 'node:readline/promises'
import { rootCertificates } from 'node:tls'
import { controlClient } from '@gatehouse/mock-idp'
import { Command, InvalidArgumentError, Option } from 'commander'
import { announcedRevisions } from '../src/announced.js'
import { HELP_AFTER, VERSION } from '../src/cli-help.js'
import { commaList } from '../src/cli-options.js'
import { selectProfiles, TARGET_PROFILES } from '../src/profiles.js'
import { serverHtmlReport } from '../src/report/html/server.js'
import { consoleReport, jsonReport, junitReport } from '../src/report.js'
import { parseBaseline, runChecks, summarize } from '../src/runner.js'
import {
  parseSpecVersion,
  SELECTABLE_REVISIONS,
  type SpecRevision,
  selectSpecVersions,
} from '../src/spec-version.js'
import { startFixtures, startGateway } from '../src/stack.js'
import {
  opaqueTargetOf,
  startTargetCommand,
  type TargetOptions,
  targetSetupText,
} from '../src/target.js'
import { PROFILES, type Requirement, type Result, type Target } from '../src/types.js'

const url = (v: string) => {
  if (!URL.canParse(v))
    throw new InvalidArgumentError(`expected a URL such as http://127.0.0.1:3000, got "${v}"`)
  return v.replace(/\/$/, '')
}

// `conformance client …` judges an MCP client instead of a gateway (conformance/src/client/).
const positiveInt = (v: string) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n <= 0 || n > 65535 * 1000)
    throw new InvalidArgumentError(`expected a positive integer, got "${v}"`)
  return n
}

/** Says what went wrong in one line and exits 2: a run that cannot start shows no stack trace. */
function cannotRun(err: unknown): never {
  process.stderr.write(`gatehouse-conformance: ${(err as Error)?.message ?? String(err)}\n`)
  process.exit(2)
}

if (process.argv[2] === 'client') {
  await (await import('../src/client/cli.js')).clientMain(process.argv.slice(3)).catch(cannotRun)
}
if (process.argv[2] === 'sample-client') {
  // Runs, reading the server URL from its last argument, and exits.
  await import('../src/client/examples/sdk-client.js')
}

const program = new Command()
  .name('gatehouse-conformance')
  .description(
    'Judge an MCP server or gateway (this command) or an MCP client (`client --command`) against the Gatehouse requirements catalogue.',
  )
  .version(VERSION, '-V, --version', 'print the version and exit')
  .option(
    '--target <base_url>',
    'judge an external gateway at this base URL (default: the embedded reference proxy)',
    url,
  )
  .option(
    '--configured-base <url>',
    'with --target: the base of mcp.resourceMetadata.resource, if it differs',
    url,
  )
  .option(
    '--admin <admin_url>',
    'with --target: its admin interface (enables the admin profile)',
    url,
  )
  .option(
    '--ca <pem_file>',
    'with an https --target: the CA certificates (PEM) its certificate chains to, for the tls profile (default: the system CAs)',
  )
  .option(
    '--proxied-target <base_url>',
    'with --target: a gateway/route whose policy has no clientId',
    url,
  )
  .option(
    '--scoped-target <base_url>',
    'with --target: a gateway/route whose policy requires the scope mcp:tools',
    url,
  )
  .option(
    '--broker-target <base_url>',
    'with --target: a gateway/route in broker mode, on loopback (profile broker)',
    url,
  )
  .option(
    '--opaque-target <base_url>',
    "with --target: a gateway/route that accepts opaque tokens by introspection at the suite's IdP (OPQ-*; the setup text names its endpoint and client)",
    url,
  )
  .option(
    '--broken-path <prefix>',
    'with --target: a path prefix whose policy has a wrong jwksPath',
  )
  .option(
    '--allow-shutdown',
    'with --target: let the suite call /quitquitquit (it stops the target)',
    false,
  )
  .option(
    '-y, --yes',
    'with --target: run at once after printing the configuration, without asking (no terminal needed)',
    false,
  )
  .option('--no-wait', 'with --target: the same as --yes')
  .option(
    '--target-command <command>',
    'with --target: start the target with this shell command (GATEHOUSE_CONFORMANCE_ISSUER, _JWKS_URI, _AUDIENCE, _RESOURCE, _PORT, _BACKEND_URL, _ALLOWED_ORIGIN and _CONFIG, a gatehouse YAML, in its environment), wait until it answers, stop it at the end',
  )
  .option(
    '--target-timeout <ms>',
    'with --target-command: how long to wait for the target to answer',
    (v) => positiveInt(v),
    60_000,
  )
  .option('--idp-port <port>', "run the suite's mock-idp on this port (default: a free one)", (v) =>
    positiveInt(v),
  )
  .option(
    '--backend-port <port>',
    "run the suite's mcp-backend on this port (default: a free one)",
    (v) => positiveInt(v),
  )
  .addOption(
    new Option(
      '--config-format <format>',
      'without --target: how the embedded reference proxy is configured: its standalone YAML or the same as Kubernetes manifests',
    )
      .choices(['standalone', 'kubernetes'])
      .default('standalone'),
  )
  .addOption(
    new Option(
      '--profile <names>',
      `profiles to judge: ${TARGET_PROFILES.join(', ')} (or the catalogue's ${PROFILES.join(', ')}); default: every profile for the embedded proxy, resource-server for --target`,
    ).argParser(commaList),
  )
  .option(
    '--spec-version <revisions>',
    `MCP revisions to judge: ${SELECTABLE_REVISIONS.join(', ')} (comma-separated or repeated); default: the latest final revision plus what the target announces (server/discover, initialize)`,
    (v: string, previous?: SpecRevision[]) => {
      try {
        return parseSpecVersion(v, previous)
      } catch (err) {
        throw new InvalidArgumentError((err as Error).message)
      }
    },
  )
  .option('--only <ids>', 'run only these requirement IDs', commaList)
  .option('--skip <ids>', 'skip these requirement IDs', commaList)
  .option(
    '--print-config',
    'with --target: print the gatehouse YAML and Kubernetes manifests the checks assume, even for the resource-server profile alone',
    false,
  )
  .option('--baseline <file>', 'expected failures: one requirement ID per line')
  .option('--junit <file>', 'write a JUnit XML report')
  .option('--json <file>', 'write a JSON report')
  .addHelpText('after', HELP_AFTER)
  .option('--html <file>', 'write an HTML report (one self-contained page)')
  .showHelpAfterError()

program.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
program.parse()
const opts = program.opts<{
  target?: string
  configuredBase?: string
  admin?: string
  ca?: string
  proxiedTarget?: string
  scopedTarget?: string
  brokerTarget?: string
  opaqueTarget?: string
  brokenPath?: string
  allowShutdown: boolean
  yes: boolean
  wait: boolean
  configFormat: 'standalone' | 'kubernetes'
  printConfig: boolean
  targetCommand?: string
  targetTimeout: number
  idpPort?: number
  backendPort?: number
  profile?: string[]
  specVersion?: SpecRevision[]
  only?: string[]
  skip?: string[]
  baseline?: string
  junit?: string
  json?: string
  html?: string
}>()

// A foreign target is judged as a resource server unless it claims more (docs/peers.md, item 7).
const profileNames = opts.profile ?? (opts.target && !opts.only ? ['resource-server'] : undefined)
let select: ((r: Requirement) => boolean) | undefined
try {
  select = profileNames ? selectProfiles(profileNames) : undefined
} catch (err) {
  process.stderr.write(`gatehouse-conformance: ${(err as Error).message}\n`)
  process.exit(2)
}
let baseline: Set<string> | undefined
if (opts.baseline) {
  try {
    baseline = parseBaseline(readFileSync(opts.baseline, 'utf8'))
  } catch (err) {
    process.stderr.write(
      `gatehouse-conformance: cannot read the baseline ${opts.baseline}: ${(err as Error).message}\n`,
    )
    process.exit(2)
  }
}

const started = performance.now()
const fixtures = await startFixtures({
  ...(opts.idpPort ? { idp: opts.idpPort } : {}),
  ...(opts.backendPort ? { backend: opts.backendPort } : {}),
}).catch(cannotRun)
let results: Result[] = []
let title: string
let targetInfo: Record<string, unknown>
try {
  let stop: (() => Promise<void>) | undefined
  let target: Target
  if (opts.target) {
    const configuredBase = opts.configuredBase ?? opts.target
    const targetOptions: TargetOptions = {
      target: opts.target,
      configuredBase,
      ...(opts.admin ? { admin: opts.admin } : {}),
      ...(opts.proxiedTarget ? { proxiedTarget: opts.proxiedTarget } : {}),
      ...(opts.scopedTarget ? { scopedTarget: opts.scopedTarget } : {}),
      ...(opts.brokerTarget ? { brokerTarget: opts.brokerTarget } : {}),
      ...(opts.opaqueTarget ? { opaqueTarget: opts.opaqueTarget } : {}),
      ...(opts.brokenPath ? { brokenPath: opts.brokenPath } : {}),
    }
    // A plain resource server needs the IdP's coordinates only, not a gateway's YAML.
    const resourceServerOnly = profileNames?.length === 1 && profileNames[0] === 'resource-server'
    process.stdout.write(
      targetSetupText(fixtures, targetOptions, opts.printConfig || !resourceServerOnly),
    )
    if (opts.targetCommand) {
      try {
        const started = await startTargetCommand(
          opts.targetCommand,
          fixtures,
          targetOptions,
          opts.targetTimeout,
        )
        stop = started.stop
      } catch (err) {
        process.stderr.write(`gatehouse-conformance: ${(err as Error).message}\n`)
        await fixtures.stop()
        process.exit(2)
      }
    } else if (opts.wait && !opts.yes) {
      if (!process.stdin.isTTY) {
        process.stderr.write(
          'gatehouse-conformance: stdin is not a terminal, so the suite cannot wait for Enter while you configure the target; pass --yes to run at once, or --target-command to start it\n',
        )
        await fixtures.stop()
        process.exit(2)
      }
      const rl = createInterface({ input: process.stdin, output: process.stdout })
      await rl.question('Press Enter when the target is configured… ')
      rl.close()
    }
    target = {
      base: opts.target,
      configuredBase,
      ...(opts.proxiedTarget ? { proxiedBase: opts.proxiedTarget } : {}),
      ...(opts.scopedTarget ? { scopedBase: opts.scopedTarget } : {}),
      ...(opts.brokerTarget
        ? { brokerBase: opts.brokerTarget, brokerConfiguredBase: opts.brokerTarget }
        : {}),
      ...(opts.opaqueTarget ? { opaque: opaqueTargetOf(fixtures, opts.opaqueTarget) } : {}),
      ...(opts.brokenPath ? { brokenPath: opts.brokenPath } : {}),
      ...(opts.admin ? { admin: opts.admin } : {}),
      ...(opts.target.startsWith('https:') ? { tls: httpsTarget(opts.target, opts.ca) } : {}),
      idp: {
        issuer: fixtures.idp.issuer,
        audience: fixtures.idp.audience,
        orgUrl: fixtures.idp.orgUrl,
        publicClientId: fixtures.idp.publicClientId,
        control: controlClient(fixtures.idp.controlUrl),
      },
      backendOrigin: fixtures.backend.origin,
      secrets: [],
      allowShutdown: opts.allowShutdown,
    }
    title = `target ${opts.target}, profile ${profileNames?.join(', ') ?? '(by --only)'}`
  } else {
    const gateway = await startGateway(fixtures, { configFormat: opts.configFormat })
    target = gateway.target
    stop = gateway.stop
    title = `embedded reference proxy (gatehouse, ${opts.configFormat} configuration) at ${target.base}`
  }
  // What the run judges: --spec-version, else the latest final revision and what the target
  // announces (spec-version.ts).
  const specSelection = selectSpecVersions(
    opts.specVersion,
    opts.specVersion ? undefined : await announcedRevisions(target),
  )
  title = `${title}, judging ${specSelection.note}`
  targetInfo = {
    base: target.base,
    configuredBase: target.configuredBase,
    admin: target.admin ?? null,
    specVersions: specSelection.revisions,
  }
  try {
    results = await runChecks(target, {
      specSelection,
      ...(select ? { select } : {}),
      ...(opts.only ? { only: opts.only } : {}),
      ...(opts.skip ? { skip: opts.skip } : {}),
      ...(baseline ? { baseline } : {}),
    })
  } finally {
    await stop?.()
  }
} catch (err) {
  // The stack or the target could not start (e.g. a port taken, the reference proxy missing).
  await fixtures.stop()
  cannotRun(err)
} finally {
  await fixtures.stop()
}

if (opts.junit) writeFileSync(opts.junit, junitReport(results))
if (opts.json) writeFileSync(opts.json, jsonReport(results, targetInfo))
const seconds = ((performance.now() - started) / 1000).toFixed(1)
const report = consoleReport(results, `${title} (${seconds} s)`)
if (opts.html) {
  const facts = Object.entries(targetInfo)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)] as const)
  writeFileSync(opts.html, serverHtmlReport(results, { title: `${title} (${seconds} s)`, facts }))
}
process.stdout.write(`${report}\n`)
const { mustFailed, passed, failed } = summarize(results)
if (passed + failed === 0) {
  // A run that judged nothing must not look like a pass (mutation/README.md).
  process.stderr.write(
    'gatehouse-conformance: nothing was judged: every check was skipped (check --only, --skip and --profile, and that the target offers what the selected checks need, e.g. --admin)\n',
  )
}
setImmediate(() => process.exit(mustFailed > 0 || passed + failed === 0 ? 1 : 0))

/**
 * The tls profile's view of an https `--target`: the CA of `--ca` (else the system's), and its
 * host as the server name to send (none for an IP address: SNI carries DNS names only, RFC 6066
 * §3).
 */
function httpsTarget(base: string, ca: string | undefined): NonNullable<Target['tls']> {
  const host = new URL(base).hostname
  return {
    base,
    ca: ca ? [readFileSync(ca, 'utf8')] : [...rootCertificates],
    serverNames: isIP(host.replace(/^\[|\]$/g, '')) ? [] : [host],
  }
}
