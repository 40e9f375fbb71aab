/**
 * The set-up the browser-driven peer tests share: one Chromium for the suite, and the demo stacks
 * (and other servers) its tests start, all stopped after it. Without Chromium the suite is skipped
 * and its title says why and what to run.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe } from 'vitest'
import { chromiumPath, hasChromium, launchChromium } from '../../ci/chromium.js'
import { type DemoStack, type DemoStackOptions, startDemoStack } from '../src/stack.js'

/** What a suite's tests get from {@link describeWithChromium}. */
export interface ChromiumRig {
  /** The suite's Chromium, launched before its first test. */
  readonly browser: Browser
  /** Starts a demo stack that is stopped after the suite. */
  stack(options?: DemoStackOptions): Promise<DemoStack>
  /** Stops `server` after the suite, before whatever was started ahead of it. */
  stopAfter<T extends { stop(): Promise<void> }>(server: T): T
}

/** A `describe` whose tests share one Chromium and have their stacks stopped after them. */
export function describeWithChromium(title: string, body: (rig: ChromiumRig) => void): void {
  const suite = hasChromium()
    ? title
    : `${title} (skipped: no Chromium at ${chromiumPath()}; npm run setup:test-tools)`
  describe.skipIf(!hasChromium())(suite, () => {
    let browser: Browser | undefined
    const started: Array<{ stop(): Promise<void> }> = []

    beforeAll(async () => {
      browser = await launchChromium()
    }, 60_000)

    afterAll(async () => {
      await browser?.close()
      for (const server of started.reverse()) await server.stop()
    })

    body({
      get browser() {
        if (!browser) throw new Error('Chromium is not running: the suite did not start it')
        return browser
      },
      stopAfter(server) {
        started.push(server)
        return server
      },
      async stack(options) {
        const stack = await startDemoStack(options)
        started.push(stack)
        return stack
      },
    })
  })
}
