/**
 * The setup file of the `unit` project (vitest.config.ts): every unit-tier test file runs with
 * sockets and processes refused (scripts/vitest/unit-guard.ts).
 */
import { installUnitGuard } from './unit-guard.js'

installUnitGuard()
