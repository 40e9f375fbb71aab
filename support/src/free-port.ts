/** A free TCP port on the loopback interface. */
import { createServer } from 'node:net'

/**
 * A TCP port on 127.0.0.1 that nothing listened on a moment ago: bound with `listen(0)`, then
 * released. For a configuration that must name its port before the server starts (a gatehouse
 * YAML file, a child process's `--port`); a server this process starts itself listens on port 0
 * instead, which cannot race.
 */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
