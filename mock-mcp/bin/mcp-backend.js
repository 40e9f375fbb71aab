#!/usr/bin/env node
// Runs the TypeScript entry with tsx, so the backend needs no build step.
import { register } from 'tsx/esm/api'

register()
await import('./mcp-backend.ts')
