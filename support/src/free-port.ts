/** A free TCP port on the loopback interface. */
import { createServer, type Server } from 'node:net'

/**
 * A TCP port on 127.0.0.1 that nothing listened on a moment ago: bound with `listen(0)`, then
 * released. For a configuration that must name its port before the server starts (a gatehouse
 * YAML file, a child process's `--port`); a server this process starts itself listens on port 0
 * instead, which cannot race.
 */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1)
  return port as number
}

/**
 * `count` distinct {@link freePort}s: every port is held until all are chosen, then all are
 * released. Chosen one after another and released each time, two could be the same port (the
 * system hands a released ephemeral port out again), and a configuration naming both is refused
 * ("already used by gateway …").
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = []
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer()
      servers.push(server)
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(0, '127.0.0.1', () => resolve())
      })
    }
    return servers.map((server) => (server.address() as { port: number }).port)
  } finally {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) =>
            server.listening ? server.close(() => resolve()) : resolve(),
          ),
      ),
    )
  }
}

/** Whether `err` says a port was taken: `EADDRINUSE`, or a process's message saying so. */
export function isPortTaken(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined
  return (
    e?.code === 'EADDRINUSE' ||
    /EADDRINUSE|(?:address|port) (?:is )?already in use/i.test(String(e?.message))
  )
}

/**
 * Starts something that must be told its port beforehand (a child process, a configuration file)
 * on a {@link freePort}, and again on another one when the port was taken in between (see
 * `isPortTaken`): between `freePort` and the bind, another process may take it.
 * @param attempts - how many ports to try (default 5); the last error is thrown.
 */
export async function withFreePort<T>(
  start: (port: number) => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort())
    } catch (err) {
      if (!isPortTaken(err) || attempt >= attempts) throw err
    }
  }
}
