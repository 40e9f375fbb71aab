#!/usr/bin/env node
// Runs the TypeScript entry with tsx, so gwctl needs no build step.
import { register } from 'tsx/esm/api'

register()
await import('./gwctl.ts')
