#!/usr/bin/env node
// Runs the TypeScript entry with tsx, so the IdP needs no build step.
import { register } from 'tsx/esm/api'

register()
await import('./mock-idp.ts')
