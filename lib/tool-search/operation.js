'use strict'
// A native operation driven to its end (the core's resumable operation,
// src/tool_search/operation.rs): each question Rust asks answered in the
// step (`answer`: the tool a name resolves to in the caller's record now,
// by record.js's `resolve`; or a tick), the user's `filter` hook asked as
// the reference's `isToolAllowed` asks it, one question at a time (`drive`,
// `questions`) or several at once (`driveAhead`), as a processor's `Driver`
// runs them; and the words an operation without questions writes its checks
// and `search_tools`' answer into (`takeWords`, `searchAnswer`). A step is a
// `StepTools` of pool.js, used through its methods and never imported. May
// import: hook-arguments.js, and this folder's common.js and record.js.

const { generalizeFields } = require('../hook-arguments.js')
const { PROTOCOL, ASK, KIND_MASK, FOUND_MASK } = require('./common.js')
const { resolve } = require('./record.js')

const OPERATION = PROTOCOL.operation

const FLAT = PROTOCOL.flat
/** `Int32Array` words per `Float64Array` element: where a score may start. */
const F64_WORDS = Float64Array.BYTES_PER_ELEMENT / Int32Array.BYTES_PER_ELEMENT

/**
 * The buffer an operation without questions writes its checks and
 * `search_tools`' answer into (laid out as the protocol's `flat` says), reused:
 * making one per call would cost more than a search of a small catalog. A
 * call made while it is in use (from a getter of the caller's record, say)
 * gets one of its own. Its size bounds only what goes this way: an answer
 * that does not fit comes as an object, checks that do not fit are asked as
 * the operation goes.
 */
const WORDS_LENGTH = 4096
class Words {
  constructor() {
    this.words = new Int32Array(WORDS_LENGTH)
    this.f64 = new Float64Array(this.words.buffer)
    this.busy = false
  }
}
const sharedWords = new Words()

function takeWords() {
  if (sharedWords.busy) return new Words()
  sharedWords.busy = true
  return sharedWords
}

function giveBackWords(words) {
  words.busy = false
}

/** `search_tools`' answer: `output` as the binding returned it, with `words` read when it is the text. */
function searchAnswer(output, { words, f64 }) {
  if (typeof output !== 'string') return output
  // The header: the number of results, then the message's length.
  const header = FLAT.checks + words[FLAT.count]
  const count = words[header]
  let start = words[header + 1]
  const message = output.slice(0, start)
  let at = Math.ceil((header + FLAT.header) / F64_WORDS) * F64_WORDS
  const results = new Array(count)
  for (let i = 0; i < count; i++, at += FLAT.resultWords) {
    const nameEnd = start + words[at + FLAT.nameLength]
    const end = nameEnd + words[at + FLAT.descriptionLength]
    results[i] = { name: output.slice(start, nameEnd), description: output.slice(nameEnd, end), score: f64[(at + FLAT.score) / F64_WORDS] }
    start = end
  }
  return { results, message }
}

/**
 * What `answer` needs to answer an operation's questions in a step: the
 * operation as `asked` names it (see `Driver`), the processor's `filter`,
 * and `allowed` as `answer` sets it.
 */
function askingOf(asked, filter) {
  const { operation, step, requestContext, awaits, phase } = asked
  return { operation, step, requestContext, filter, awaits, phase, allowed: OPERATION.allowed }
}
// Both literals made to hold any class first (why: `generalizeFields`;
// guarded by __test__/tool-search.collection.test.mjs): `asked` has the
// class of every caller's literal, whose fields `Driver` lists in this order.
generalizeFields((operation, step, requestContext, awaits, phase, filter) => askingOf({ operation, step, requestContext, awaits, phase }, filter), 6)

/**
 * How a processor drives its native operations to their end: with its
 * `filter` hook (undefined for none), `concurrency` questions at once (its
 * `filterConcurrency`). An operation is named as `asked`: `{ operation,
 * step, requestContext, awaits, phase }`, in that order (one class for every
 * caller's literal, see `askingOf`): the step it runs in, the request
 * context the hook is handed, whether it awaits as the reference (the
 * operation's `awaitsAsReference`) and the hook's `phase` (the operation's
 * `phase`; both given by the caller, which knows them without asking Rust).
 */
class Driver {
  constructor(filter, concurrency) {
    this.filter = filter
    this.concurrency = concurrency
  }

  /** Runs `asked.operation` to its end (see `drive`): one question at a time, or with `concurrency` above 1, that many at once. */
  run(asked) {
    const asking = askingOf(asked, this.filter)
    const concurrency = this.concurrency
    return concurrency === 1 ? drive(asking.operation, asking) : driveAhead(asking.operation, asking, concurrency)
  }

  /**
   * The questions of an operation that awaits as the reference (see
   * `questions`). Named apart from that function: the collection test knows
   * a function by its name in V8's traces, where two of one name would read
   * as one compiled again.
   */
  awaitedQuestions(asked) {
    const asking = askingOf(asked, this.filter)
    return questions(asking.operation, asking)
  }
}

/**
 * Answers an operation's question (the protocol's `operation`) in a step,
 * as `asking` says (see `Driver`): asks the hook about a tool, awaits a
 * tick, or says which tool the caller's record gives for a name now, and
 * whether the hook allows it. For an operation that `awaitsAsReference`,
 * every tool is asked about as the reference's `isToolAllowed` asks, and
 * `asking.allowed` says what allowing the tool of the pending question
 * answers (see `questions`). `ticket` is the question's when several are
 * out at once (`filterConcurrency` above 1; a tick has one like any
 * question).
 *
 * One function for every step, not a closure made per step: V8 keeps a
 * closure's optimized code only while one of its closures lives, so a full
 * collection between requests threw it away (issue 18; guarded by
 * __test__/tool-search.collection.test.mjs).
 */
function answer(asking, question, phase, ticket) {
  if (question === OPERATION.tick) return TICKED
  const { operation, step } = asking
  const kind = question & KIND_MASK
  const ref = question >> ASK.kindBits
  const isTool = kind === ASK.tool
  const missing = !isTool && (kind & FOUND_MASK) === ASK.missing
  const name = !missing ? undefined : ticket === undefined ? operation.questionName : operation.questionNameOf(ticket)
  const tool = isTool ? step.toolFor(ref) : resolve(step, kind, ref, name)
  if (tool === undefined) return OPERATION.denied
  // The record may give another tool than the tables found: one put under the key since.
  const allowed = !missing && tool === step.toolFor(ref) ? OPERATION.allowed : OPERATION.allowedAs + step.adopt(tool)
  const { filter, requestContext } = asking
  if (asking.awaits) {
    // Several out at once (`driveAhead`): each promise settles to its own code.
    if (ticket !== undefined) return isToolAllowed(filter, tool, requestContext, phase).then((ok) => (ok ? allowed : OPERATION.denied))
    asking.allowed = allowed
    return isToolAllowed(filter, tool, requestContext, phase)
  }
  if (filter === undefined) return allowed
  const verdict = askFilter(filter, tool, requestContext, phase)
  if (typeof verdict === 'number') return verdict === OPERATION.allowed ? allowed : verdict
  return verdict.then((code) => (code === OPERATION.allowed ? allowed : code))
}

/**
 * Runs a native operation to its end, answering each of its questions as
 * `asking` says (see `answer`): synchronously while it answers
 * synchronously, awaiting only a promise (where the reference awaits too).
 * Gives the operation back, or a promise of it. The protocol is described
 * with the core's resumable operation (src/tool_search/operation.rs).
 */
/** @param {any} operation @param {any} asking @param {number | Promise<number>} [given] @returns {any} */
function drive(operation, asking, given = OPERATION.noVerdict) {
  const phase = asking.phase
  for (let question = operation.resume(given); question !== OPERATION.done; question = operation.resume(given)) {
    given = answer(asking, question, phase, undefined)
    if (typeof given !== 'number') return given.then((code) => drive(operation, asking, code))
  }
  return operation
}

const BATCH = OPERATION.batch

/**
 * Runs a native operation that may ask about several tools at once
 * (`filterConcurrency` above 1; the protocol's `operation.batch`): Rust
 * hands out the questions to ask now, the next ones in order, and decides in
 * order as the answers come. A synchronous answer goes back with the next
 * call, a promise's when it settles. Gives the operation back, or a promise
 * of it that settles once every question asked has its answer (no hook call
 * is left pending, even one Rust no longer needs), rejecting with the first
 * error thrown (a record value Rust refuses, say).
 */
function driveAhead(operation, asking, concurrency) {
  const phase = asking.phase
  const room = Math.min(concurrency, BATCH.maxQuestions)
  const questions = new Int32Array(room * BATCH.entryWords)
  let answers = new Int32Array(room * BATCH.entryWords)
  let given = 0
  let waiting = 0
  let done = false
  let failed = false
  let failure
  let settle

  const give = (ticket, code) => {
    if ((given + 1) * BATCH.entryWords > answers.length) {
      const grown = new Int32Array(answers.length * 2)
      grown.set(answers)
      answers = grown
    }
    answers[given * BATCH.entryWords + BATCH.ticket] = ticket
    answers[given * BATCH.entryWords + BATCH.code] = code
    given++
  }
  const fail = (error) => {
    if (failed) return
    failed = true
    failure = error
  }
  const pump = () => {
    try {
      while (!done && !failed) {
        const count = operation.exchange(answers, given, questions)
        given = 0
        if (count === OPERATION.done) {
          done = true
          break
        }
        for (let i = 0; i < count; i++) {
          const at = i * BATCH.entryWords
          const ticket = questions[at + BATCH.ticket]
          const verdict = answer(asking, questions[at + BATCH.code], phase, ticket)
          if (typeof verdict === 'number') give(ticket, verdict)
          else {
            waiting++
            verdict.then(
              (code) => settled(ticket, code, false),
              (error) => settled(ticket, error, true),
            )
          }
        }
        // Nothing to hand back and nothing more to ask: the hook has the rest.
        if (given === 0 && count < room) break
      }
    } catch (error) {
      fail(error)
    }
  }
  const settled = (ticket, value, rejected) => {
    waiting--
    if (rejected) fail(value)
    else if (!done && !failed) {
      give(ticket, value)
      pump()
    }
    if (waiting === 0 && (done || failed)) settle()
  }

  pump()
  if (waiting === 0) {
    if (failed) throw failure
    return operation
  }
  return new Promise((resolve, reject) => {
    settle = () => (failed ? reject(failure) : resolve(operation))
  })
}

/**
 * The questions of an operation that awaits as the reference (see
 * `NativeOperation.awaitsAsReference`), answered as `asking` says (see
 * `answer`): each answer that is a promise (a tick, or the reference's
 * `isToolAllowed` for a tool) is yielded, for the execute that drives it to
 * await where the reference's execute awaits; what a tool's settles to
 * allows it when truthy, as `asking.allowed` says.
 */
function* questions(operation, asking) {
  const phase = asking.phase
  let given = OPERATION.noVerdict
  for (let question = operation.resume(given); question !== OPERATION.done; question = operation.resume(given)) {
    given = answer(asking, question, phase, undefined)
    if (typeof given === 'number') continue
    const settled = yield given
    given = given === TICKED ? OPERATION.noVerdict : settled ? asking.allowed : OPERATION.denied
  }
}

/** A tick's answer: awaited, one turn of the microtask queue, as the reference's `await` of a value that is no promise. */
const TICKED = Promise.resolve(OPERATION.noVerdict)

/** The `filter` hook's argument, as the reference makes it. */
function filterArguments(tool, requestContext, phase) {
  return { toolName: tool.id, tool, requestContext, phase }
}
// Why: `generalizeFields`; guarded by __test__/tool-search.collection.test.mjs.
generalizeFields((tool, requestContext, phase) => filterArguments({ id: tool }, requestContext, phase), 3)

/**
 * The reference's `isToolAllowed(tool, requestContext, phase)`, line for
 * line: its awaits (so that its promise settles in the same turn of the
 * microtask queue) and its reads of the answer's `then` are the reference's.
 */
async function isToolAllowed(filter, tool, requestContext, phase) {
  if (!filter) return true
  try {
    return await filter(filterArguments(tool, requestContext, phase))
  } catch {
    return false
  }
}

/**
 * Calls the user's hook; a verdict code, or a promise of one (Rust decides
 * what each means). A primitive answer is judged at once. An object (a
 * promise, a thenable, anything else) is settled as the reference settles it,
 * whose `isToolAllowed` is `try { return await filter(...) } catch { return
 * false }`, itself awaited: `await` reads `then` (or a promise's
 * `constructor`) and may throw, which is "not allowed", and the value is
 * resolved once more on return, reading `then` again outside the `catch`.
 */
function askFilter(filter, tool, requestContext, phase) {
  let answer
  try {
    answer = filter(filterArguments(tool, requestContext, phase))
  } catch {
    return OPERATION.failed
  }
  if (answer !== null && (typeof answer === 'object' || typeof answer === 'function')) {
    return settleAsReference(answer).then((value) => (value ? OPERATION.allowed : OPERATION.denied))
  }
  return answer ? OPERATION.allowed : OPERATION.denied
}

/** The reference's `isToolAllowed` around an answer already in hand. */
async function settleAsReference(answer) {
  try {
    return await answer
  } catch {
    return false
  }
}

module.exports = { takeWords, giveBackWords, searchAnswer, Driver }
