/**
 * Everything `docker compose up --build` needs, had where it can be: an engine (Debian's
 * `docker.io`, installed and started as root on Debian), Compose v2 (from Debian trixie), and the
 * Dockerfile's base image (pulled, or built locally when Docker Hub is out of reach). See
 * ci/README.md.
 *
 * `npx tsx ci/docker.ts` does it by hand and leaves the engine running; `ci/compose-smoke.ts`
 * calls {@link ensureDocker} and gives back what it started.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { baseImages, ensureBaseImage } from './docker-base-image.js'
import { ensureCompose } from './docker-compose-plugin.js'
import { type Engine, ensureEngine, NoEngine } from './docker-engine.js'

/** A ready engine, or the exact reason there is none. */
export type DockerSetup =
  | {
      ready: true
      engine: Engine
      compose: string
      /** The base image and where it came from, with the seconds it took. */
      base: { image: string; source: string; seconds: number }[]
    }
  | { ready: false; missing: string }

const root = fileURLToPath(new URL('..', import.meta.url))

/** Has an engine, Compose v2 and the Dockerfile's base images ready, or says what is missing. */
export async function ensureDocker(): Promise<DockerSetup> {
  let engine: Engine
  try {
    engine = await ensureEngine()
  } catch (err) {
    if (err instanceof NoEngine) return { ready: false, missing: err.message }
    throw err
  }
  const fail = async (missing: string): Promise<DockerSetup> => {
    await engine.release()
    return { ready: false, missing }
  }
  const compose = ensureCompose()
  if ('missing' in compose) return fail(compose.missing)
  const base: { image: string; source: string; seconds: number }[] = []
  for (const image of baseImages(readFileSync(`${root}Dockerfile`, 'utf8'))) {
    const result = ensureBaseImage(image)
    if ('missing' in result) return fail(result.missing)
    base.push(result)
  }
  return { ready: true, engine, compose: compose.version, base }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const setup = await ensureDocker()
  if (!setup.ready) {
    console.error(`Docker is not ready: ${setup.missing}`)
    process.exitCode = 1
  } else {
    console.log(`engine ${setup.engine.version}, compose ${setup.compose}`)
    for (const b of setup.base) console.log(`base image ${b.image}: ${b.source} in ${b.seconds} s`)
  }
}
