/**
 * Stage 3 of a policy, transformation (seed: "the claims of the verified token are also
 * available to … transformations"): request headers to the backend set from the verified claims
 * with CEL, or removed.
 */
import type { CelCompiler } from '../config/cel.js'
import { type CompiledHeader, compileHeaders } from './rules.js'

/** Header changes for the request to the backend. */
export interface HeaderChanges {
  set: Record<string, string>
  remove: string[]
}

/** The transformation stage of one policy. */
export class HeaderTransformation {
  readonly #set: CompiledHeader[]
  readonly #remove: string[]

  /**
   * @param cel - the compilation's CEL compiler (`CompiledConfig.cel`).
   * @throws Error for a value that does not compile (reported by `--validate` first).
   */
  constructor(
    request: { set: ReadonlyArray<{ name: string; value: string }>; remove: string[] },
    cel?: CelCompiler,
  ) {
    this.#set = compileHeaders(request.set, cel)
    this.#remove = request.remove.map((h) => h.toLowerCase())
  }

  /**
   * The changes for one request. A value whose expression fails is left unset (a claim the token
   * lacks must not become an empty or misleading header).
   */
  apply(claims: Readonly<Record<string, unknown>>): HeaderChanges {
    const set: Record<string, string> = {}
    for (const h of this.#set) {
      const value = h.evaluate(claims)
      if (value !== undefined) set[h.name] = value
    }
    return { set, remove: this.#remove }
  }
}
