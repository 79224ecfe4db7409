'use strict'
// A native operation driven to its end (the core's resumable operation,
// src/tool_search/operation.rs): each question Rust asks answered in the
// step (`answer`: the tool a name resolves to in the step's record now, the
// record's keys, a tick), the user's `filter` hook asked as the reference's
// `isToolAllowed` asks it, one question at a time (`drive`, `questions`) or
// several at once (`driveAhead`); a record's ids read once an operation
// (`IdLookups`); and the words an operation without questions writes its
// checks and `search_tools`' answer into (`takeWords`, `searchAnswer`). A
// step is a `StepTools` of pool.js, used through its methods and never
// imported. May import: native.js, hook-arguments.js, and this folder's
// common.js and record.js.

const { refuseToolSearchValue } = require('../native.js')
const { generalizeFields } = require('../hook-arguments.js')
const { PROTOCOL, ASK, KIND_MASK, FOUND_MASK, READ_MASK, REFUSED, RECORD_VALUES } = require('./common.js')
const { isTool, toolById } = require('./record.js')

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
 * The tool the step's record gives now for a name Rust resolved (the
 * protocol's `operation.ask`): `kind` says what its tables found (the tool
 * `ref` by key, by id, or under the key that is the name for lack of an id,
 * or nothing: `missingName` then given), and which reads to make, in order,
 * until one gives a tool. Rust chose them as the reference looks the name up.
 */
function resolve(step, kind, ref, missingName, asking) {
  const name = nameAsked(step, kind, ref, missingName)
  // With a hook, the tool the tables found must also be the first with that
  // id (`standingFirst`): the reference asks the hook about that one.
  const hooked = asking.filter !== undefined
  for (let reads = kind >> ASK.foundBits; reads !== 0; reads >>= ASK.readBits) {
    const read = reads & READ_MASK
    const tool =
      read === ASK.ownKey
        ? step.own(name)
        : read === ASK.standing
          ? hooked
            ? standingFirst(asking, step, ref, name)
            : step.standing(ref, name)
          : idLookups(asking, step).firstById(name)
    if (tool !== undefined) return tool
  }
  return undefined
}

/**
 * For an operation with a hook (`asking`): the tool `ref` where it still
 * answers to `name` (`standing`) and no tool before it in key order took
 * that id since the tables were made, else the first tool with that id,
 * read as the reference reads it (`firstById`). Whether one before it took
 * the id is read once an operation (`IdLookups`, as far as its lookups need),
 * and again where the hook changed the id of the tool it was last asked
 * about. So an edit made before the operation, or by the hook to the tool it
 * was asked about, is seen; one the hook makes to another tool before the
 * one found, which the reference's scan at each lookup would see, is not (a
 * scan at each lookup makes a catalog of n tools take n²).
 */
function standingFirst(asking, step, ref, name) {
  const tool = step.standing(ref, name)
  if (tool === undefined) return undefined
  return idLookups(asking, step).find(name) === tool ? tool : step.firstById(name)
}

/**
 * The operation's reading of the step's record by id (`IdLookups`), begun
 * at the first lookup that needs it and kept for the operation's later
 * ones: a name is looked up among the tools' ids once an operation, not
 * once a name (a scan at each lookup makes n names of an n-tool record take
 * n², as the reference's `Object.values(tools).find` does). With a hook, read
 * again where the hook changed the id of the tool it was last asked about.
 */
function idLookups(asking, step) {
  const asked = asking.asked
  if (asked !== undefined) {
    asking.asked = undefined
    if (asked.id !== asking.askedId) asking.lookups = undefined
  }
  let lookups = asking.lookups
  if (lookups === undefined) {
    lookups = new IdLookups(step.record())
    asking.lookups = lookups
  }
  return lookups
}

/**
 * A record's tools by id, read as `toolById` reads it, as far as the names
 * looked up need: its keys once, then each key's tool and its id in key
 * order, up to the first tool with the id asked for (the reads the
 * reference's scan makes for that name, and no more).
 */
class IdLookups {
  constructor(record) {
    this.record = record
    this.keys = Object.keys(record)
    /** The tool read under each key of `keys` read so far (none for a key deleted since). */
    this.tools = []
    /** The first key (its index) read with each id. */
    this.byId = new Map()
  }

  find(id) {
    const known = this.byId.get(id)
    if (known !== undefined) return this.tools[known]
    const { record, keys, tools, byId } = this
    while (tools.length < keys.length) {
      const at = tools.length
      const key = keys[at]
      // A key the hook deleted since holds no tool.
      if (!Object.hasOwn(record, key)) {
        tools.push(undefined)
        continue
      }
      const tool = record[key]
      isTool(tool, key, RECORD_VALUES, false)
      tools.push(tool)
      const toolId = tool.id
      if (!byId.has(toolId)) byId.set(toolId, at)
      if (toolId === id) return tool
    }
    return undefined
  }

  /**
   * The step's `firstById` read: the first tool with `id` in this reading,
   * where it still stands under its key with that id; else (an edit since
   * moved it or changed its id) the record as it is now, scanned. A tool
   * that took the id since this reading, coming before, is not seen (see
   * `standingFirst`).
   */
  firstById(id) {
    const tool = this.find(id)
    if (tool === undefined) return undefined
    const { record } = this
    const key = this.keys[this.byId.get(id)]
    return Object.hasOwn(record, key) && record[key] === tool && tool.id === id ? tool : toolById(record, id)
  }
}

/** The name a question of `kind` is about: the id or the key of the tool `ref` the tables found, or `missingName`. */
function nameAsked(step, kind, ref, missingName) {
  const found = kind & FOUND_MASK
  return found === ASK.byId ? step.idOf(ref) : found === ASK.missing ? missingName : step.keyOf(ref)
}

/** What `answer` needs to answer an operation's questions in a step (`#drive`, `#questions`), `allowed` as `answer` sets it. */
function askingOf(operation, step, requestContext, names, filter, awaits, phase, lookups, asked, askedId) {
  return { operation, step, requestContext, names, filter, awaits, phase, allowed: OPERATION.allowed, lookups, asked, askedId }
}
generalizeFields(askingOf, 10)

/**
 * Answers an operation's question (the protocol's `operation`) in a step,
 * as `asking` says (see `#drive`): asks the hook about a tool, hands over
 * the record's keys, awaits a tick, or says which tool the step's record
 * gives for a name now, and whether the hook allows it. For an operation that
 * `awaitsAsReference`, every tool is asked about as the reference's
 * `isToolAllowed` asks, and `asking.allowed` says what allowing the tool of
 * the pending question answers (see `questions`). A listing that `names`
 * its tools hands Rust the name of each tool allowed when it is not the id
 * the tables hold for it (`tool.id || key`, read once the hook answered, as
 * the reference does). `ticket` is the question's when several are out at
 * once (`filterConcurrency` above 1; a tick has one like any question).
 *
 * One function for every step, not a closure made per step: V8 keeps a
 * closure's optimized code only while one of its closures lives, so a full
 * collection between requests threw it away (issue 18).
 */
function answer(asking, question, phase, ticket) {
  if (question === OPERATION.tick) return TICKED
  const { operation, step } = asking
  if (question === OPERATION.needKeys) {
    // The keys only, as the reference's `Object.keys`: Rust asks about each key it looks up.
    const keys = Object.keys(step.record())
    const lengths = new Int32Array(keys.length)
    for (let i = 0; i < keys.length; i++) lengths[i] = keys[i].length
    operation.useKeys(keys.join(''), lengths)
    return OPERATION.noVerdict
  }
  const kind = question & KIND_MASK
  const ref = question >> ASK.kindBits
  const isTool = kind === ASK.tool
  const missing = !isTool && (kind & FOUND_MASK) === ASK.missing
  const name = !missing ? undefined : ticket === undefined ? operation.questionName : operation.questionNameOf(ticket)
  const tool = isTool ? step.toolFor(ref) : resolve(step, kind, ref, name, asking)
  if (tool === undefined) return OPERATION.denied
  const tables = !missing && tool === step.toolFor(ref)
  const allowed = tables ? OPERATION.allowed : OPERATION.allowedAs + step.adopt(tool)
  const { filter, requestContext } = asking
  if (filter !== undefined) {
    // Should the hook change this tool's id, the names after it are looked up in the record again (see `idLookups`).
    asking.asked = tool
    asking.askedId = tool.id
  }
  if (asking.awaits) {
    // Several out at once (`driveAhead`): each promise settles to its own code.
    if (ticket !== undefined) return isToolAllowed(filter, tool, requestContext, phase).then((ok) => (ok ? allowed : OPERATION.denied))
    asking.allowed = allowed
    return isToolAllowed(filter, tool, requestContext, phase)
  }
  const verdict = filter === undefined ? OPERATION.allowed : askFilter(filter, tool, requestContext, phase)
  if (typeof verdict === 'number') return allowedAnswer(asking, verdict, allowed, tool, tables, isTool ? ASK.byKey : kind, ref, ticket, name)
  return verdict.then((code) => allowedAnswer(asking, code, allowed, tool, tables, isTool ? ASK.byKey : kind, ref, ticket, name))
}

/** The hook's `code` for a tool: when allowed, `allowed` (as the tool the record gives), the tool named for a listing once the hook answered. */
function allowedAnswer(asking, code, allowed, tool, tables, kind, ref, ticket, name) {
  if (code !== OPERATION.allowed) return code
  const { operation, step } = asking
  if (asking.names && !(tables && tool.id === step.idOf(ref))) nameTool(operation, tool, step, kind, ref, ticket, name)
  return allowed
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
 * Tells a listing the name of an allowed tool that is not what its tables
 * say (another tool, or its id changed): `tool.id`, read now, which Rust
 * names as the reference lists it (`tool.id || key`); an id that names
 * nothing is refused, as in any tools record.
 */
function nameTool(operation, tool, step, kind, ref, ticket, missingName) {
  const id = tool.id
  // With several answers at once (`ticket`), the name goes with its own.
  if (ticket === undefined ? operation.useName(id) : operation.useNameOf(ticket, id)) return
  refuseToolSearchValue(REFUSED.toolId, nameAsked(step, kind, ref, missingName), id)
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

module.exports = { takeWords, giveBackWords, searchAnswer, resolve, askingOf, drive, driveAhead, questions, IdLookups }
