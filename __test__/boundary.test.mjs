// The Node-API boundary itself: no panic can abort Node, the binding refuses
// buffers it could not safely read or write, and the JavaScript halves give
// memory back after an outsized call.

import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const root = join(dirname(fileURLToPath(import.meta.url)), '..')

describe('panics', () => {
  test('a panic behind the boundary is a JavaScript Error, and Node goes on', () => {
    assert.throws(
      () => native.__panicForTesting('deliberate'),
      (error) => error instanceof Error && error.message === 'deliberate',
    )
    // Still alive, and the addon still answers.
    assert.equal(native.mastraPeerRange(), '^1.59.0')
  })

  test('every function, method, constructor and getter the binding exports catches panics', () => {
    const dir = join(root, 'napi', 'src')
    const missing = []
    let exported = 0
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.rs'))) {
      const lines = readFileSync(join(dir, file), 'utf8').split('\n')
      lines.forEach((line, i) => {
        const attribute = line.trim()
        if (!attribute.startsWith('#[napi')) return
        // The item the attribute belongs to: the next line that is not an attribute or a comment.
        const item = lines.slice(i + 1).find((next) => !/^\s*(#\[|\/\/)/.test(next)) ?? ''
        if (!/\bfn\b/.test(item)) return
        exported++
        // Runs once, as the addon loads, to export the plain callbacks checked below.
        if (attribute === '#[napi(module_exports)]') return
        if (!attribute.includes('catch_unwind')) missing.push(`${file}:${i + 1} ${item.trim()}`)
      })
    }
    assert.ok(exported > 20, `found only ${exported} exported functions: the scan is broken`)
    assert.deepEqual(missing, [])
  })

  test('every plain Node-API callback runs its body through raw::enter, which catches panics', () => {
    const dir = join(root, 'napi', 'src')
    const missing = []
    let callbacks = 0
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.rs'))) {
      const source = readFileSync(join(dir, file), 'utf8')
      // Each `extern "C" fn` up to the first line that closes it.
      for (const [body, name] of source.matchAll(/extern "C" fn (\w+)\([\s\S]*?\n\}/g)) {
        callbacks++
        if (!body.includes('raw::enter')) missing.push(`${file} ${name}`)
      }
    }
    assert.ok(callbacks >= 2, `found only ${callbacks} plain callbacks: the scan is broken`)
    assert.deepEqual(missing, [])
  })

  test('a panic in a plain Node-API callback is a JavaScript Error too', () => {
    assert.throws(
      () => native.__panicInPlainCallbackForTesting(),
      (error) => error instanceof Error && error.message === 'a deliberate panic in a plain callback',
    )
    assert.equal(native.mastraPeerRange(), '^1.59.0')
  })
})

const { prompt: T, promptInput: INPUT, modelOutput: NODE } = native.toolCallFilterProtocol()

/** The prompt filter's input for one round: its head, then the tape, history and outputs given. */
function promptInput({ preserve = false, tape, history, outputs }) {
  const head = []
  head[INPUT.flags] = preserve ? INPUT.preserveModelOutput | INPUT.everyResult : INPUT.everyResult
  head[INPUT.excludeLength] = INPUT.absent
  head[INPUT.tapeLength] = tape.length
  head[INPUT.historyLength] = history?.length ?? INPUT.absent
  head[INPUT.outputsLength] = outputs?.length ?? INPUT.absent
  return Int32Array.from([...head, ...tape, ...(history ?? []), ...(outputs ?? [])])
}

describe('buffers handed to the binding', () => {
  // The message-list planner with options `{}`.
  const filter = { plan: (...args) => native.planMessageList(false, undefined, ...args) }
  // One message with one tool call: [count, WITH_PARTS, TEXT_ABSENT, 1 part, PART_TOOL, STATE_CALL, 0, id 0, NO_OUTPUT]
  const { messageList: TAPE } = native.toolCallFilterProtocol()
  const history = [1, TAPE.withParts, TAPE.textAbsent, 1, TAPE.partTool, TAPE.stateCall, 0, 0, TAPE.noOutput]

  test('a plan is written into a separate buffer', () => {
    const out = new Int32Array(16)
    assert.equal(filter.plan(undefined, Int32Array.from(history), undefined, 0, out), 1)
    const { plan } = native.toolCallFilterProtocol()
    assert.equal(out[0], plan.drop)
  })

  test('an answer buffer that shares memory with the tape is refused', () => {
    const buffer = new Int32Array(64)
    buffer.set(history)
    const tape = buffer.subarray(0, history.length)
    for (const out of [tape, buffer, buffer.subarray(5, 20)]) {
      assert.throws(() => filter.plan(undefined, tape, undefined, 0, out), /shares memory/)
    }
    // Views of one buffer that do not overlap are fine.
    assert.equal(filter.plan(undefined, tape, undefined, 0, buffer.subarray(history.length)), 1)
  })

  test("an answer buffer that shares memory with a step's response is refused", () => {
    const buffer = new Int32Array(64)
    buffer.set(history)
    const response = buffer.subarray(0, history.length)
    const none = new Int32Array(0)
    assert.throws(() => native.advanceMessageListSteps(2, none, none, response, buffer.subarray(4)), /shares memory/)
    assert.ok(native.advanceMessageListSteps(2, none, none, response, buffer.subarray(history.length)) > 0)
  })

  test('an answer buffer that shares memory with the kept ids is refused', () => {
    const out = new Int32Array(16)
    assert.throws(() => filter.plan(undefined, Int32Array.from(history), out.subarray(0, 1), 0, out), /shares memory/)
  })

  test('an answer longer than its buffer is measured, never written past it, whatever the length', () => {
    // One assistant call and its result, which leaves its output's three strings as text.
    const tape = [2, T.parts | T.assistant, 1, T.toolCall + T.callIdUnit, T.parts, 1, T.toolResult + T.callIdUnit]
    const outputs = [NODE.array, NODE.noJson, 3, NODE.string, 0, 1, NODE.string, 1, 1, NODE.string, 2, 1]
    const input = promptInput({ preserve: true, tape, outputs })
    const ask = (out) => native.filterPrompt(input, out, undefined)
    const whole = new Int32Array(64)
    const length = ask(whole)
    assert.ok(length > 8, `the answer is ${length} long`)
    for (let size = 0; size < length; size++) {
      // Marked past the buffer's end to see that nothing is written there.
      const buffer = new Int32Array(size + 4).fill(-7)
      assert.equal(ask(buffer.subarray(0, size)), -length, `a buffer of ${size}`)
      assert.deepEqual([...buffer.subarray(size)], [-7, -7, -7, -7])
    }
    const exact = new Int32Array(length)
    assert.equal(ask(exact), length)
    assert.deepEqual(exact, whole.subarray(0, length))
  })

  test('views of a SharedArrayBuffer are refused, as tape and as answer buffer', () => {
    const shared = new Int32Array(new SharedArrayBuffer(64 * 4))
    shared.set(history)
    assert.throws(() => filter.plan(undefined, shared.subarray(0, history.length), undefined, 0, new Int32Array(16)), /SharedArrayBuffer/)
    assert.throws(() => filter.plan(undefined, Int32Array.from(history), undefined, 0, shared), /SharedArrayBuffer/)
    const input = promptInput({ tape: [0] })
    shared.set(input)
    assert.throws(() => native.filterPrompt(shared.subarray(0, input.length), new Int32Array(8), undefined), /SharedArrayBuffer/)
    assert.throws(() => native.filterPrompt(input, shared, undefined), /SharedArrayBuffer/)
  })

  test('a buffer that is no Int32Array is refused, as tape and as answer buffer', () => {
    const input = promptInput({ tape: [0] })
    for (const value of [undefined, null, 7, 'tape', [0, 0], {}, new Float64Array(8), new Uint32Array(8), new DataView(new ArrayBuffer(32))]) {
      assert.throws(() => native.filterPrompt(value, new Int32Array(8), undefined), /expected an Int32Array/)
      assert.throws(() => native.filterPrompt(input, value, undefined), /expected an Int32Array/)
      assert.throws(() => filter.plan(undefined, value, undefined, 0, new Int32Array(16)), /expected an Int32Array/)
    }
    assert.equal(native.filterPrompt(input, new Int32Array(8), undefined), 2)
  })

  test("the prompt filter's answer buffer may not share memory with its input", () => {
    const buffer = new Int32Array(64)
    const input = promptInput({ tape: [0] })
    buffer.set(input)
    assert.throws(() => native.filterPrompt(buffer, buffer.subarray(input.length), undefined), /shares memory/)
    assert.equal(native.filterPrompt(buffer.subarray(0, input.length), buffer.subarray(input.length), undefined), 2)
  })
})

describe('memory', () => {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc')

  test('the shared buffers are given back after an outsized call', async () => {
    const { ToolCallFilter } = require('../index.js')
    const filter = new ToolCallFilter({ preserveModelOutput: true })
    const part = (i) => ({ type: 'tool-call', toolCallId: `c${i}`, toolName: 'search', input: {} })
    const result = (i) => ({ type: 'tool-result', toolCallId: `c${i}`, toolName: 'search', output: { type: 'text', value: `r${i}` } })
    const huge = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]
    for (let i = 0; i < 200_000; i++) huge.push({ role: 'assistant', content: [part(i)] }, { role: 'tool', content: [result(i)] })
    const small = huge.slice(0, 5)

    // Freed backing stores are released by a sweeper that may run after `gc()` returns.
    const settled = async () => {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 50))
      gc()
      return process.memoryUsage().arrayBuffers
    }
    await filter.processLLMRequest({ prompt: small, state: {} })
    const before = await settled()
    await filter.processLLMRequest({ prompt: huge, state: {} })
    await filter.processLLMRequest({ prompt: small, state: {} })
    const after = await settled()
    // The huge call's tape alone is over 7 MiB; what stays is a few small buffers.
    assert.ok(after - before < 1024 * 1024, `kept ${((after - before) / 1048576).toFixed(1)} MiB after the huge call`)
  })
})
