// Types of mastra-native-processors. The classes are typed as the installed
// @mastra/core's own ToolSearchProcessor and ToolCallFilter, because at run time
// they behave as that release's and expose the same hooks (`processInput` and
// `processInputStep` up to 1.59, `processLLMRequest` from 1.60): code written
// against Mastra's docs compiles unchanged after the import swap.

import type {
  ToolCallFilter as HostToolCallFilter,
  ToolSearchFilterArgs,
  ToolSearchFilterPhase,
  ToolSearchProcessor as HostToolSearchProcessor,
  ToolSearchProcessorOptions as HostToolSearchProcessorOptions,
} from '@mastra/core/processors' with { 'resolution-mode': 'import' }

export type { ToolSearchFilterArgs, ToolSearchFilterPhase }

/**
 * Which processors this import serves: `'native'`, this package's Rust addon;
 * `'fallback'`, `@mastra/core`'s own `ToolSearchProcessor` and `ToolCallFilter`
 * (stderr said why, once, at import; `fallbackReason` says it too).
 */
export declare const implementation: 'native' | 'fallback'

/**
 * Why `@mastra/core`'s own processors are served, in one sentence, or `null`
 * when this package's run: no build of the addon loaded on this platform; the
 * installed `@mastra/core` is a release whose processors this version of the
 * package does not know (a later release that changed them, a pre-release);
 * or `MASTRA_NATIVE_PROCESSORS=fallback` is set.
 */
export declare const fallbackReason: string | null

// ─── ToolCallFilter ─────────────────────────────────────────────────────────

/** `exclude`, `filterAfterToolSteps` and `preserveModelOutput`, as the installed release declares them. */
export type ToolCallFilterOptions = NonNullable<ConstructorParameters<typeof HostToolCallFilter>[0]>

/** Removes tool calls and their results from what the model is sent, as the installed release's own does. */
export type ToolCallFilter = HostToolCallFilter
export declare const ToolCallFilter: typeof HostToolCallFilter

// ─── ToolSearchProcessor ────────────────────────────────────────────────────

/**
 * How `search_tools` ranks tools. `'reference'` ranks exactly as @mastra/core
 * does (BM25 over `"<id> <description>"`, plus name boosts). `'fielded'` also
 * reads each tool's input schema (top-level parameter names and descriptions)
 * and splits identifiers, stems words and matches CJK text: better results for
 * whole questions, different scores. `'hybrid'` adds to the `'fielded'` score
 * the semantic similarity of question and tool, from the built-in model (the
 * optional package `mastra-native-processors-potion-base-8m` must be
 * installed; hand it over as `search.model` so that `mastra build` and
 * bundlers ship it) or from `search.embedder`. Every supported release honours it;
 * where the addon does not load (`implementation === 'fallback'`),
 * @mastra/core's own processor ignores it and ranks as `'reference'`.
 */
export type ToolSearchRanking = 'reference' | 'fielded' | 'hybrid'

/**
 * An AI SDK embedding model, as Mastra's Memory takes one for semantic recall
 * (`EmbeddingModel<string>` of `ai` v5, e.g. `openai.embedding('text-embedding-3-small')`):
 * `search.embedder` of the `'hybrid'` ranking. Its `doEmbed` is called with
 * the tools' texts at construction (in batches of `maxEmbeddingsPerCall`, in
 * parallel when `supportsParallelCalls`; each text once per model) and with
 * each `search_tools` question.
 */
export interface ToolSearchEmbedder {
  doEmbed(options: { values: string[] }): PromiseLike<{ embeddings: ArrayLike<number>[] }>
  readonly maxEmbeddingsPerCall?: PromiseLike<number | undefined> | number | undefined
  readonly supportsParallelCalls?: PromiseLike<boolean> | boolean
}

/**
 * The built-in embedding model's package, as it exports itself
 * (`import model from 'mastra-native-processors-potion-base-8m'`): `search.model`
 * of the `'hybrid'` ranking. Only its `path`, the model file, is read.
 */
export interface ToolSearchBuiltinModel {
  readonly path: string
}

/**
 * What `search_tools`' query is. `'words'` is @mastra/core's: keywords,
 * ranked by `search.ranking`. `'regex'` makes it a regular expression (Rust's
 * `regex` crate: linear time whatever the pattern, within size limits),
 * matched case-insensitively (unless it says `(?-i)`) against each tool's
 * name, description, parameter names and parameter descriptions (the
 * input schema's top level, read as the `'fielded'` ranking reads it). A
 * result's score is the sum of the weights of the fields that match (name 3,
 * description 1, a parameter's name 1, a parameter's description 0.5), so
 * tools whose name matches come first; ties keep the catalog's order.
 * `topK`, `minScore` (on these scores), `autoLoad`, the `filter` hook and
 * `injectCatalog` work as with words; `ranking` has no effect (it is still
 * checked), and `embedder` is never called. A malformed pattern is answered
 * with a message saying what is wrong with it, never an error. The instruction,
 * `search_tools`' description and query, and the injected catalog's header
 * say it takes a pattern; with `'words'` they are @mastra/core's. Every
 * supported release honours it; where the addon does not load
 * (`implementation === 'fallback'`), @mastra/core's own processor ignores it
 * and takes words.
 */
export type ToolSearchSyntax = 'words' | 'regex'

/**
 * The installed release's options, plus every option of the newest supported
 * release, so one project compiles whichever supported release it has, plus
 * this package's own `search.ranking`, `search.embedder`, `search.model`, `search.syntax` and
 * `filterConcurrency`.
 */
export type ToolSearchProcessorOptions = HostToolSearchProcessorOptions & {
  /**
   * Also list the available tools (name and short description, as the `filter`
   * hook allows them in phase `'search'`) in the system prompt, so the model
   * can load one without searching first. From @mastra/core 1.67.0; earlier
   * releases ignore it, and so does this package next to them. @default false
   */
  injectCatalog?: boolean
  search?: {
    /** How `search_tools` ranks tools (this package only). @default 'reference' */
    ranking?: ToolSearchRanking
    /**
     * With `ranking: 'hybrid'`: your embedding model makes the vectors, in
     * place of the built-in model (this package only). Until the tools'
     * vectors are in, and whenever the model fails (said once, as a process
     * warning), `search_tools` ranks as `'fielded'`.
     */
    embedder?: ToolSearchEmbedder
    /**
     * With `ranking: 'hybrid'` and no `embedder`: the built-in model, handed
     * over (`import model from 'mastra-native-processors-potion-base-8m'`;
     * this package only). Without it the package finds the model package
     * from its own directory, which works in a project but not in an app that
     * `mastra build` or a bundler ships, since nothing there imports the
     * model package. Where there is no model file, a process warning says so
     * once and `search_tools` ranks as `'fielded'`.
     */
    model?: ToolSearchBuiltinModel
    /** What `search_tools`' query is (this package only). @default 'words' */
    syntax?: ToolSearchSyntax
  }
  /**
   * How many tools the `filter` hook may be asked about at once (this package
   * only): a positive integer. With 1, the hook is asked one tool at a time,
   * as @mastra/core asks it. Above 1, an asynchronous hook (a permission
   * lookup, say) is asked about the next tools in order, up to this many at a
   * time, in every phase (`'search'`, `'load'`, `'active'`); the answers are
   * the same as one at a time, in the same order. A search, or `load_tool`'s
   * "did you mean" suggestions, may ask about up to this many minus one tools
   * more than it needs, having asked ahead of the one that ends it; a call
   * returns only once every hook call it made has settled. A hook that throws
   * or rejects denies that tool, as always. Any other value is a `TypeError`.
   * Where the addon does not load (`implementation === 'fallback'`),
   * @mastra/core's own processor ignores it and asks one at a time.
   * @default 1
   */
  filterConcurrency?: number
}

/** Lets an agent search a large tool library and load tools on demand. */
export type ToolSearchProcessor = HostToolSearchProcessor
export declare const ToolSearchProcessor: {
  new (options: ToolSearchProcessorOptions): HostToolSearchProcessor
  readonly prototype: HostToolSearchProcessor
}
