/**
 * What `gatehouse-conformance --help` and `--version` say: the version of the installed package,
 * and the two modes (judge a server, judge a client) with one example each.
 */

export { VERSION } from './version.js'

/** Shown after the options of `--help`. */
export const HELP_AFTER = `
Two modes:
  Test my server (an MCP server or gateway you started; the suite runs the IdP it trusts):
    gatehouse-conformance --target http://127.0.0.1:3000 --profile resource-server --yes
  Test my client (run once per scenario against the suite's gateway and IdP; the server URL is
  its last argument):
    gatehouse-conformance client --command "node my-client.js"
  Without --target or client: judges the embedded reference stack (mock IdP, MCP backend and the
  gatehouse proxy the package carries). \`client --help\` lists the client mode's options;
  \`client --command "gatehouse-conformance sample-client"\` runs the example client.
  --baseline <file> lists expected failures (one ID per line): they do not fail the run, and one
  that passes is reported as stale.
`
