/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the 2026-07-28 leg: the
 * `report` tool answers a client that declares the extension with a `CreateTaskResult`
 * (`resultType: "task"`), and `tasks/get`, `tasks/update` and `tasks/cancel` drive it.
 *
 * Written here, not taken from a library: the official server SDK (2.4) routes `tasks/*` (it
 * requires `Mcp-Name: <taskId>` on them) but has no tasks runtime, and
 * `@modelcontextprotocol/ext-tasks` has only the requester (client) side for 2026-07-28.
 *
 * A task moves by what the client does, never by time, so tests are deterministic:
 * `working` → (first `tasks/get`) `input_required` with an `approve` elicitation →
 * (`tasks/update` accepting it) `completed` with the report; `tasks/cancel` → `cancelled`.
 */
import { randomUUID } from 'node:crypto'

/** The extension's identifier (SEP-2663; capability key under `extensions`). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Tasks kept at most; the oldest are dropped beyond this. */
const MAX_TASKS = 1000
/** What a task advertises as its lifetime (ms). */
const TASK_TTL_MS = 3_600_000

/** A task's status (SEP-2663 "Task Status"). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** A task as `tasks/get` answers it (without `resultType`, which the SDK stamps). */
export interface TaskView {
  taskId: string
  status: TaskStatus
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttlMs: number | null
  pollIntervalMs?: number
  inputRequests?: Record<string, unknown>
  result?: Record<string, unknown>
}

interface Task {
  view: TaskView
  topic: string
}

/** Why a task request was refused: JSON-RPC code and message. */
export interface TaskError {
  code: number
  message: string
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled'])

/** The in-memory tasks of one backend (shared by every request, as the 2026 leg is stateless). */
export class TaskStore {
  readonly #tasks = new Map<string, Task>()

  /** Creates a `working` report task about `topic`. */
  create(topic: string): TaskView {
    const now = new Date().toISOString()
    const view: TaskView = {
      taskId: randomUUID(),
      status: 'working',
      statusMessage: `preparing the report on ${topic}`,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: 100,
    }
    this.#tasks.set(view.taskId, { view, topic })
    if (this.#tasks.size > MAX_TASKS) {
      const oldest = this.#tasks.keys().next().value
      if (oldest !== undefined) this.#tasks.delete(oldest)
    }
    return { ...view }
  }

  /**
   * `tasks/get`: a `working` task asks for approval on the first poll.
   * @returns the task, or an error (-32602 for an unknown id: SEP-2663 "Protocol Errors")
   */
  get(taskId: string): TaskView | TaskError {
    const task = this.#tasks.get(taskId)
    if (!task) return unknownTask(taskId)
    if (task.view.status === 'working') {
      this.#set(task, 'input_required', 'waiting for approval')
      task.view.inputRequests = {
        approve: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: `Publish the report on ${task.topic}?`,
            requestedSchema: {
              type: 'object',
              properties: { approve: { type: 'boolean' } },
              required: ['approve'],
            },
          },
        },
      }
    }
    return { ...task.view }
  }

  /**
   * `tasks/update`: an accepted `approve` response completes the task, a declined one fails it.
   * @returns an empty acknowledgement, or an error for an unknown id
   */
  update(
    taskId: string,
    inputResponses: Record<string, unknown>,
  ): Record<string, never> | TaskError {
    const task = this.#tasks.get(taskId)
    if (!task) return unknownTask(taskId)
    const answer = inputResponses.approve as
      | { action?: string; content?: { approve?: unknown } }
      | undefined
    if (task.view.status !== 'input_required' || answer === undefined) return {}
    delete task.view.inputRequests
    if (answer.action === 'accept' && answer.content?.approve === true) {
      this.#set(task, 'completed', 'report published')
      task.view.result = {
        content: [{ type: 'text', text: `report on ${task.topic}: 3 findings` }],
      }
    } else {
      this.#set(task, 'cancelled', 'publication was not approved')
    }
    return {}
  }

  /** `tasks/cancel`: a task not yet finished becomes `cancelled`. */
  cancel(taskId: string): Record<string, never> | TaskError {
    const task = this.#tasks.get(taskId)
    if (!task) return unknownTask(taskId)
    if (!TERMINAL.has(task.view.status)) {
      delete task.view.inputRequests
      this.#set(task, 'cancelled', 'cancelled by the client')
    }
    return {}
  }

  #set(task: Task, status: TaskStatus, message: string): void {
    task.view.status = status
    task.view.statusMessage = message
    task.view.lastUpdatedAt = new Date().toISOString()
  }
}

/** Whether a store answer is an error. */
export function isTaskError(value: unknown): value is TaskError {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value
}

function unknownTask(taskId: string): TaskError {
  return { code: -32602, message: `Invalid params: no task ${JSON.stringify(taskId)}` }
}
