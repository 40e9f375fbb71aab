import { once } from 'node:events'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { createLogging } from '../../src/telemetry/logging.js'
import { batchedLines, type LineSink } from '../../src/telemetry/stdout-lines.js'

describe('batchedLines', () => {
  function sink(): LineSink & { got: string[] } {
    const got: string[] = []
    return {
      got,
      write(text) {
        got.push(text)
        return true
      },
      flush(cb) {
        got.push('<flush>')
        cb?.()
      },
      flushSync() {
        got.push('<flushSync>')
      },
    }
  }

  it('hands the sink nothing below the batch size, then the pending lines joined in one write', () => {
    const s = sink()
    const out = batchedLines(s, 12)
    out.write('abcd\n')
    out.write('efgh\n')
    expect(s.got).toEqual([])
    out.write('ij\n')
    out.write('k\n')
    expect(s.got).toEqual(['abcd\nefgh\nij\n'])
  })

  it('writes the batch before the sink flushes, on its own timer or at exit, in order', () => {
    const s = sink()
    const out = batchedLines(s, 1024)
    out.write('one\n')
    s.flush(null) // sonic-boom's periodic flush calls its own flush
    out.write('two\n')
    s.flushSync() // pino's exit handler
    out.write('three\n')
    out.flushSync()
    s.flushSync()
    expect(s.got).toEqual([
      'one\n',
      '<flush>',
      'two\n',
      '<flushSync>',
      'three\n',
      '<flushSync>',
      '<flushSync>',
    ])
  })

  it('leaves no line behind in a real sonic-boom flushed at exit', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-log-')), 'out.log')
    const boom = pino.destination({ dest: file, sync: false, minLength: 0 })
    await once(boom, 'ready')
    const logging = createLogging({ destination: batchedLines(boom, 12 * 1024) })
    const lines = logging.safeLines('proxy::access')
    for (let i = 0; i < 1000; i++) lines.write({ i }, 'request')
    logging.logger('proxy::config').warn('last')
    boom.flushSync()
    const written = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(written.map((l) => l.i ?? l.msg)).toEqual([
      ...Array.from({ length: 1000 }, (_, i) => i),
      'last',
    ])
  })
})
