'use strict'
// Reading the arguments Mastra hands a processor's hooks without letting
// compiled code depend on their hidden class.
//
// Mastra's runners build those arguments with spreads (`{ ...baseContext,
// messages, ... }` in 1.59, `{ prompt, ..., ...observability }` in 1.71), so
// their hidden classes are reached only through transitions, which V8 holds
// weakly, and die with each request. Code compiled against one (a property
// load that saw one class embeds it) is deoptimized by the next full
// collection, and runs unoptimized for many calls after: in a server, which
// collects between requests, for a good part of every request. Mastra's
// `RequestContext` is the same kind of object: a class whose instances get
// their field by a transition, made anew for each request.
//
// Imports nothing: a leaf every hook-driving room reads.

/**
 * `args[key]`. Every read of a hook's arguments goes through this one load
 * site, which sees many names and classes and so stays megamorphic: code
 * inlining it embeds no class of the caller's.
 */
function argument(args, key) {
  return args[key]
}
/**
 * `object[key]` of an object whose class dies with it: the binding's plain
 * answers, made property by property (a class reached by transitions). The
 * same load site as `argument`.
 */
const transientField = argument
// Megamorphic before any hook runs: V8 records feedback only once a function has run a few times.
for (let i = 0; i < 32; i++) argument({ [`warm${i % 8}`]: i }, `warm${i % 8}`)

/**
 * `requestContext.get(key)`, through one load and one call that see many
 * classes and functions: code inlining it embeds neither the request
 * context's class nor its `get` (which, inlined, would embed the class too).
 */
function contextValue(requestContext, key) {
  return requestContext.get(key)
}
// Eight functions of their own (closures of one function would count as one).
const warmGetters = [(_) => 0, (_) => 1, (_) => 2, (_) => 3, (_) => 4, (_) => 5, (_) => 6, (_) => 7]
for (let i = 0; i < 32; i++) contextValue({ [`warm${i % 8}`]: i, get: warmGetters[i % 8] }, `warm${i % 8}`)

/**
 * Calls `make` (a function returning one object literal of its `arity`
 * arguments) with values of many classes, so that each field of the
 * literal's class holds any class before real values come. A field that
 * held one class only (a request's `RequestContext`, say) would tie code
 * compiled for the literal to that class, and a full collection freeing it
 * would deoptimize that code. Guarded, with the rest of lib/'s V8 shape
 * upkeep, by __test__/tool-search.collection.test.mjs and
 * tool-call-filter.collection.test.mjs.
 */
function generalizeFields(make, arity) {
  for (const value of [undefined, {}, [], new Map(), () => {}, 'warm']) make(...new Array(arity).fill(value))
}

module.exports = { argument, contextValue, transientField, generalizeFields }
