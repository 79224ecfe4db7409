//! The boundary between `ToolSearchProcessor`'s two halves: every code,
//! layout, limit, default and shared string, declared once in
//! [`tool_search_protocol!`](crate::tool_search_protocol), which makes the
//! constants here and, in the binding, what `toolSearchProtocol()` returns
//! to JavaScript (see [`crate::protocol`]). It imports nothing, so every
//! module of the core can read it.

/// The declaration (see [`crate::protocol`]): hands it to the macro named.
#[macro_export]
macro_rules! tool_search_protocol {
    ($($then:tt)*) => { $($then)*! {
        [$crate::protocol::tool_search]
        #[doc = "Every code, layout, limit, default and shared string of"]
        #[doc = "`ToolSearchProcessor`'s boundary."]
        pub fn tool_search_protocol() -> ToolSearchProtocol {
            #[doc = "The processor as Mastra's names it."]
            pub mod processor: ProcessorNames {
                pub const ID: &str = "tool-search";
                pub const NAME: &str = "Tool Search Processor";
                pub const DESCRIPTION: &str = "Enables dynamic tool discovery and loading via search";
            }

            #[doc = "The meta-tools' ids (and keys): never searchable, never withheld."]
            pub mod meta_tools: MetaToolNames {
                pub const SEARCH_TOOLS: &str = "search_tools";
                pub const LOAD_TOOL: &str = "load_tool";
            }

            #[doc = "The descriptions in the meta-tools' schemas (`search_tools`' own"]
            #[doc = "description and the instruction depend on `autoLoad`, and come"]
            #[doc = "with each processor's settings)."]
            pub mod schemas: SchemaStrings {
                pub const SEARCH_QUERY_DESCRIPTION: &str =
                    "Search keywords (e.g., \"weather\", \"github issue\", \"database query\")";
                pub const LOAD_DESCRIPTION: &str = "Load one or more tools into your context. \
                    Call this after finding tools with search_tools. \
                    Once loaded, tools will be available for use. \
                    Pass a single toolName or an array of toolNames to load multiple tools at once.";
                pub const LOAD_TOOL_NAME_DESCRIPTION: &str = "The exact name of a tool to load (from search results)";
                pub const LOAD_TOOL_NAMES_DESCRIPTION: &str =
                    "Array of exact tool names to load in one call (from search results)";
                #[doc = "`search_tools`' query with `search.syntax: 'regex'` (this"]
                #[doc = "package's own; the default syntax's is `SEARCH_QUERY_DESCRIPTION`)."]
                pub const SEARCH_PATTERN_DESCRIPTION: &str = "A regular expression (Rust regex syntax, \
                    case-insensitive) matched against each tool's name, description and parameters \
                    (e.g., \"weather\", \"^github_\", \"send.*(email|mail)\")";
            }

            #[doc = "The documented defaults, which the core applies where an option"]
            #[doc = "is `undefined` or `null`."]
            pub mod defaults: ToolSearchDefaults {
                pub const TOP_K: f64 = 5.0;
                pub const MIN_SCORE: f64 = 0.0;
                pub const AUTO_LOAD: bool = false;
                pub const STORAGE: &str = "in-memory";
                #[doc = "In milliseconds: one hour."]
                pub const TTL: f64 = 3_600_000.0;
                pub const INCLUDE_RESOLVED_TOOLS: bool = false;
                pub const INJECT_CATALOG: bool = false;
                #[doc = "`search.ranking`: the reference's, so results are"]
                #[doc = "`@mastra/core`'s unless asked otherwise."]
                pub const RANKING: &str = "reference";
                #[doc = "`search.syntax`: `search_tools`' query is words, as in"]
                #[doc = "`@mastra/core`, unless asked otherwise."]
                pub const SYNTAX: &str = "words";
                #[doc = "`filterConcurrency`: the hook is asked about one tool at a time,"]
                #[doc = "as in `@mastra/core`, unless asked otherwise."]
                pub const FILTER_CONCURRENCY: u32 = 1;
                #[doc = "The thread of requests without one, and what `clearState()` clears."]
                pub const THREAD: &str = "default";
            }

            #[doc = "The `storage` option's values."]
            pub const STORAGES: &[&str] = &["in-memory", "context"];
            #[doc = "The `search.ranking` option's values."]
            pub const RANKINGS: &[&str] = &["reference", "fielded", "hybrid"];
            #[doc = "The `search.syntax` option's values."]
            pub const SYNTAXES: &[&str] = &["words", "regex"];
            #[doc = "The `phase` values the filter hook receives: `search_tools` and"]
            #[doc = "the injected catalog ask in the first, `load_tool` in the"]
            #[doc = "second, the loaded tools in the third."]
            pub const PHASES: &[&str] = &["search", "load", "active"];

            #[doc = "The request-context keys the thread is read from."]
            pub mod request_context: RequestContextKeys {
                #[doc = "The thread set by server middleware."]
                pub const THREAD_ID: &str = "mastra__threadId";
                #[doc = "The memory context the Agent sets."]
                pub const MEMORY: &str = "MastraMemory";
            }

            #[doc = "The numbers `NativeOperation.resume` takes and gives."]
            #[doc = ""]
            #[doc = "A question is `DONE`, `TICK`, or a"]
            #[doc = "tool question `(tool << ask.KIND_BITS) | kind`: kind"]
            #[doc = "`ask.TOOL` asks the hook about `tool`; any other asks which tool"]
            #[doc = "the record gives for a name, and whether the hook allows it,"]
            #[doc = "`tool` being the one the tables found (`0` when they found none)."]
            #[doc = "The same codes, in `flat`, are the checks of an answer made"]
            #[doc = "trusting the tables."]
            #[doc = ""]
            #[doc = "An answer is `ALLOWED`, `DENIED` or `FAILED` (anything else"]
            #[doc = "fails too), or `ALLOWED_AS + tool`: allowed, and the record"]
            #[doc = "gives `tool`, not the one the tables found."]
            pub mod operation: OperationCodes {
                #[doc = "What `resume` returns once the operation has ended."]
                pub const DONE: i32 = -1;
                #[doc = "What `resume` returns where the reference awaits a value that is"]
                #[doc = "no promise (the store it records loads in): the driver awaits once,"]
                #[doc = "then resumes (its answer is ignored)."]
                pub const TICK: i32 = -3;
                #[doc = "The answer `resume` is given before the first question."]
                pub const NO_VERDICT: i32 = -2;
                #[doc = "The hook allowed the tool."]
                pub const ALLOWED: i32 = 1;
                #[doc = "The hook denied the tool, or the record gives none."]
                pub const DENIED: i32 = 0;
                #[doc = "The hook threw or its promise rejected."]
                pub const FAILED: i32 = -1;
                #[doc = "Allowed, and the record gives the tool `answer - ALLOWED_AS`."]
                pub const ALLOWED_AS: i32 = 2;

                #[doc = "How `NativeOperation.exchange` hands questions and answers over"]
                #[doc = "when the hook may be asked about several tools at once"]
                #[doc = "(`filterConcurrency` above 1): `ENTRY_WORDS` numbers a question"]
                #[doc = "or an answer, its ticket at `TICKET`, the question's (or the"]
                #[doc = "answer's) code at `CODE`. At most `MAX_QUESTIONS` questions are"]
                #[doc = "handed over a call; a call that fills the buffer it is given is"]
                #[doc = "made again, without answers, for the rest."]
                pub mod batch: BatchLayout {
                    pub const ENTRY_WORDS: usize = 2;
                    pub const TICKET: usize = 0;
                    pub const CODE: usize = 1;
                    pub const MAX_QUESTIONS: usize = 256;
                }

                #[doc = "A tool question's kind, in its low `KIND_BITS` bits."]
                pub mod ask: AskCodes {
                    pub const KIND_BITS: u32 = 8;
                    #[doc = "Ask the hook about the tool."]
                    pub const TOOL: i32 = 0;
                    #[doc = "Any other kind resolves a name in the caller's record, read live:"]
                    #[doc = "what the tables found for it, in the low `FOUND_BITS` bits (the name"]
                    #[doc = "is then the key found, the id found, or the operation's"]
                    #[doc = "`questionName`), then the reads to make, `READ_BITS` bits each, the"]
                    #[doc = "first lowest, until one gives a tool (none: the record gives none)."]
                    #[doc = "Each read is of one key: a name costs the same in any record."]
                    pub const FOUND_BITS: u32 = 2;
                    pub const BY_KEY: i32 = 1;
                    pub const BY_ID: i32 = 2;
                    pub const MISSING: i32 = 3;
                    pub const READ_BITS: u32 = 2;
                    #[doc = "`tools[name]`, own keys only."]
                    pub const OWN_KEY: i32 = 1;
                    #[doc = "The tool now under the key of the tool found, if its `id` is the name."]
                    pub const STANDING: i32 = 2;
                }
            }

            #[doc = "What JavaScript found where it reads a tools record, and cannot use:"]
            #[doc = "it hands the value to `refuseToolSearchValue`, which throws the"]
            #[doc = "`TypeError` that names it."]
            pub mod refused: RefusedValues {
                #[doc = "The options object."]
                pub const OPTIONS: i32 = 0;
                #[doc = "`options.tools`."]
                pub const TOOLS: i32 = 1;
                #[doc = "A value of `options.tools` (under the key given) that is no tool,"]
                #[doc = "and a tool's `id` or `description` that is no string."]
                pub const TOOL: i32 = 2;
                pub const TOOL_ID: i32 = 3;
                pub const TOOL_DESCRIPTION: i32 = 4;
                #[doc = "The same among a step's tools."]
                pub const STEP_TOOL: i32 = 5;
                pub const STEP_TOOL_ID: i32 = 6;
                pub const STEP_TOOL_DESCRIPTION: i32 = 7;
            }

            #[doc = "How a tools record crosses (the core's `search::table`): every"]
            #[doc = "key, id and description end to end in one UTF-16 text, and per"]
            #[doc = "tool, in `Object.keys` order, `[keyLength, idLength,"]
            #[doc = "descriptionLength]`. A step's selection of analysed tools"]
            #[doc = "crosses as `[slot, keyLength]` per tool (the keys that are not"]
            #[doc = "their tool's id in a text), the tools to analyse first as"]
            #[doc = "`[slot, idLength, descriptionLength]`."]
            pub mod tool_table: ToolTableCodes {
                #[doc = "Numbers per tool."]
                pub const COLUMNS: usize = 3;
                #[doc = "In place of the id length: the tool has no string id."]
                pub const NO_ID: i32 = -1;
                #[doc = "In place of the id length: the id equals the key (and is"]
                #[doc = "not repeated in the text; most tools are keyed by their id)."]
                pub const ID_IS_KEY: i32 = -2;
                #[doc = "Numbers per tool of a selection."]
                pub const ROW_COLUMNS: usize = 2;
                #[doc = "Numbers per tool to analyse (the id length possibly `NO_ID`)."]
                pub const ADDITION_COLUMNS: usize = 3;
                #[doc = "In place of a slot: a key of the step's tools that holds no"]
                #[doc = "tool (a meta-tool's key, passed through)."]
                pub const NO_TOOL: i32 = -1;
                #[doc = "In place of a key length: the key is the tool's id."]
                pub const KEY_IS_ID: i32 = -2;
                #[doc = "In place of a slot: a tool new to the pool, analysed in this call"]
                #[doc = "(among the tools to analyse, in order); the pool gives it a slot."]
                pub const NEW_TOOL: i32 = -2;
            }

            #[doc = "What the `'context'` store reads of the messages (the core's"]
            #[doc = "`stores::facts`): per `search_tools`/`load_tool` part,"]
            #[doc = "`[kind, isResult, success, n, len * n, m, len * m,"]
            #[doc = "toolNameLength]`, the `n` lengths `results[].name`'s, the `m`"]
            #[doc = "lengths `loaded[]`'s, the last `result.toolName`'s; the names"]
            #[doc = "end to end in one text."]
            pub mod message_facts: MessageFactsCodes {
                #[doc = "`part.type` of a tool invocation."]
                pub const TOOL_INVOCATION_PART: &str = "tool-invocation";
                #[doc = "`toolInvocation.state` of a completed one."]
                pub const RESULT_STATE: &str = "result";
                #[doc = "The kind of a `search_tools` invocation."]
                pub const SEARCH_TOOLS: i32 = 1;
                #[doc = "The kind of a `load_tool` invocation."]
                pub const LOAD_TOOL: i32 = 2;
                #[doc = "In place of a name's length: no string there."]
                pub const NO_NAME: i32 = -1;
                #[doc = "How many message lists a processor remembers at once, in"]
                #[doc = "slots `0..REMEMBERED_LISTS` (the core's `stores::history`):"]
                #[doc = "enough for a few runs whose steps interleave, few enough"]
                #[doc = "that what they keep alive stays small."]
                pub const REMEMBERED_LISTS: usize = 8;
            }

            #[doc = "What an operation without questions hands the wrapper in the"]
            #[doc = "`Int32Array` it reuses, instead of objects (Node-API builds an"]
            #[doc = "object one property at a time, which costs more than a search"]
            #[doc = "of a small catalog)."]
            #[doc = ""]
            #[doc = "At `COUNT`, the number of checks, then from `CHECKS` their"]
            #[doc = "question codes: the resolutions the operation trusted the"]
            #[doc = "tables with, for the wrapper to check against the caller's"]
            #[doc = "record. `UNCHECKED` in place of the number says they could not"]
            #[doc = "be handed over: the wrapper then runs the operation with"]
            #[doc = "questions. Right after the checks, `search_tools`' answer:"]
            #[doc = "`HEADER` words (the number of results, the message's length),"]
            #[doc = "then from the next index a `Float64Array` over the buffer can"]
            #[doc = "read, `RESULT_WORDS` words per result: its name's length at"]
            #[doc = "`NAME_LENGTH`, its description's at `DESCRIPTION_LENGTH`, its"]
            #[doc = "score from `SCORE` (an `f64`, in native byte order). The text"]
            #[doc = "returned alongside is the message, then each result's name and"]
            #[doc = "description."]
            pub mod flat: FlatLayout {
                pub const COUNT: usize = 0;
                pub const CHECKS: usize = 1;
                pub const UNCHECKED: i32 = -1;
                pub const HEADER: usize = 2;
                pub const RESULT_WORDS: usize = 4;
                pub const NAME_LENGTH: usize = 0;
                pub const DESCRIPTION_LENGTH: usize = 1;
                pub const SCORE: usize = 2;
            }

            #[doc = "`search.syntax: 'regex'`: `search_tools`' query is a regular"]
            #[doc = "expression (Rust's `regex` crate, matched in linear time),"]
            #[doc = "case-insensitive unless it says `(?-i)`."]
            pub mod pattern: PatternLimits {
                #[doc = "The longest pattern compiled, in UTF-16 units."]
                pub const MAX_LENGTH: usize = 1_000;
                #[doc = "The most memory, in bytes, a compiled pattern may take"]
                #[doc = "(`RegexBuilder::size_limit`)."]
                pub const SIZE_LIMIT: usize = 1 << 20;
                #[doc = "The lazy DFA's cache, in bytes (`RegexBuilder::dfa_size_limit`)."]
                pub const DFA_SIZE_LIMIT: usize = 1 << 21;
                #[doc = "How deeply groups and repetitions may nest (`RegexBuilder::nest_limit`)."]
                pub const NEST_LIMIT: u32 = 64;
                #[doc = "A result's score is the sum of the weights of the fields the"]
                #[doc = "pattern matches: the name outweighs all the others together,"]
                #[doc = "so tools whose name matches come first."]
                pub const NAME_WEIGHT: f64 = 3.0;
                pub const DESCRIPTION_WEIGHT: f64 = 1.0;
                pub const PARAMETER_NAME_WEIGHT: f64 = 1.0;
                pub const PARAMETER_DESCRIPTION_WEIGHT: f64 = 0.5;
            }

            #[doc = "How much of a value of the user's or the model's this"]
            #[doc = "package's own texts echo (the core's `protocol::tool_search::echo`):"]
            #[doc = "a `search.syntax: 'regex'` pattern in `search_tools`' answers,"]
            #[doc = "an embedder's name and error in its warnings. Mastra's own"]
            #[doc = "texts echo what the reference echoes, whole."]
            pub mod echo: EchoLimits {
                #[doc = "The most echoed of one value, in UTF-16 units."]
                pub const MAX_LENGTH: usize = 300;
            }

            #[doc = "How many analyses the pool of tools keeps when steps come"]
            #[doc = "faster than their tools are collected: it is swept when it"]
            #[doc = "holds more than `POOL_SWEEP_FLOOR` and more than"]
            #[doc = "`POOL_SWEEP_FACTOR` times the step's tools, and keeps the"]
            #[doc = "tools the last `POOL_KEPT_SELECTIONS` step catalogs read."]
            pub mod retention: RetentionBounds {
                pub const POOL_SWEEP_FLOOR: usize = 16_384;
                pub const POOL_SWEEP_FACTOR: usize = 4;
                pub const POOL_KEPT_SELECTIONS: usize = 4;
            }
        }
    } };
}

tool_search_protocol!(crate::protocol::declare);

/// What marks an echo cut short: after it, the value's whole length, then [`CUT_CLOSE`].
pub const CUT_OPEN: &str = "…(cut from ";
/// Ends the mark of an echo cut short (see [`CUT_OPEN`]).
pub const CUT_CLOSE: &str = " characters)";

/// `text` as this package's own texts echo a value of the user's or the
/// model's: whole if it is at most [`echo::MAX_LENGTH`] UTF-16 units, else
/// its first `MAX_LENGTH` units (one fewer rather than split a surrogate
/// pair) then [`CUT_OPEN`], its length and [`CUT_CLOSE`]:
/// `aaa…(cut from 1048576 characters)`.
pub fn echo(text: &[u16]) -> std::borrow::Cow<'_, [u16]> {
    use std::borrow::Cow;
    let max = echo::MAX_LENGTH;
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let splits_pair = (0xD800..0xDC00).contains(&text[max - 1]) && (0xDC00..0xE000).contains(&text[max]);
    let head = &text[..max - usize::from(splits_pair)];
    let mut out = Vec::with_capacity(head.len() + 40);
    out.extend_from_slice(head);
    out.extend(CUT_OPEN.encode_utf16());
    out.extend(text.len().to_string().encode_utf16());
    out.extend(CUT_CLOSE.encode_utf16());
    Cow::Owned(out)
}

/// [`echo()`] of a Rust string (a message made of a JavaScript value).
pub fn echo_str(text: &str) -> std::borrow::Cow<'_, str> {
    let units: Vec<u16> = text.encode_utf16().collect();
    match echo(&units) {
        std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(text),
        std::borrow::Cow::Owned(cut) => std::borrow::Cow::Owned(String::from_utf16_lossy(&cut)),
    }
}

/// Whether a key (or a tool invocation's `toolName`) names a meta-tool.
pub fn is_meta_tool(key: &[u16]) -> bool {
    use meta_tools::{LOAD_TOOL, SEARCH_TOOLS};
    // Most keys differ in length: the meta-tools' names are ASCII.
    (key.len() == SEARCH_TOOLS.len() && key.iter().copied().eq(SEARCH_TOOLS.encode_utf16()))
        || (key.len() == LOAD_TOOL.len() && key.iter().copied().eq(LOAD_TOOL.encode_utf16()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn an_echo_is_whole_up_to_the_limit_then_cut_and_marked() {
        let max = echo::MAX_LENGTH;
        let whole = u(&"a".repeat(max));
        assert!(matches!(echo(&whole), std::borrow::Cow::Borrowed(_)));
        assert!(echo(&[]).is_empty());
        let long = u(&"a".repeat(1 << 20));
        assert_eq!(
            String::from_utf16(&echo(&long)).unwrap(),
            format!("{}…(cut from 1048576 characters)", "a".repeat(max))
        );
        assert_eq!(echo_str(&"b".repeat(max + 1)), format!("{}…(cut from {} characters)", "b".repeat(max), max + 1));
        assert_eq!(echo_str("short"), "short");
    }

    #[test]
    fn an_echo_never_splits_a_surrogate_pair() {
        let max = echo::MAX_LENGTH;
        assert_eq!(max % 2, 0, "the cases below assume an even limit");
        // Ending exactly on a pair's end keeps it.
        let emoji = "😀".repeat(max);
        assert_eq!(echo_str(&emoji), format!("{}…(cut from {} characters)", "😀".repeat(max / 2), 2 * max));
        // A pair across the limit is left out whole: one unit fewer.
        let shifted = format!("a{}", "😀".repeat(max));
        assert_eq!(echo_str(&shifted), format!("a{}…(cut from {} characters)", "😀".repeat(max / 2 - 1), 2 * max + 1));
        // A lone surrogate at the limit is a unit like any other.
        let mut lone = u(&"a".repeat(max - 1));
        lone.extend([0xD800, 0x61]);
        let cut = echo(&lone);
        assert_eq!(cut[max - 1], 0xD800);
        assert_eq!(String::from_utf16_lossy(&cut[max..]), format!("…(cut from {} characters)", max + 1));
    }
}
