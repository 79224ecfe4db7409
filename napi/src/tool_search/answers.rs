//! What `search_tools`, `load_tool` and the active tools answer, in the
//! shapes the wrapper hands on (or, for the active tools, reads).

use mastra_native_processors::js::JsString;
use mastra_native_processors::tool_search::{LoadOutcome, SearchOutcome, ToolRef};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::flat::{self, Checks};

#[napi(object)]
pub struct SearchResultItem {
    pub name: Utf16String,
    pub description: Utf16String,
    pub score: f64,
}

#[napi(object)]
pub struct SearchToolsOutput {
    pub results: Vec<SearchResultItem>,
    pub message: Utf16String,
}

impl From<SearchOutcome> for SearchToolsOutput {
    fn from(outcome: SearchOutcome) -> Self {
        SearchToolsOutput {
            results: outcome
                .results
                .into_iter()
                .map(|hit| SearchResultItem {
                    name: utf16(hit.name),
                    description: utf16(hit.description),
                    score: hit.score,
                })
                .collect(),
            message: utf16(outcome.message),
        }
    }
}

/// `load_tool`'s result when nothing usable was asked for: `{ success, message }`.
#[napi(object, object_from_js = false)]
pub struct LoadRefused {
    pub success: bool,
    pub message: Utf16String,
}

/// `load_tool`'s result for a single `toolName`: `{ success, message, toolName }`.
#[napi(object, object_from_js = false)]
pub struct LoadedOne {
    pub success: bool,
    pub message: Utf16String,
    pub tool_name: Utf16String,
}

/// `load_tool`'s result for `toolNames`, each list `undefined` (but there)
/// when empty: `{ success, message, loadedCount, loaded, notFound,
/// alreadyLoaded }`.
#[napi(object, object_from_js = false)]
pub struct LoadedMany {
    pub success: bool,
    pub message: Utf16String,
    pub loaded_count: u32,
    pub loaded: Either<Vec<Utf16String>, Undefined>,
    pub not_found: Either<Vec<Utf16String>, Undefined>,
    pub already_loaded: Either<Vec<Utf16String>, Undefined>,
}

/// `load_tool`'s result, in the shape (the keys, in their order) the
/// reference's has.
pub type LoadToolResult = Either3<LoadRefused, LoadedOne, LoadedMany>;

pub(super) fn load_result(outcome: LoadOutcome) -> LoadToolResult {
    let list = |names: Option<Vec<JsString>>| match names {
        Some(names) => Either::A(names.into_iter().map(utf16).collect()),
        None => Either::B(()),
    };
    match outcome {
        LoadOutcome::Invalid { message } => Either3::A(LoadRefused { success: false, message: utf16(message) }),
        LoadOutcome::Single { success, message, tool_name } => {
            Either3::B(LoadedOne { success, message: utf16(message), tool_name: utf16(tool_name) })
        }
        LoadOutcome::Multi { success, message, loaded_count, loaded, not_found, already_loaded } => {
            Either3::C(LoadedMany {
                success,
                message: utf16(message),
                loaded_count: loaded_count as u32,
                loaded: list(loaded),
                not_found: list(not_found),
                already_loaded: list(already_loaded),
            })
        }
    }
}

/// The loaded tools a request may use: their names one after another in
/// `text`, and in `words` the tools they resolve to (one per name), then the
/// names' lengths, then the checks of the operation's resolutions when it
/// made any (see [`flat`]; never from an operation with questions), with the
/// names of those that found nothing, in order (absent when none did). The
/// names cross as one string because an agent's steps mostly load the same
/// names as the step before: the wrapper then compares one string and keeps
/// the names it split last time (strings V8 has already made property keys),
/// where a string per name would be made, and made a key, every step
/// (measured: most of a step's cost with 100 tools loaded). The checks ride
/// in the array made for the tools anyway, and only when there are some: one
/// more argument or array, or an empty array no longer empty, costs a step
/// with nothing loaded more than the rest of its answer (measured).
#[napi(object)]
pub struct ActiveTools {
    pub text: Utf16String,
    pub count: u32,
    pub words: Int32Array,
    pub missing: Option<Vec<Utf16String>>,
}

pub(super) fn utf16(s: JsString) -> Utf16String {
    Utf16String::from(s.into_units().into_vec())
}

pub(super) fn active_tools(names_and_tools: Vec<(JsString, ToolRef)>, checks: Checks) -> ActiveTools {
    let count = names_and_tools.len();
    let mut words = Vec::with_capacity(2 * count + checks.words.len());
    words.extend(names_and_tools.iter().map(|(_, tool)| *tool));
    let mut text = Vec::with_capacity(names_and_tools.iter().map(|(name, _)| name.units().len()).sum());
    for (name, _) in &names_and_tools {
        words.push(name.units().len() as i32);
        text.extend_from_slice(name.units());
    }
    if checks.words[flat::COUNT] != 0 {
        words.extend_from_slice(&checks.words);
    }
    let missing = (!checks.missing.is_empty()).then(|| checks.missing.into_iter().map(utf16).collect());
    ActiveTools { text: Utf16String::from(text), count: count as u32, words: Int32Array::new(words), missing }
}
