import { describe, expect, it } from 'vitest'
import { haproxyConfig, nginxConfig } from '../peers.js'

// That the binaries accept these is checked against the real nginx and HAProxy by
// `npm run bench:check` (bench/self-check.ts), which installs them when missing; here, what the
// benchmark relies on being in them.
describe('nginxConfig', () => {
  const base = { dir: '/tmp/x', port: 8001, upstreamPort: 8002 }

  it('runs one worker in the foreground on loopback, proxying to the upstream over keep-alive', () => {
    const conf = nginxConfig(base)
    expect(conf).toContain('daemon off;')
    expect(conf).toContain('worker_processes 1;')
    expect(conf).toContain('listen 127.0.0.1:8001;')
    expect(conf).toContain('server 127.0.0.1:8002;')
    expect(conf).toContain('proxy_set_header Connection "";')
    expect(conf).toContain('pid /tmp/x/nginx.pid;')
  })

  it('turns proxy buffering off only when asked (streams)', () => {
    expect(nginxConfig(base)).not.toContain('proxy_buffering off')
    expect(nginxConfig({ ...base, unbuffered: true })).toContain('proxy_buffering off;')
  })
})

describe('haproxyConfig', () => {
  const conf = haproxyConfig({
    port: 9001,
    jwtPort: 9002,
    upstreamPort: 9003,
    publicKeyFile: '/tmp/k.pem',
    issuer: 'https://idp.example',
    audience: 'api://default',
  })

  it('has a plain and a JWT frontend on loopback, one thread, the same backend', () => {
    expect(conf).toContain('nbthread 1')
    expect(conf).toContain('bind 127.0.0.1:9001')
    expect(conf).toContain('bind 127.0.0.1:9002')
    expect(conf).toContain('server up 127.0.0.1:9003')
  })

  it('verifies the RS256 signature with the key file and checks alg, iss, aud and exp', () => {
    expect(conf).toContain('jwt_verify(txn.alg,"/tmp/k.pem") -m int 1')
    expect(conf).toContain('var(txn.alg) -m str RS256')
    expect(conf).toContain('var(txn.iss) -m str "https://idp.example"')
    expect(conf).toContain('var(txn.aud) -m str "api://default"')
    expect(conf).toContain('var(txn.exp),sub(txn.now) -m int gt 0')
  })
})
