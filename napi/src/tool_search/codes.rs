//! The codes, names and defaults both halves of `ToolSearchProcessor` use,
//! handed over from the core that defines them, so neither side repeats a
//! bare number or name.

use mastra_native_processors::search::{table, Ranking};
use mastra_native_processors::stores::{self, facts, history};
use mastra_native_processors::tool_search::operation::code as operation;
use mastra_native_processors::tool_search::options::{defaults, Storage};
use mastra_native_processors::tool_search::{load_shape, request, retention, Phase, LOAD_TOOL, SEARCH_TOOLS};
use napi_derive::napi;

use super::flat;

/// The meta-tools' ids (and keys).
#[napi(object)]
pub struct MetaToolNames {
    pub search_tools: String,
    pub load_tool: String,
}

/// What `NativeOperation.resume` takes and gives (the core's
/// `tool_search::operation::code`).
#[napi(object)]
pub struct OperationCodes {
    /// `resume` is done: the outcome is ready.
    pub done: i32,
    /// `resume` asks for the caller's record (`NativeOperation.useRecord`).
    pub need_record: i32,
    /// The answer given to the first `resume`.
    pub no_verdict: i32,
    pub allowed: i32,
    /// Denied, or no tool in the record.
    pub denied: i32,
    /// The hook threw or rejected.
    pub failed: i32,
    /// Allowed, and the record gives the tool `answer - allowedAs`.
    pub allowed_as: i32,
    /// How a question is made.
    pub ask: AskCodes,
}

/// A question's kind (its low `kindBits` bits; the tool is the rest): `tool`
/// asks the hook about the tool; any other is `resolve + founds * lookup +
/// found`.
#[napi(object)]
pub struct AskCodes {
    pub kind_bits: u32,
    pub tool: i32,
    pub resolve: i32,
    pub founds: i32,
    pub key_first: i32,
    pub id_first: i32,
    pub id_only: i32,
    pub by_key: i32,
    pub by_id: i32,
    pub missing: i32,
}

/// `load_tool` result shapes (the core's `tool_search::load_shape`).
#[napi(object)]
pub struct LoadShapeCodes {
    /// `{ success, message }`
    pub invalid: i32,
    /// `{ success, message, toolName }`
    pub single: i32,
    /// `{ success, message, loadedCount, loaded, notFound, alreadyLoaded }`
    pub multi: i32,
}

/// The tool table (the core's `search::table`).
#[napi(object)]
pub struct ToolTableCodes {
    /// Numbers per tool: key, id and description lengths.
    pub columns: u32,
    /// In place of the id length: no string id.
    pub no_id: i32,
    /// In place of the id length: the id equals the key.
    pub id_is_key: i32,
    /// Numbers per tool of a selection of analysed tools: slot, key length.
    pub pool_row_columns: u32,
    /// Numbers per tool to analyse: slot, id length, description length.
    pub pool_addition_columns: u32,
    /// In place of a slot: a meta-tool's key without a tool.
    pub no_tool: i32,
    /// In place of a key length: the key is the tool's id.
    pub key_is_id: i32,
}

/// The context store's message facts (the core's `stores::facts`).
#[napi(object)]
pub struct MessageFactsCodes {
    /// `part.type` of a tool invocation.
    pub tool_invocation_part: String,
    /// `toolInvocation.state` of a completed one.
    pub result_state: String,
    /// The kind of a `search_tools` invocation.
    pub search_tools: i32,
    /// The kind of a `load_tool` invocation.
    pub load_tool: i32,
    /// In place of a name's length: no string there.
    pub no_name: i32,
    /// How many message lists are remembered at once, in slots
    /// `0..rememberedLists` (the core's `stores::history`).
    pub remembered_lists: u32,
    /// A remembered list unused this long is forgotten.
    pub remembered_list_idle_ms: f64,
    /// How many of a remembered list's last messages are checked within.
    pub rechecked_last_messages: u32,
}

/// The request-context keys the thread is read from.
#[napi(object)]
pub struct RequestContextKeys {
    pub thread_id: String,
    pub memory: String,
}

/// The documented defaults, which the core applies.
#[napi(object)]
pub struct ToolSearchDefaults {
    pub top_k: f64,
    pub min_score: f64,
    pub auto_load: bool,
    pub storage: String,
    pub ttl: f64,
    pub include_resolved_tools: bool,
    pub inject_catalog: bool,
    /// `search.ranking`.
    pub ranking: String,
    /// The thread of requests without one, and what `clearState()` clears.
    pub thread: String,
}

/// Where an operation without questions puts its checks and `search_tools`'
/// answer in the wrapper's buffer (indexes and sizes in words; the binding's
/// `tool_search::flat` describes the layout).
#[napi(object)]
pub struct FlatLayout {
    /// The number of checks.
    pub count: u32,
    /// The first check.
    pub checks: u32,
    /// In place of the number of checks: none could be handed over.
    pub unchecked: i32,
    /// The answer's header: the number of results, the message's length.
    pub header: u32,
    /// Words per result, and where in them its parts are.
    pub result_words: u32,
    pub name_length: u32,
    pub description_length: u32,
    pub score: u32,
}

/// How much of what steps made the wrapper keeps alive before the event
/// loop turns (the core's `tool_search::retention`).
#[napi(object)]
pub struct RetentionCodes {
    pub step_catalogs_per_turn: u32,
    pub pool_sweep_floor: u32,
    pub pool_sweep_factor: u32,
    pub pool_kept_selections: u32,
}

/// Every code, name and default of `ToolSearchProcessor`'s two halves.
#[napi(object)]
pub struct ToolSearchCodes {
    pub meta_tools: MetaToolNames,
    pub operation: OperationCodes,
    pub load_shape: LoadShapeCodes,
    pub tool_table: ToolTableCodes,
    pub message_facts: MessageFactsCodes,
    pub request_context: RequestContextKeys,
    pub defaults: ToolSearchDefaults,
    pub flat: FlatLayout,
    pub retention: RetentionCodes,
    /// The `storage` option's values.
    pub storages: Vec<String>,
    /// The `search.ranking` option's values.
    pub rankings: Vec<String>,
    /// The `phase` values the hook receives.
    pub phases: Vec<String>,
}

#[napi(catch_unwind)]
pub fn tool_search_codes() -> ToolSearchCodes {
    ToolSearchCodes {
        meta_tools: MetaToolNames { search_tools: SEARCH_TOOLS.into(), load_tool: LOAD_TOOL.into() },
        operation: OperationCodes {
            done: operation::DONE,
            need_record: operation::NEED_RECORD,
            no_verdict: operation::NO_VERDICT,
            allowed: operation::ALLOWED,
            denied: operation::DENIED,
            failed: operation::FAILED,
            allowed_as: operation::ALLOWED_AS,
            ask: AskCodes {
                kind_bits: operation::ask::KIND_BITS,
                tool: operation::ask::TOOL,
                resolve: operation::ask::RESOLVE,
                founds: operation::ask::FOUNDS,
                key_first: operation::ask::KEY_FIRST,
                id_first: operation::ask::ID_FIRST,
                id_only: operation::ask::ID_ONLY,
                by_key: operation::ask::BY_KEY,
                by_id: operation::ask::BY_ID,
                missing: operation::ask::MISSING,
            },
        },
        load_shape: LoadShapeCodes {
            invalid: load_shape::INVALID,
            single: load_shape::SINGLE,
            multi: load_shape::MULTI,
        },
        tool_table: ToolTableCodes {
            columns: table::COLUMNS as u32,
            no_id: table::marker::NO_ID,
            id_is_key: table::marker::ID_IS_KEY,
            pool_row_columns: table::pool_marker::ROW_COLUMNS as u32,
            pool_addition_columns: table::pool_marker::ADDITION_COLUMNS as u32,
            no_tool: table::pool_marker::NO_TOOL,
            key_is_id: table::pool_marker::KEY_IS_ID,
        },
        message_facts: MessageFactsCodes {
            tool_invocation_part: facts::TOOL_INVOCATION_PART.into(),
            result_state: facts::RESULT_STATE.into(),
            search_tools: facts::code::SEARCH_TOOLS,
            load_tool: facts::code::LOAD_TOOL,
            no_name: facts::code::NO_NAME,
            remembered_lists: history::REMEMBERED_LISTS as u32,
            remembered_list_idle_ms: history::REMEMBERED_LIST_IDLE_MS,
            rechecked_last_messages: history::RECHECKED_LAST_MESSAGES as u32,
        },
        request_context: RequestContextKeys {
            thread_id: request::THREAD_ID_KEY.into(),
            memory: request::MEMORY_KEY.into(),
        },
        defaults: ToolSearchDefaults {
            top_k: defaults::TOP_K,
            min_score: defaults::MIN_SCORE,
            auto_load: defaults::AUTO_LOAD,
            storage: defaults::STORAGE.name().into(),
            ttl: defaults::TTL_MS,
            include_resolved_tools: defaults::INCLUDE_RESOLVED_TOOLS,
            inject_catalog: defaults::INJECT_CATALOG,
            ranking: defaults::RANKING.name().into(),
            thread: stores::DEFAULT_THREAD.into(),
        },
        flat: FlatLayout {
            count: flat::COUNT as u32,
            checks: flat::CHECKS as u32,
            unchecked: flat::UNCHECKED,
            header: flat::HEADER as u32,
            result_words: flat::RESULT_WORDS as u32,
            name_length: flat::NAME_LENGTH as u32,
            description_length: flat::DESCRIPTION_LENGTH as u32,
            score: flat::SCORE as u32,
        },
        retention: RetentionCodes {
            step_catalogs_per_turn: retention::STEP_CATALOGS_PER_TURN as u32,
            pool_sweep_floor: retention::POOL_SWEEP_FLOOR as u32,
            pool_sweep_factor: retention::POOL_SWEEP_FACTOR as u32,
            pool_kept_selections: retention::POOL_KEPT_SELECTIONS as u32,
        },
        storages: Storage::ALL.iter().map(|s| s.name().into()).collect(),
        rankings: Ranking::ALL.iter().map(|r| r.name().into()).collect(),
        phases: Phase::ALL.iter().map(|p| p.name().into()).collect(),
    }
}
