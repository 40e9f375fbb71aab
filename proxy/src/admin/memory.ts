/**
 * `GET /memory`: process and V8 allocator statistics as JSON (seed, Admin interface table; body
 * format is ours). Numbers are bytes unless named otherwise.
 */
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'

/** The `/memory` document. */
export interface MemoryReport {
  /** `process.memoryUsage()`: rss, heapTotal, heapUsed, external, arrayBuffers. */
  process: NodeJS.MemoryUsage
  /** `v8.getHeapStatistics()`. */
  heap: ReturnType<typeof getHeapStatistics>
  /** `v8.getHeapSpaceStatistics()`: one entry per V8 heap space. */
  heapSpaces: ReturnType<typeof getHeapSpaceStatistics>
  /** `process.resourceUsage()` (maxRSS in kilobytes, times in microseconds). */
  resourceUsage: NodeJS.ResourceUsage
  /** `process.constrainedMemory()` where the platform reports one (cgroup limit), else null. */
  constrainedMemory: number | null
}

/** Collects the report. */
export function memoryReport(): MemoryReport {
  const constrained = (
    process as { constrainedMemory?: () => number | undefined }
  ).constrainedMemory?.()
  return {
    process: process.memoryUsage(),
    heap: getHeapStatistics(),
    heapSpaces: getHeapSpaceStatistics(),
    resourceUsage: process.resourceUsage(),
    constrainedMemory: constrained ? constrained : null,
  }
}
