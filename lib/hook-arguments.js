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
// collects between requests, for a good part of every request.

/**
 * `args[key]`. Every read of a hook's arguments goes through this one load
 * site, which sees many names and classes and so stays megamorphic: code
 * inlining it embeds no class of the caller's.
 */
function argument(args, key) {
  return args[key]
}
// Megamorphic before any hook runs: V8 records feedback only once a function has run a few times.
for (let i = 0; i < 32; i++) argument({ [`warm${i % 8}`]: i }, `warm${i % 8}`)

module.exports = { argument }
