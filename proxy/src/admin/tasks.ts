/**
 * `GET /debug/tasks`: the live async work as a tree (listeners → connections → in-flight
 * requests → their stage, with ages) plus a summary of the event loop's active handles.
 */
import type { TaskNode, TaskRegistry } from '../telemetry/tasks.js'

/** The `/debug/tasks` document. */
export interface TasksReport {
  /** ISO time of the snapshot. */
  at: string
  /** Requests in flight across every gateway. */
  inFlight: number
  tree: TaskNode[]
  /** `process.getActiveResourcesInfo()` counted by kind (TCPServerWrap, Timeout, ...). */
  activeResources: Record<string, number>
}

/** Takes the snapshot. */
export function tasksReport(tasks: TaskRegistry): TasksReport {
  const activeResources: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) {
    activeResources[kind] = (activeResources[kind] ?? 0) + 1
  }
  return {
    at: new Date().toISOString(),
    inFlight: tasks.inFlight(),
    tree: tasks.tree(),
    activeResources,
  }
}
