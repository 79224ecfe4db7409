//! The Rust half of `ToolSearchProcessor`: `NativeToolSearch` here, and its
//! other classes a file each: [`options`] (`NativeToolSearchOptions`),
//! [`step_catalog`] (`NativeStepCatalog`), [`step`] (`NativeStep`) and
//! [`operation`] (`NativeOperation`), with the shapes of their answers in
//! [`answers`] and [`flat`].
//!
//! Translation only. Tool records cross once, as one UTF-16 string and a
//! tool table (the core's `search::table`), with a parameter table beside it
//! for a ranking that reads parameters; the context store's reading of the
//! messages crosses as facts (the core's `stores::facts`); options,
//! request-context entries, the meta-tools' inputs and any value the wrapper
//! found in a tools record and could not use cross as they are and are
//! classified as [`Given`] values for the core to judge. Queries and names
//! cross as UTF-16 so lone surrogates survive. The layouts and codes are the
//! core's `protocol::tool_search`. Tools themselves stay in JavaScript: Rust
//! refers to them by [`ToolRef`](mastra_native_processors::tool_search::ToolRef).
//! Operations that consult the filter hook are the core's resumable
//! [`Operation`](mastra_native_processors::tool_search::operation::Operation)s,
//! which JavaScript drives.
//!
//! Every entry point catches panics, so none can abort Node. A refusal of bad
//! input is thrown as a `TypeError` naming what was wrong; a failure of the
//! protocol between the two halves, which no input can cause, as an `Error`.

mod answers;
mod flat;
mod operation;
mod options;
mod step;
mod step_catalog;

use std::fmt::Display;
use std::sync::Arc;

use mastra_native_processors::given::Given;
use mastra_native_processors::js::JsString;
use mastra_native_processors::search::embedding::TokenScratch;
use mastra_native_processors::search::table::{read_parameters, read_pool_additions, read_pool_rows, read_table};
use mastra_native_processors::search::{BuiltinModel, EntrySpans, ParamTable, Span};
use mastra_native_processors::stores::facts::read_facts;
use mastra_native_processors::stores::history::Continuation;
use mastra_native_processors::tool_search::operation::complete_now;
use mastra_native_processors::tool_search::refusal::refuse_record_value;
use mastra_native_processors::tool_search::request::{load_tool_names, request_thread, thread_to_clear, MemoryContext};
use mastra_native_processors::tool_search::{loaded_names, messages, Phase, PoolStep, PoolTool, ToolEntry, ToolSearch};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::given::given;
use crate::utf16::Utf16Text;
use answers::SearchToolsOutput;
use options::{NativeToolSearchOptions, ToolSearchSettings};
use step::NativeStep;
use step_catalog::NativeStepCatalog;

/// Throws a refusal of bad input as a `TypeError` (napi-rs would throw a
/// returned `Error` as a plain `Error`).
fn type_error(env: &Env, refusal: impl Display) -> Error {
    match env.throw_type_error(&format!("ToolSearchProcessor: {refusal}"), None) {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(error) => error,
    }
}

/// A failure that no input can cause: the two halves disagree.
fn internal_error(error: impl Display) -> Error {
    Error::new(Status::GenericFailure, format!("ToolSearchProcessor: {error}"))
}

/// Throws the `TypeError` that refuses a value the wrapper found in a tools
/// record and cannot use (`what`, a code of the protocol's `refused`, under
/// `key`), as the core words it.
#[napi(catch_unwind)]
pub fn refuse_tool_search_value(env: Env, what: i32, key: Utf16String, value: Unknown) -> Result<()> {
    let refusal = refuse_record_value(what, &JsString::from(&key[..]), &given(Some(value))?)
        .ok_or_else(|| internal_error(format!("no refusal {what}")))?;
    Err(type_error(&env, refusal))
}

/// `load_tool`'s `toolNames` for the core: the value, and its elements when
/// it is an array.
fn read_tool_names(env: &Env, names: Unknown<'_>) -> Result<Option<Vec<JsString>>> {
    let classified = given(Some(names))?;
    let elements = match classified {
        Given::Object { is_array: true } => {
            // SAFETY: the value is an array of its env, read as such.
            let elements = unsafe { Vec::<Unknown>::from_napi_value(env.raw(), names.raw()) }?;
            Some(elements.into_iter().map(|element| given(Some(element))).collect::<Result<Vec<_>>>()?)
        }
        _ => None,
    };
    load_tool_names(classified, elements).map_err(|refusal| type_error(env, refusal))
}

/// The units of `text` in `span`, which was checked against it.
fn piece(text: &[u16], span: Span) -> &[u16] {
    &text[span.start as usize..span.end as usize]
}

/// The parameter table beside a tool table of `tools` tools, when one was
/// sent (see the core's `search::table::read_parameters`).
fn parameter_table(text: Option<Utf16Text>, table: Option<Int32Array>, tools: usize) -> Result<Option<ParamTable>> {
    match (text, table) {
        (Some(Utf16Text(text)), Some(table)) => read_parameters(text, &table, tools).map(Some).map_err(internal_error),
        _ => Ok(None),
    }
}

/// Names the built-in embedding model's file (the model package's). Only
/// the first call of a process counts; the file is read by the first index
/// built with it, on that index's thread.
#[napi(catch_unwind)]
pub fn locate_builtin_model(path: String) {
    BuiltinModel::locate(std::path::Path::new(&path));
}

/// The built-in model's vectors of `texts`, one after another (its
/// dimensions each; zeros for a text with no known token), reading the
/// model now if no index has yet: for tests and the retrieval eval, which
/// wrap it as an embedding model of the user's.
#[napi(catch_unwind)]
pub fn builtin_model_embed(texts: Vec<String>) -> Result<Float32Array> {
    let builtin = BuiltinModel::current().ok_or_else(|| internal_error("no built-in model was located"))?;
    let model = builtin.get().map_err(internal_error)?;
    let dimensions = model.dimensions();
    let mut out = vec![0.0f32; texts.len() * dimensions];
    let mut scratch = TokenScratch::default();
    for (text, vector) in texts.iter().zip(out.chunks_exact_mut(dimensions)) {
        model.embed(text, &mut scratch, vector);
    }
    Ok(Float32Array::new(out))
}

#[napi]
pub struct NativeToolSearch {
    inner: Arc<ToolSearch>,
}

#[napi]
impl NativeToolSearch {
    /// A processor with these options over the constructor's tools.
    #[napi(constructor, catch_unwind)]
    pub fn new(options: &NativeToolSearchOptions, tools: ToolTable) -> Result<Self> {
        let ToolTable { text: Utf16Text(text), spans, parameters_text, parameters } = tools;
        let entries = read_table(text.len(), &spans).map_err(internal_error)?;
        let parameters = parameter_table(parameters_text, parameters, entries.len())?;
        let inner = ToolSearch::from_table_with_parameters(options.options, text, entries, parameters)
            .map_err(internal_error)?;
        Ok(Self { inner: Arc::new(inner) })
    }

    #[napi(getter, catch_unwind)]
    pub fn settings(&self) -> ToolSearchSettings {
        let options = self.inner.options();
        ToolSearchSettings {
            instruction: messages::instruction(options.auto_load, options.syntax).into(),
            search_description: messages::search_description(options.auto_load, options.syntax).into(),
            search_query_description: messages::search_query_description(options.syntax).into(),
            offers_load_tool: options.offers_load_tool(),
            searches_step_tools: options.include_resolved_tools,
            reads_messages: options.reads_messages(),
            has_filter: options.search.has_filter,
            injects_catalog: options.inject_catalog,
            sweep_interval_ms: self.inner.sweep_interval_ms(),
            takes_vectors: self.inner.takes_vectors(),
            filter_concurrency: options.filter_concurrency,
            search_asks_as_it_goes: self.inner.asks_as_it_goes(Phase::Search),
            search_awaits_as_reference: self.inner.awaits_as_reference(Phase::Search),
        }
    }

    /// The text each of the constructor's tools is embedded from, in
    /// record order, for the user's embedding model.
    #[napi(catch_unwind)]
    pub fn tool_texts(&self) -> Vec<String> {
        self.inner.tool_texts()
    }

    /// Sets the constructor's tools' vectors as the user's model made them:
    /// `dimensions` values a tool, in record order. `false` if they were set
    /// before or do not fit.
    #[napi(catch_unwind)]
    pub fn set_tool_vectors(&self, vectors: Float32Array, dimensions: u32) -> bool {
        let dimensions = dimensions as usize;
        if dimensions == 0 || !vectors.len().is_multiple_of(dimensions) {
            return false;
        }
        self.inner.set_tool_vectors(vectors.chunks_exact(dimensions))
    }

    /// The catalog of the constructor's tools, for steps that have no tools
    /// of their own to search.
    #[napi(catch_unwind)]
    pub fn static_catalog(&self) -> NativeStepCatalog {
        NativeStepCatalog::new(self.inner.static_step_catalog())
    }

    /// The catalog of a step whose agent resolved these tools, with the
    /// constructor's tools record as it is now, made of tools analysed once
    /// and kept by slot in the processor's pool (the core's
    /// `ToolSearch::pool_step_catalog`), with what the step changed there.
    #[napi(catch_unwind)]
    pub fn pool_step_catalog(&self, selection: PoolSelection) -> Result<PooledStepCatalog> {
        let PoolSelection {
            added,
            added_text,
            added_parameters_text,
            added_parameters,
            released,
            rows,
            keys_text,
            record_count,
        } = selection;
        let (Utf16Text(added_text), Utf16Text(keys_text)) = (added_text, keys_text);
        let additions = read_pool_additions(added_text.len(), &added).map_err(internal_error)?;
        let parameters = parameter_table(added_parameters_text, added_parameters, additions.len())?;
        let rows = read_pool_rows(keys_text.len(), &rows).map_err(internal_error)?;
        // `read_pool_additions` and `read_pool_rows` checked every span against its text.
        let added: Vec<PoolTool<'_>> = additions
            .iter()
            .map(|a| PoolTool {
                slot: a.slot,
                id: a.id.map(|id| piece(&added_text, id)),
                description: piece(&added_text, a.description),
            })
            .collect();
        let rows: Vec<_> = rows.iter().map(|row| (row.slot, row.key.map(|key| piece(&keys_text, key)))).collect();
        let step = PoolStep {
            added: &added,
            parameters: parameters.as_ref(),
            released: &released,
            rows: &rows,
            record_count: record_count as usize,
        };
        let (catalog, changes) = self.inner.pool_step_catalog(step).map_err(internal_error)?;
        // No array when there are none, which most steps find: each array made costs a step of few tools more than the rest of the answer.
        let slots = |slots: Vec<u32>| {
            (!slots.is_empty()).then(|| Int32Array::new(slots.into_iter().map(|slot| slot as i32).collect()))
        };
        Ok(PooledStepCatalog {
            catalog: NativeStepCatalog::new(Arc::new(catalog)),
            added: slots(changes.added),
            forgotten: slots(changes.forgotten),
        })
    }

    /// Makes `catalog` again after the wrapper let go of it (see
    /// [`NativeStepCatalog::let_go`]), from its tools as they were read for
    /// it: the record's and the step's. The core makes it from their text,
    /// as the pool's catalogs are tested against.
    #[napi(catch_unwind)]
    pub fn restore_step_catalog(&self, catalog: &NativeStepCatalog, record: ToolTable, step: ToolTable) -> Result<()> {
        let (record_text, record_spans, record_parameters) = read_tool_table(record)?;
        let (text, spans, parameters) = read_tool_table(step)?;
        let restored = self
            .inner
            .step_catalog_with_parameters(
                &tool_entries(&record_text, &record_spans),
                &tool_entries(&text, &spans),
                record_parameters.as_ref(),
                parameters.as_ref(),
            )
            .map_err(internal_error)?;
        catalog.cell.restore(restored);
        Ok(())
    }

    /// What the pool of analysed tools holds (for tests: memory follows
    /// the live tools).
    #[napi(catch_unwind)]
    pub fn pool_stats(&self) -> PoolStats {
        let (tools, slots, free) = self.inner.pool_stats();
        PoolStats { tools: tools as u32, slots: slots as u32, free: free as u32 }
    }

    /// Starts a step (or a resume-path lookup) over a catalog from
    /// [`static_catalog`](Self::static_catalog) or
    /// [`pool_step_catalog`](Self::pool_step_catalog).
    ///
    /// The thread comes from the request context as the wrapper read it:
    /// `requestContext?.get('mastra__threadId')`, and the memory context
    /// `memory = requestContext?.get('MastraMemory')` with `memory?.thread`,
    /// `memory?.thread?.id` and `memory?.resourceId`. `facts` is the context
    /// store's reading of the messages (`null` on the resume path, and for
    /// the in-memory store): all of them, or, with `historySlot`, those that
    /// follow the first `historyKept` meta-tool parts of the list remembered
    /// in that slot (the core's `stores::history`).
    ///
    /// Positional: named (as the other calls made once per step are), its
    /// arguments cost 1.1 to 1.5 µs more a call (napi-rs reads each by name),
    /// a seventh of a step over the static catalog (measured in one process,
    /// 200,000 calls each way, alternately).
    #[napi(catch_unwind)]
    #[allow(clippy::too_many_arguments)]
    pub fn begin_step(
        &self,
        env: Env,
        context_thread: Unknown,
        memory: Unknown,
        memory_thread: Unknown,
        memory_thread_id: Unknown,
        memory_resource_id: Unknown,
        catalog: &NativeStepCatalog,
        facts_text: Option<Utf16Text>,
        facts: Option<Int32Array>,
        history_slot: Option<u32>,
        history_kept: Option<u32>,
        now: f64,
    ) -> Result<NativeStep> {
        let memory = MemoryContext {
            memory: given(Some(memory))?,
            thread: given(Some(memory_thread))?,
            thread_id: given(Some(memory_thread_id))?,
            resource_id: given(Some(memory_resource_id))?,
        };
        let thread =
            request_thread(&given(Some(context_thread))?, &memory).map_err(|refusal| type_error(&env, refusal))?;
        let facts = match facts {
            Some(facts) => {
                Some(read_facts(&facts_text.map(|t| t.0).unwrap_or_default(), &facts).map_err(internal_error)?)
            }
            None => None,
        };
        let thread_units = thread.as_ref().map(JsString::units);
        let loaded = match (history_slot, facts) {
            (Some(slot), Some(facts)) => self
                .inner
                .loaded_names_continuing(
                    thread_units,
                    Continuation { slot: slot as usize, kept: history_kept.unwrap_or(0) as usize, parts: &facts },
                    now,
                )
                .map_err(internal_error)?,
            (_, facts) => self.inner.loaded_names(thread_units, facts.as_deref(), now),
        };
        Ok(NativeStep {
            search: self.inner.clone(),
            catalog: catalog.cell.clone(),
            thread,
            loaded: loaded_names(loaded),
        })
    }

    /// `clearState(threadId)`: the thread as given, `undefined` for the default one.
    #[napi(catch_unwind)]
    pub fn clear_state(&self, env: Env, thread: Unknown) -> Result<()> {
        let thread = given(Some(thread))?;
        let thread = thread_to_clear(&thread).map_err(|refusal| type_error(&env, refusal))?;
        self.inner.clear_state(thread.map(JsString::units));
        Ok(())
    }

    #[napi(catch_unwind)]
    pub fn clear_all_state(&self) {
        self.inner.clear_all_state();
    }

    #[napi(catch_unwind)]
    pub fn state_stats(&self, now: f64) -> StateStats {
        let stats = self.inner.state_stats(now);
        StateStats { thread_count: stats.thread_count as u32, oldest_access_time: stats.oldest_access_ms }
    }

    #[napi(catch_unwind)]
    pub fn cleanup_now(&self, now: f64) -> u32 {
        self.inner.cleanup_now(now) as u32
    }
}

/// What the pool of analysed tools holds (`NativeToolSearch.poolStats`).
#[napi(object)]
pub struct PoolStats {
    /// Tools analysed and still alive (not yet released).
    pub tools: u32,
    /// Slots, in use or free.
    pub slots: u32,
    /// Slots emptied, which tools new to the pool fill first.
    pub free: u32,
}

/// A step's tools as read against the processor's pool of analysed tools
/// (the protocol's `toolTable`).
#[napi(object, object_to_js = false)]
pub struct PoolSelection {
    /// The tools to analyse first, new to the pool or changed since: per
    /// tool `[slot (or newTool), idLength (or noId), descriptionLength]`.
    pub added: Int32Array,
    /// Their ids and descriptions, end to end.
    #[napi(ts_type = "string")]
    pub added_text: Utf16Text,
    /// Their parameter table, when the ranking reads parameters.
    #[napi(ts_type = "string")]
    pub added_parameters_text: Option<Utf16Text>,
    pub added_parameters: Option<Int32Array>,
    /// The slots of tools collected since the last step.
    pub released: Int32Array,
    /// The record's tools, then the step's: per tool `[slot (or newTool,
    /// noTool), keyLength (or keyIsId)]`.
    pub rows: Int32Array,
    /// The keys that are not their tool's id, end to end.
    #[napi(ts_type = "string")]
    pub keys_text: Utf16Text,
    /// How many of `rows` are the record's.
    pub record_count: u32,
}

/// A step's catalog made of pooled tools, and what it changed in the pool.
#[napi(object, object_from_js = false)]
pub struct PooledStepCatalog {
    pub catalog: NativeStepCatalog,
    /// The slots given to the step's new tools, in order (absent: none).
    pub added: Option<Int32Array>,
    /// The slots whose tools the pool let go of (see the protocol's
    /// `retention`; absent: none).
    pub forgotten: Option<Int32Array>,
}

/// The rows of a tool table, over its text.
fn tool_entries<'t>(text: &'t [u16], spans: &[EntrySpans]) -> Vec<ToolEntry<'t>> {
    // `read_table` checked every span against this text.
    spans
        .iter()
        .map(|e| ToolEntry {
            key: piece(text, e.key),
            id: e.id.map(|id| piece(text, id)),
            description: piece(text, e.description),
        })
        .collect()
}

/// A tools record as it crosses (the protocol's `toolTable`).
#[napi(object, object_to_js = false)]
pub struct ToolTable {
    /// Keys, ids and descriptions, end to end.
    #[napi(ts_type = "string")]
    pub text: Utf16Text,
    /// Per tool `[keyLength, idLength (or noId, idIsKey), descriptionLength]`.
    pub spans: Int32Array,
    /// The tools' parameter table, when the ranking reads parameters.
    #[napi(ts_type = "string")]
    pub parameters_text: Option<Utf16Text>,
    pub parameters: Option<Int32Array>,
}

/// A tool table's text, spans and parameters.
fn read_tool_table(table: ToolTable) -> Result<(Vec<u16>, Vec<EntrySpans>, Option<ParamTable>)> {
    let ToolTable { text: Utf16Text(text), spans, parameters_text, parameters } = table;
    let entries = read_table(text.len(), &spans).map_err(internal_error)?;
    let parameters = parameter_table(parameters_text, parameters, entries.len())?;
    Ok((text, entries, parameters))
}

#[napi(object)]
pub struct StateStats {
    pub thread_count: u32,
    pub oldest_access_time: Option<f64>,
}

/// Runs an operation without a hook, which completes on its first poll.
fn run_now<T>(future: impl std::future::Future<Output = T>) -> Result<T> {
    complete_now(future).ok_or_else(|| internal_error("an operation without a hook waited"))
}
