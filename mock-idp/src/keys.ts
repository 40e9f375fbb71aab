/**
 * The signing keys of one authorization server. The mock owns them (rather than letting
 * oidc-provider generate them) so that tokens minted by the control API and tokens from the real
 * flow are signed by the same keys, `/v1/keys` serves exactly these, and rotation is possible.
 */
import { randomUUID } from 'node:crypto'
import { type CryptoKey, exportJWK, generateKeyPair, type JWK } from 'jose'

/** One key pair. */
export interface SigningKey {
  kid: string
  /** JWS algorithms this key signs. */
  algs: string[]
  privateKey: CryptoKey
  publicKey: CryptoKey
  privateJwk: JWK
  publicJwk: JWK
}

async function newKey(kind: 'RSA' | 'EC' | 'OKP'): Promise<SigningKey> {
  const alg = kind === 'RSA' ? 'RS256' : kind === 'EC' ? 'ES256' : 'EdDSA'
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const kid = `${kind.toLowerCase()}-${randomUUID().slice(0, 8)}`
  // RSA keys carry no `alg`: the same key signs RS256 and PS256 tokens.
  const meta = { kid, use: 'sig', ...(kind === 'RSA' ? {} : { alg }) }
  return {
    kid,
    algs: kind === 'RSA' ? ['RS256', 'PS256'] : [alg],
    privateKey,
    publicKey,
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
  }
}

/** Keys of an authorization server: RSA (current first), plus one EC and one Ed25519 key. */
export class KeyRing {
  #rsa: SigningKey[] = []
  #others: SigningKey[] = []

  static async create(): Promise<KeyRing> {
    const ring = new KeyRing()
    ring.#rsa = [await newKey('RSA')]
    ring.#others = [await newKey('EC'), await newKey('OKP')]
    return ring
  }

  /** The key that signs `alg` tokens now. */
  signer(alg: string): SigningKey {
    const key = [...this.#rsa, ...this.#others].find((k) => k.algs.includes(alg))
    if (!key) throw new Error(`no key signs ${alg}`)
    return key
  }

  /** The current RSA key (RS256 default). */
  get current(): SigningKey {
    return this.#rsa[0] as SigningKey
  }

  /** A new current RSA key; the previous ones are kept (published) unless `keepOld` is false. */
  async rotate(keepOld: boolean): Promise<SigningKey> {
    const key = await newKey('RSA')
    this.#rsa = keepOld ? [key, ...this.#rsa] : [key]
    return key
  }

  /** The public JWKS served at `<issuer>/v1/keys`. */
  publicJwks(): { keys: JWK[] } {
    return { keys: [...this.#rsa, ...this.#others].map((k) => k.publicJwk) }
  }

  /** Private JWKS for oidc-provider (it signs with the first key fitting an algorithm). */
  privateJwks(): { keys: JWK[] } {
    return { keys: [...this.#rsa, ...this.#others].map((k) => k.privateJwk) }
  }
}
