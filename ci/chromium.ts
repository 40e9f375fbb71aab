/**
 * Debian's Chromium for the browser tests, driven by `playwright-core` (which never downloads a
 * browser here). `npm run setup:test-tools` installs it where it can.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Where the browser tests look for Chromium: `CHROMIUM_PATH`, else `/usr/bin/chromium`. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
}

/** Whether a Chromium binary is where {@link chromiumPath} says. */
export function hasChromium(): boolean {
  return existsSync(chromiumPath())
}

/**
 * Launches headless Chromium with the flags this closed, loopback-only network needs: without the
 * background-networking flags Chromium keeps trying to reach Google's services.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
