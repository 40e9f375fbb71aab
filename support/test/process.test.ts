import { describe, expect, it } from 'vitest'
import { launch, runProcess, stopLaunched } from '../src/process.js'

const node = process.execPath

describe('runProcess', () => {
  it('runs a command to its end with stdin closed, and returns its code and output', async () => {
    const r = await runProcess(node, [
      '-e',
      'process.stdin.resume();process.stdin.on("end",()=>{console.log("out");console.error("err");process.exit(3)})',
    ])
    expect(r).toEqual({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n' })
  })

  it('writes input to stdin', async () => {
    const r = await runProcess(node, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'hé' })
    expect(r.stdout).toBe('hé')
  })

  it('rejects when the command cannot start', async () => {
    await expect(runProcess('/nonexistent/command', [])).rejects.toThrow(/ENOENT/)
  })
})

describe('launch', () => {
  it('waits for output, keeps stdout and stderr apart, and stops the process', async () => {
    const p = launch(node, [
      '-e',
      'console.error("warming");console.log("ready");setInterval(()=>{},1e3)',
    ])
    await p.waitForOutput('ready', 'stdout')
    await p.waitForOutput(/warm/, 'stderr')
    expect(p.stdout()).toBe('ready\n')
    expect(p.stderr()).toBe('warming\n')
    expect(p.output()).toContain('ready')
    const end = await p.stop()
    expect(end.signal).toBe('SIGTERM')
  })

  it('rejects a wait when the process ends first, with its output', async () => {
    const p = launch(node, ['-e', 'console.log("bye");process.exit(2)'])
    await expect(p.waitForOutput('never')).rejects.toThrow(/ended \(2\) before writing never:\nbye/)
    expect((await p.exited).code).toBe(2)
  })

  it('stops every process still running with stopLaunched', async () => {
    const a = launch(node, ['-e', 'setInterval(()=>{},1e3)'])
    const b = launch(node, ['-e', 'setInterval(()=>{},1e3)'])
    await stopLaunched()
    expect((await a.exited).signal).toBe('SIGKILL')
    expect((await b.exited).signal).toBe('SIGKILL')
    // Stopping an ended process only returns how it ended.
    expect((await a.stop()).signal).toBe('SIGKILL')
  })
})
