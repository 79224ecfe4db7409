// Running a question through a processor's `search_tools`, as an agent's
// model would, and scoring where the right tool came: `eval`'s measure, and
// `npm run eval:search`'s and the retrieval floors' (scripts/retrieval.mjs).
// @mastra/core is imported when first needed, never at load, so the command
// line's --help answers at once.

/**
 * `search_tools` of a processor's first step, as a function of the query
 * giving its results (`[{ name, description, score }]`, best first).
 */
export async function searchToolOf(processor) {
  const { RequestContext } = await import('@mastra/core/request-context')
  const requestContext = new RequestContext()
  const messageList = { addSystem() {}, get: { all: { db: () => [] } } }
  const { tools } = await processor.processInputStep({
    messages: [],
    messageList,
    tools: {},
    requestContext,
    state: {},
    stepNumber: 0,
    steps: [],
    abort() {},
  })
  return async (query) => (await tools.search_tools.execute({ query }, { requestContext })).results ?? []
}

/** Where the first right answer is among the first `depth` results (0 the first), or -1. */
export function rankOf(results, isRight, depth = 5) {
  return results.slice(0, depth).findIndex(isRight)
}

/** hit@1, hit@5 and MRR@5 of a set of questions, from each question's `rankOf`. */
export class Quality {
  cases = 0
  hit1 = 0
  hit5 = 0
  reciprocal = 0

  add(rank) {
    this.cases++
    if (rank < 0) return
    this.hit5++
    if (rank === 0) this.hit1++
    this.reciprocal += 1 / (rank + 1)
  }

  get scores() {
    const n = Math.max(this.cases, 1)
    return { cases: this.cases, hit1: this.hit1 / n, hit5: this.hit5 / n, mrr5: this.reciprocal / n }
  }
}
