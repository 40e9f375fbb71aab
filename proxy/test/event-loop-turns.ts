/**
 * How many turns of the event loop ran while `work` did: a callback that queues itself again each
 * turn (`setImmediate`) counts them. Work that never yields gives 1 at most; work paced over
 * bounded batches gives about a turn per batch.
 */
export async function turnsDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; turns: number }> {
  let turns = 0
  let done = false
  const tick = () => {
    if (done) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  try {
    return { result: await work(), turns }
  } finally {
    done = true
  }
}
