/**
 * The benchmark's peers, Debian's nginx and HAProxy: where they are, installing them when missing
 * (as ci/ensure-test-tools.ts does for the test tools) and the configurations the benchmark runs
 * them with. The generators are pure (bench/test/peers.test.ts); `npm run bench:check` has the
 * binaries accept what they generate (`nginx -t`, `haproxy -c`).
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

/** A peer program the benchmark runs. */
export interface Peer {
  name: string
  /** Where the benchmark looks for it: the override variable, else Debian's path. */
  path: string
  debianPackage: string
  override: string
}

/** nginx (Debian's `nginx`, 1.22 on bookworm) and HAProxy (Debian's `haproxy`, 2.6). */
export function peers(): Peer[] {
  return [
    {
      name: 'nginx',
      path: process.env.NGINX_PATH ?? '/usr/sbin/nginx',
      debianPackage: 'nginx',
      override: 'NGINX_PATH',
    },
    {
      name: 'haproxy',
      path: process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy',
      debianPackage: 'haproxy',
      override: 'HAPROXY_PATH',
    },
  ]
}

function aptGet(args: string[]): boolean {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const r = spawnSync('apt-get', args, { stdio: 'inherit', env })
  return r.status === 0
}

/**
 * Makes sure nginx and HAProxy are there: installs the Debian packages of the missing ones
 * (apt-get update first) where we are root on a Debian-like machine. Throws, saying what to do,
 * when one is still missing: the benchmark's comparison needs both.
 */
export function ensurePeers(): { nginx: string; haproxy: string } {
  const all = peers()
  const missing = all.filter((p) => !existsSync(p.path))
  const canInstall =
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0
  const installable = missing.filter((p) => canInstall && process.env[p.override] === undefined)
  if (installable.length > 0) {
    const packages = installable.map((p) => p.debianPackage)
    console.error(`bench: installing Debian packages for the peers: ${packages.join(', ')}`)
    // Debian's packages would start the services; the benchmark starts its own instances on
    // loopback, so a policy-rc.d that forbids starting services is expected (Docker images and
    // CI machines have one). The packages' default sites are never started by the benchmark.
    void (
      aptGet(['update', '-qq']) &&
      aptGet(['install', '-y', '-qq', '--no-install-recommends', ...packages])
    )
  }
  const still = all.filter((p) => !existsSync(p.path))
  if (still.length > 0) {
    throw new Error(
      still
        .map(
          (p) =>
            `${p.name}: nothing at ${p.path}. Install Debian's ${p.debianPackage} package (apt-get install ${p.debianPackage}) or set ${p.override}.`,
        )
        .join('\n'),
    )
  }
  const [nginx, haproxy] = all as [Peer, Peer]
  return { nginx: nginx.path, haproxy: haproxy.path }
}

/** What an nginx instance of the benchmark serves. */
export interface NginxOptions {
  /** A directory of its own (pid file, temporary paths). */
  dir: string
  port: number
  upstreamPort: number
  /** `proxy_buffering off`: each upstream chunk goes to the client as it arrives (streams). */
  unbuffered?: boolean
  /** worker_connections (default 4096). */
  connections?: number
}

/**
 * nginx.conf for one worker proxying everything to `127.0.0.1:<upstreamPort>` over kept-alive
 * HTTP/1.1 connections, in the foreground, without access log (gatehouse's is on: its cost is
 * part of what gatehouse does, and HAProxy and the Node floor log nothing either).
 */
export function nginxConfig(o: NginxOptions): string {
  const tmp = (name: string) => join(o.dir, name)
  return `daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile ${(o.connections ?? 4096) + 100};
pid ${tmp('nginx.pid')};
error_log stderr warn;
events { worker_connections ${o.connections ?? 4096}; }
http {
  access_log off;
  client_body_temp_path ${tmp('client_body')};
  proxy_temp_path ${tmp('proxy')};
  fastcgi_temp_path ${tmp('fastcgi')};
  uwsgi_temp_path ${tmp('uwsgi')};
  scgi_temp_path ${tmp('scgi')};
  keepalive_requests 1000000;
  upstream up {
    server 127.0.0.1:${o.upstreamPort};
    keepalive 128;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${o.port};
    location / {
      proxy_pass http://up;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout 1h;${o.unbuffered ? '\n      proxy_buffering off;' : ''}
    }
  }
}
`
}

/** What a HAProxy instance of the benchmark serves. */
export interface HaproxyOptions {
  /** Port of the plain frontend (no authentication). */
  port: number
  /** Port of the frontend that verifies an RS256 JWT and checks iss, aud and exp. */
  jwtPort: number
  upstreamPort: number
  /** PEM file of the RS256 public key. */
  publicKeyFile: string
  issuer: string
  audience: string
}

/**
 * haproxy.cfg with one thread and two frontends on the same backend: plain, and `jwt_verify`
 * (HAProxy ≥ 2.5) of the `Authorization: Bearer` token with RS256 and the public key, plus claim
 * checks — alg RS256, iss, aud, exp in the future — each refused with 401 as a gateway would.
 */
export function haproxyConfig(o: HaproxyOptions): string {
  return `global
  nbthread 1
  maxconn 8000

defaults
  mode http
  timeout connect 5s
  timeout client 1h
  timeout server 1h
  option http-keep-alive

frontend plain
  bind 127.0.0.1:${o.port}
  default_backend up

frontend jwt
  bind 127.0.0.1:${o.jwtPort}
  http-request deny status 401 unless { req.hdr(authorization) -m beg -i "Bearer " }
  http-request set-var(txn.bearer) http_auth_bearer
  http-request set-var(txn.alg) var(txn.bearer),jwt_header_query('$.alg')
  http-request deny status 401 unless { var(txn.alg) -m str RS256 }
  http-request deny status 401 unless { var(txn.bearer),jwt_verify(txn.alg,"${o.publicKeyFile}") -m int 1 }
  http-request set-var(txn.iss) var(txn.bearer),jwt_payload_query('$.iss')
  http-request deny status 401 unless { var(txn.iss) -m str "${o.issuer}" }
  http-request set-var(txn.aud) var(txn.bearer),jwt_payload_query('$.aud')
  http-request deny status 401 unless { var(txn.aud) -m str "${o.audience}" }
  http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('$.exp','int')
  http-request set-var(txn.now) date()
  http-request deny status 401 unless { var(txn.exp),sub(txn.now) -m int gt 0 }
  default_backend up

backend up
  http-reuse always
  server up 127.0.0.1:${o.upstreamPort}
`
}
