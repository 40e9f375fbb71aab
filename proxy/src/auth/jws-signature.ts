/**
 * The signature of a compact JWS checked with `node:crypto` (docs/design/performance.md): on a token-cache
 * miss, `crypto.verify` costs about half of jose's WebCrypto verify. jose still does everything
 * else: it parses the header, selects and imports the key (with its `kid` and `alg` rules), and
 * validates the claims. Only a key jose handed over as a `CryptoKey` whose algorithm fits the
 * token's `alg` is checked here (the same checks as jose: algorithm name, hash, curve, the
 * `verify` usage, RSA keys of 2048 bits or more); anything else is left to jose's own verify.
 */
import { KeyObject, type VerifyKeyObjectInput, verify, type webcrypto } from 'node:crypto'
import { errors } from 'jose'

/** What a JWS `alg` needs of a WebCrypto key, and how node:crypto verifies it (RFC 7518 §3). */
interface AlgorithmParams {
  /** The CryptoKey's `algorithm.name`. */
  name: string
  /** Its `algorithm.hash.name`, for RSA. */
  hash?: string
  /** Its `algorithm.namedCurve`, for ECDSA. */
  namedCurve?: string
  /** The digest node:crypto uses; `null` for EdDSA. */
  digest: string | null
  options: Omit<VerifyKeyObjectInput, 'key'>
}

const rsa = (bits: 256 | 384 | 512): AlgorithmParams => ({
  name: 'RSASSA-PKCS1-v1_5',
  hash: `SHA-${bits}`,
  digest: `sha${bits}`,
  options: {},
})
// RFC 7518 §3.5: the salt is as long as the hash.
const pss = (bits: 256 | 384 | 512): AlgorithmParams => ({
  name: 'RSA-PSS',
  hash: `SHA-${bits}`,
  digest: `sha${bits}`,
  options: { padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: bits / 8 },
})
// RFC 7518 §3.4: R || S, each as long as the curve's order (IEEE P1363), not DER.
const ecdsa = (bits: 256 | 384 | 512, curve: string): AlgorithmParams => ({
  name: 'ECDSA',
  namedCurve: curve,
  digest: `sha${bits}`,
  options: { dsaEncoding: 'ieee-p1363' },
})
const ed25519: AlgorithmParams = { name: 'Ed25519', digest: null, options: {} }

/** The algorithms checked here; others (Ed448) go to jose. */
const ALGORITHMS: ReadonlyMap<string, AlgorithmParams> = new Map([
  ['RS256', rsa(256)],
  ['RS384', rsa(384)],
  ['RS512', rsa(512)],
  ['PS256', pss(256)],
  ['PS384', pss(384)],
  ['PS512', pss(512)],
  ['ES256', ecdsa(256, 'P-256')],
  ['ES384', ecdsa(384, 'P-384')],
  ['ES512', ecdsa(512, 'P-521')],
  ['EdDSA', ed25519],
  ['Ed25519', ed25519],
])

type CryptoKey = webcrypto.CryptoKey

const BASE64URL = /^[A-Za-z0-9_-]+$/

/** KeyObjects of the CryptoKeys jose imported, made once per key. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>()

function isCryptoKey(key: unknown): key is CryptoKey {
  return (key as { [Symbol.toStringTag]?: string } | null)?.[Symbol.toStringTag] === 'CryptoKey'
}

/** The node:crypto key and parameters for `alg`, when this module can check it. */
function paramsFor(
  alg: string,
  key: CryptoKey,
): { params: AlgorithmParams; keyObject: KeyObject } | undefined {
  const params = ALGORITHMS.get(alg)
  if (!params) return undefined
  const algorithm = key.algorithm as {
    name: string
    hash?: { name: string }
    namedCurve?: string
    modulusLength?: number
  }
  if (key.type !== 'public' || !key.usages.includes('verify')) return undefined
  if (algorithm.name !== params.name) return undefined
  if (params.hash && algorithm.hash?.name !== params.hash) return undefined
  if (params.namedCurve && algorithm.namedCurve !== params.namedCurve) return undefined
  // RFC 7518 §3.3 and §3.5: a key of 2048 bits or larger MUST be used.
  if (params.hash && (algorithm.modulusLength ?? 0) < 2048) return undefined
  let keyObject = keyObjects.get(key)
  if (!keyObject) {
    keyObject = KeyObject.from(key)
    keyObjects.set(key, keyObject)
  }
  return { params, keyObject }
}

/**
 * Checks the signature of the compact JWS `token` (`header.payload.signature`) with `key`.
 * @returns `false` when this module does not handle the key or algorithm (let jose verify);
 * `true` when the signature is valid.
 * @throws jose's `JWSSignatureVerificationFailed` when it is not.
 */
export function verifySignature(token: string, alg: string, key: unknown): boolean {
  if (!isCryptoKey(key)) return false
  const found = paramsFor(alg, key)
  if (!found) return false
  const dot = token.lastIndexOf('.')
  const encoded = token.slice(dot + 1)
  // Buffer's decoder skips characters outside the alphabet; jose's refuses them, and so does this.
  if (!BASE64URL.test(encoded) || encoded.length % 4 === 1) {
    throw new errors.JWSInvalid('the JWS signature is not base64url')
  }
  const signature = Buffer.from(encoded, 'base64url')
  const valid = verify(
    found.params.digest,
    Buffer.from(token.slice(0, dot), 'latin1'),
    { key: found.keyObject, ...found.params.options },
    signature,
  )
  if (!valid) throw new errors.JWSSignatureVerificationFailed()
  return true
}
