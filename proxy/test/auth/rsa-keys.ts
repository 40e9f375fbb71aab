/**
 * Fixed RSA test keys (PKCS #8 PEM), so the unit tests of the signature paths sign and verify
 * without generating RSA keys (a 2048-bit one takes a tenth of a second to seconds on a busy
 * machine). Test-only keys: they sign test tokens and nothing else. EC and EdDSA keys are cheap to
 * generate and stay generated per file.
 */
import { createPublicKey } from 'node:crypto'
import { importJWK, importPKCS8, type JWK } from 'jose'

/** A 2048-bit RSA key (RFC 7518 §3.3: 2048 bits or larger). */
export const RSA_2048_A = `-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCpmAgO99CqC3Yj
nu4ewxVtCa70baAjtPmXpvZ/v6dpUeruTY/GPtXdEl5Cp2jmSdtg5qYCwBNB+jAm
XzFgzirICf/JgDlR5zgxv804+l+3ZvaOyjgZ2FeajgwxaQ8t/dnxK0hqr+TFo1j1
n5HleRebAPEHcsnX7xNGdiCjc2eoqAVXQUfea+zOFZ5tQFNF0PuQ/Bqs5IqUEmFA
1UAERmo/C2JkLRoU8lsMKnA+5UgHFPGecWLCUEg07drSTvA4hFwynaBhzHfrzvBK
V1kik4PUGIm3IQ8Kh7wHEj0bfPa0HW+9bYWR3Y2onptrkb5kCmVsKlvlaNLexOxK
2ecN0JmjAgMBAAECggEACMMcF3niRAbXkbuSXfCCWOHZMjO/xFiDVLyBm9QRGDXt
R2ameP2iGwvp5tOzbcJ/HSCNjzLRS+VbO4BLks7UEwXBO23uiDbEBn38Ymc9LsKZ
FoOIJn2w+QFBzAO7jwrAid9MnIZ98WAhJn+aEBsThySjT1k06H0np8pOoWNDBcmi
9qn5uMoYa/p3/Uy1jeiy+CtGViRYGIAzoo3IWHkthfiKCovbH16ilBdbgomHyGpA
VMCh5rPI3SXPnGE8uJYTPSJ1QsU3Bpwiw25Ucuj6xilsIaVMtk1vplPWtg7hKDBW
L7UZjE7JC5WSjyhX+QvbjLFOEwKqgr/83R97EPLj4QKBgQDf/50fYrR7hMFCapB5
eArzLN3CVyrGyq5p42YmuPy0sYM1ZopmIaZA0qlRo3oJZF6FfnVMROkXmeTFmsDM
oB3MAKWMWYp81EQiROkpsuJv2wmJKZb4Wtd938k9BcaIK0ABURbN8jwgytkub/Ge
QK4KMO21WwE/PJy4n9LxbHSXuwKBgQDB0qfoxAJZ/pBkfu3vE+qPNJ6vU0E7VKIa
ijyGwFx1p6/Kxdi10s4l0B2ActDVjFSvCRQ7b4Pz5kmXspOmjqm20E9MCeKVCbG2
ncSv3y1lsRE/hu3cWVX5OBu1smXlTjvCMNDM/TRzfdtXJ0HV8JEVe0kkoGznwDXX
CwUhcvDjOQKBgQCP9jB9Y2qrl/69OM/xwX0IHOXJaUxMxyahV0znxixj1VKGl4iL
a0T2lG3N0ks0jhVRppysj/1e9cFaXsNav+1ml2POeB3RbHr9q1xPOHDfgt72EIy+
wWONuq4TUgruqR1Ru1P0uKJ8UOKUPc4D733rftbHn92FTudKoS1pjFLC0QKBgFH+
F2H0aTpA4jxhJa5ZsoRaMjbg9Vtv9hNcHzax8WskQM163K4uO17rp09LQuTTtI9H
O/PYvO1UohU2ShfPiiP4A1Obauq5ayBhpW7w7ndybGV/YugwMpp3DeHTUh+q9MS1
ed79zk59E2jPBp7GYdnAibSg2PFA8oXB962qvhShAoGAU48phBsGedZdwBZrpZGp
wnx6R6+5uWH+qfxnqHlVkfA8IuNr+lUU+qWR6wSFZ95QwZtH9pyEAl+8XJeP3Qal
36Ir79d5ZDLCg6VgQFQqTmQyCiO3mX0IiycCsR9lNXGkyy6K6UYm3qRLiejmdjjY
xu9MyA1e2F53hVOQZ12W3BI=
-----END PRIVATE KEY-----
`

/** Another 2048-bit RSA key: a token signed with A checked against B. */
export const RSA_2048_B = `-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDXxSTNE+Ipkxvi
4sofHEKm/W3rSHSiJRLp8Z6mt+Ob1mH32esUNB4/c2WVgK2BCfUaCZHDjOkJPvnF
D94ieztN3JY3SKhZQSzr1ivaZAjQKkMFSd0zj7GnY9hgY17hPg5K62AYZKNMoEtr
7reFJXkrlzWDGiFZZvkImVaw5rWSB7c0KTbc+ckHW5mE5XNyJClMnYK8cX8HoAWZ
+iVjmr5cA+vbnDbMm21eYc2tTsxark8OmjzXYbAwGftrZGKK3FUBL4PyGJbpRtjv
um8CcJaVK4K8JaJ7lwIkaVx+wEKwwe0Oa/0d0cdzS+ibm9JbXmjgfl4ZquHMs1Hp
02hf9dJzAgMBAAECggEAO14S8ho2cBn54kNkOYsdC7VPOR2GedaZjaTdciHGjmo+
KmPbOoPcjrjBipENLCQBPFjFsnhi5hhdwMrM48/kUVgQPMXRDD3SjlEvX7eGdUAr
kJjyM+2lg9kFAABXasIYTKTWm9+UztCL7/aOqCPXYxcHsjrOUjry6lrGb4YLD1Ju
srQplKnQhizuEctEKZArxvvIctUaku/rQctZcx8mvNIzlpQLVhQMxhTFMktEpk5E
wXfhFatWF7dZQDDoAgFIAxRk51dB/UcHk9YDdtY0fcV/hKYR41H8ZBUxTJotJcsl
vDMVFwDxfxPvnNuxqIGX4v4naemU5Tb0jpagzHJegQKBgQD1P5cMA5KVv0YqiLee
KHuv+HQK3j4vEtKIVUlzefKitFqKJqSZGhaCJ1W/k3vo8dJqz1UKeWpK5x9i4jGf
MfW+eReNM4OZVVO8LI5leCYMD3Lo8qx1BKPV45T4yS+4VcALkoTXu8adVErp9yCI
VkVXEiCIYT3Dtb9xLVohiay61wKBgQDhOrhhsdSdImmlhQTcfO7QrjvgJngtFn/U
Pjx192QMuFgON7LDCJ5RvmhYgaAiiRK0jIy2mqqttADxPsaFv3ECI75aTCbqqPJc
qjgzJ1fIQExJr3+sFP4UixX1vgiQt1cgTPwGkwXRwj+1CLjeSlVCWfqmIZVXHzBj
fzYMalftxQKBgQDxAyYYi2ZBvXBiGmuAhT5QR7UafR/VOQUnL9F4J064cM9NVv6I
6ydVjvxowbKS0Rs9FjX3jixUIeApWCr1zK45Gl13yTk5ta4Njif+Nd4GGiSOIvYy
JXYwm2/qMiSwXazWco4USJe+Q3k/hjo1YbrQ/6JzBEUjkPfrbGtX7CmQjwKBgQCv
8Mn17w+yjB5RIV8RyjpYI7M8P3Djb879gnyCfnXWhe6rdJEdT8809fPXJ7NrJv7I
sX5+asXnmVSfH7W+5zSlQjzBlvlTmBRzlLkAJLyq/qdZbFHkoCV28Mt/wyo3ujDC
V8EMda83E3HmvmCDrTd69IUbX+KkQwXuw4H6Itx7LQKBgCfnjVdZILeBXFh4ocEx
EhCns7wsp3UOV0nWcCyDIQ4EpeX3pVk8fFufMClDmnqd0HMEW2kOPzdi+w5pWctS
aLxje0tfU8EpPEwJHHaY5n3lcnWRjS8w3E3BvBTsvWEi0XO4FfjGUNSvzrdk63cz
mKGlGOrgPGhONAqQa0prnt7Q
-----END PRIVATE KEY-----
`

/** A 1536-bit RSA key: short of RFC 7518 §3.3, long enough for PS512's salt. */
export const RSA_1536 = `-----BEGIN PRIVATE KEY-----
MIIDmAIBADANBgkqhkiG9w0BAQEFAASCA4IwggN+AgEAAoHBALVIBocKD7jxxWqy
98IpbKZHyR+Y1Cz8j9ms2QQ/MBluClNPDD4YHyLdhzFaaGAQAU/IgX57t6Hctfir
FTn8fybPOIjLMqL2OIl6qPLNwPhyW8ICZNBwo7NaI5I8lSVQeE/mCqFtanl4FJ5I
i+KOKTNDybuKRl3ReXbIwSLVngvcCKYTK2u7GJk/Yg2jj89+A7kPwYqmEqomcF8C
dc0oaJopn9nRy9lyK5cSFvpYRX3Hkr8Gb4qbvWLHVj7RPtQtHwIDAQABAoHBAJQa
1zJmlvfLlzWYJ/EadOjZB0loTBjA8ymtHNRqZ3qvO4Jat67XeEC86mH48gNhsCCl
uJ5Ep393Wbhi1gG894kWjaK9GI6pSQGRFAzi6wBQNgUofYMKM8QpJZypIFUPCwrF
MyWq8OsrZOF3nmEpV5zKW2A9YYqC8DKBGNy+ORwybvZ+O9UqyjlI6jGGDELdl73q
uE19KfLYEDH+lp1zt5vfZ9r6VT1KOkpLTaxTkKZn3QjGK807VKnraYkDmL43mQJh
AO3vGUEVqaJYP/ctPhGn/sMHU1Cvlxd0Wiq8m/5oxRUW0zS+chtpUxoebF5+MrWt
GyKmSB6jvWA2HavvoxkrtuKpDNsZ6e4NW2jLtMeN6pV7kn8zk5Hfr58QffAggiZO
lQJhAMMLuidw9jZehEzuRnuR/S3NLxzJs+/iQtQvn+j3Oc9cbsUKEZAz8I5GYnp1
8Ty/i4r6WnGIsUUDmcWWXsSsAZ4SKcS3c36fu+azxxaeUzqbjaZ+h8l7N2Ny+Tz/
0b3D4wJhAOav/EdLLoY1lAcd+WD7BZmn35KKPC7EY6ut5HzcrcCNuccYot+K1cSs
HJvdNWNJ69ZDbAcw8Cp5LXmHRRXheVb3WnyP+mwQzUCkyKj2Iqw9/EKSChDT1J2f
SstnaWikpQJgKAvwXMjExMUDRQhnUFfZM949HhwL5eT+87ITkzGvnPPNiodWs9T2
P0AUWDB/J4nsjMx6ZXU7cIAcwoTtUFRAwMPZ75n7DLSfT+75oZtAW3g0zUqNdsDl
znV81xlvZxchAmEAqAi0kGgQVwNQsxr5YVGrOQuNJ4/pZ8Rg5ukNAqV8toCljMNN
ah0NP/KDXgz35jgbf1CvByAPWhY4thSZhwwvAfg1rKKacy2s9c3axaRUw64ao8rd
1qRlySoyvpD8g8q/
-----END PRIVATE KEY-----
`

/** A 1024-bit RSA key: short of RFC 7518 §3.3. */
export const RSA_1024 = `-----BEGIN PRIVATE KEY-----
MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAM6dY6wLFnz8WiOJ
M57+hV8g1iVwEKRsiMzPWVmiM22UvWBgOYWdISGdYTDGuvH/9bhXUTmCBPpH5k2Q
vX9r1mcCQyllAMA40iFvlSXYmMAWofwn34lMGhO2nMSO0ibgwP93x5WrfGBZcTu+
Gpt26SmbBs0kXB5Ylp5zjqPxJAKBAgMBAAECgYAnf91bOa9t64yL+KHexofW3N8z
vw3fcURh604IncK5M1NVBnBYw+Zel8jJ22RH+YgPWtoTZXDwLCiyMXaY0pPlO5Bo
7qdyvwHbqgDfWQ/tQTIsfpobmsyU7eK38cDn4nbjH5iSGbLoXIsFYuPb3pFGXPP6
DucMsbIeIqGcUGW2sQJBAOdtiWSp+7LY6Xi+0W8CXM4aieb4/l/A3ByegxgWoouo
a5+Xi93nUq/fEytiM8LPJ4zapSXM3gurCjeEZaeaxV0CQQDkjWf0ElSqfqE3IK1B
NP/li3pUN60hGgZUORrl2Rcc1EzaDaLROBV1W5ravX9qxBxeLfl4yQB+ovcNO+++
gxt1AkBHdy3sZgmR6yX94X8vNp2OD+fx6YYz74yJUfHNqH+9fN7vQ48vkVWZddun
lAXD7NCb0JEbIS6Yj9Lx3fK+VS8JAkAHX1BVHSpB/aexoYo1KkJ+4wrlII6jHLXL
jbQCaghG08pO1lXELezzRisulyI/DWhk2VLMxJ8RdqxFbwOCv7PpAkEA3h1hI0D2
PEKuFf3xfl0t68hRsWPvlWL8MkHO50ki3eWwqReooDfmsKsycwYrhdgiHrP3j7+j
/1wzxILFpBlroQ==
-----END PRIVATE KEY-----
`

/** A key as jose imports it (a CryptoKey). */
type Key = Awaited<ReturnType<typeof importPKCS8>>

/** The RSA key `pem` for `alg` (RS* or PS*): the private CryptoKey, the public one and its JWK. */
export async function rsaKeys(
  pem: string,
  alg: string,
): Promise<{ privateKey: Key; publicKey: Key; jwk: JWK }> {
  const { kty, n, e } = createPublicKey(pem).export({ format: 'jwk' })
  const jwk: JWK = { kty, n, e }
  return {
    privateKey: await importPKCS8(pem, alg, { extractable: true }),
    publicKey: (await importJWK(jwk, alg)) as Key,
    jwk,
  }
}
