/**
 * oidc-provider storage for one mock-idp: an in-memory adapter (oidc-provider's adapter
 * interface) whose data is shared by every authorization server of the instance and survives the
 * rebuild of a provider after a key rotation. Dynamically registered clients live here too.
 */

interface Entry {
  payload: Record<string, unknown>
  expiresAt: number
}

/** The shared storage of one mock-idp instance. */
export class Store {
  readonly entries = new Map<string, Entry>()
  readonly #index = new Map<string, string>()
  readonly #grants = new Map<string, Set<string>>()

  get(key: string): Record<string, unknown> | undefined {
    const e = this.entries.get(key)
    if (!e) return undefined
    if (e.expiresAt <= Date.now()) {
      this.entries.delete(key)
      return undefined
    }
    return e.payload
  }

  /** An oidc-provider adapter class bound to this store. */
  adapterClass(): new (model: string) => Adapter {
    const store = this
    return class implements Adapter {
      readonly #model: string
      constructor(model: string) {
        this.#model = model
      }
      #key(id: string): string {
        return `${this.#model}:${id}`
      }
      async upsert(
        id: string,
        payload: Record<string, unknown>,
        expiresIn?: number,
      ): Promise<void> {
        const key = this.#key(id)
        store.entries.set(key, {
          payload,
          expiresAt:
            typeof expiresIn === 'number'
              ? Date.now() + expiresIn * 1000
              : Number.POSITIVE_INFINITY,
        })
        if (typeof payload.uid === 'string' && this.#model === 'Session')
          store.#index.set(`uid:${payload.uid}`, id)
        if (typeof payload.userCode === 'string')
          store.#index.set(`userCode:${payload.userCode}`, id)
        if (typeof payload.grantId === 'string') {
          const members = store.#grants.get(payload.grantId) ?? new Set<string>()
          members.add(key)
          store.#grants.set(payload.grantId, members)
        }
      }
      async find(id: string): Promise<Record<string, unknown> | undefined> {
        return store.get(this.#key(id))
      }
      async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
        const id = store.#index.get(`uid:${uid}`)
        return id ? this.find(id) : undefined
      }
      async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
        const id = store.#index.get(`userCode:${userCode}`)
        return id ? this.find(id) : undefined
      }
      async consume(id: string): Promise<void> {
        const p = store.get(this.#key(id))
        if (p) p.consumed = Math.floor(Date.now() / 1000)
      }
      async destroy(id: string): Promise<void> {
        store.entries.delete(this.#key(id))
      }
      async revokeByGrantId(grantId: string): Promise<void> {
        for (const key of store.#grants.get(grantId) ?? []) store.entries.delete(key)
        store.#grants.delete(grantId)
      }
    }
  }

  /** Forgets everything (control API reset). */
  clear(): void {
    this.entries.clear()
    this.#index.clear()
    this.#grants.clear()
  }
}

/** oidc-provider's adapter interface. */
export interface Adapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>
  find(id: string): Promise<Record<string, unknown> | undefined>
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>
  consume(id: string): Promise<void>
  destroy(id: string): Promise<void>
  revokeByGrantId(grantId: string): Promise<void>
}
