//! `NativeToolSearch`, `NativeStep` and `NativeOperation`: the Rust half of
//! `ToolSearchProcessor`.
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
//! refers to them by [`ToolRef`]. Operations that consult the filter hook are
//! the core's resumable [`Operation`]s, which JavaScript drives.
//!
//! Every entry point catches panics, so none can abort Node. A refusal of bad
//! input is thrown as a `TypeError` naming what was wrong; a failure of the
//! protocol between the two halves, which no input can cause, as an `Error`.

mod flat;

use std::fmt::Display;
use std::sync::Arc;

use mastra_native_processors::given::Given;
use mastra_native_processors::js::JsString;
use mastra_native_processors::releases;
use mastra_native_processors::search::embedding::TokenScratch;
use mastra_native_processors::search::table::{read_parameters, read_pool_additions, read_pool_rows, read_table};
use mastra_native_processors::search::{
    BuiltinModel, EntrySpans, HybridConfig, ParamTable, Ranking, Span, VectorSource,
};
use mastra_native_processors::stores::facts::read_facts;
use mastra_native_processors::tool_search::operation::{complete_now, Operation};
use mastra_native_processors::tool_search::options::GivenOptions;
use mastra_native_processors::tool_search::refusal::refuse_record_value;
use mastra_native_processors::tool_search::request::{
    load_tool_name, load_tool_names, request_thread, search_query, thread_to_clear, MemoryContext,
};
use mastra_native_processors::tool_search::{
    loaded_names, messages, CatalogCell, LiveKeys, LiveRecord, LoadOutcome, LoadedNames, NoFilter, Options, Phase,
    PoolStep, PoolTool, SearchOutcome, Step, StepCatalog, ToolEntry, ToolRef, ToolSearch, VerifyAfter,
};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::buffers::{Int32In, Int32Out};
use crate::given::given;
use crate::utf16::Utf16Text;
use flat::Checks;

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

/// The constructor options as the wrapper read them from the options object
/// (`search: options.search`, `topK: options.search?.topK`, ...).
#[napi(object, object_to_js = false)]
pub struct ToolSearchOptionValues<'a> {
    pub search: Option<Unknown<'a>>,
    pub top_k: Option<Unknown<'a>>,
    pub min_score: Option<Unknown<'a>>,
    pub auto_load: Option<Unknown<'a>>,
    pub storage: Option<Unknown<'a>>,
    pub ttl: Option<Unknown<'a>>,
    pub filter: Option<Unknown<'a>>,
    pub include_resolved_tools: Option<Unknown<'a>>,
    pub inject_catalog: Option<Unknown<'a>>,
    pub ranking: Option<Unknown<'a>>,
    pub embedder: Option<Unknown<'a>>,
    pub embedder_do_embed: Option<Unknown<'a>>,
    pub syntax: Option<Unknown<'a>>,
    pub filter_concurrency: Option<Unknown<'a>>,
}

impl ToolSearchOptionValues<'_> {
    fn given(&self) -> Result<GivenOptions> {
        Ok(GivenOptions {
            search: given(self.search)?,
            top_k: given(self.top_k)?,
            min_score: given(self.min_score)?,
            auto_load: given(self.auto_load)?,
            storage: given(self.storage)?,
            ttl: given(self.ttl)?,
            filter: given(self.filter)?,
            include_resolved_tools: given(self.include_resolved_tools)?,
            inject_catalog: given(self.inject_catalog)?,
            ranking: given(self.ranking)?,
            embedder: given(self.embedder)?,
            embedder_do_embed: given(self.embedder_do_embed)?,
            syntax: given(self.syntax)?,
            filter_concurrency: given(self.filter_concurrency)?,
        })
    }
}

/// What the wrapper needs to know about a processor, read once.
#[napi(object)]
pub struct ToolSearchSettings {
    /// The system instruction each step adds.
    pub instruction: String,
    /// `search_tools`' description.
    pub search_description: String,
    /// The description of `search_tools`' `query`, for the syntax it takes.
    pub search_query_description: String,
    /// Whether `load_tool` is offered.
    pub offers_load_tool: bool,
    /// Whether the step's own tools are searchable (`includeResolvedTools`),
    /// so the wrapper hands them over.
    pub searches_step_tools: bool,
    /// Whether the store reads the messages (the wrapper then reports them).
    pub reads_messages: bool,
    /// Whether there is a filter hook to ask.
    pub has_filter: bool,
    /// Whether steps list the catalog (`injectCatalog`, as the host honours it).
    pub injects_catalog: bool,
    /// How often to sweep idle threads, or `null` for never.
    pub sweep_interval_ms: Option<f64>,
    /// Whether the user's embedding model makes the vectors (`'hybrid'`
    /// with `search.embedder`): the wrapper embeds `toolTexts()`, sets them
    /// with `setToolVectors`, and embeds each question.
    pub takes_vectors: bool,
    /// How many tools the hook may be asked about at once: 1 drives
    /// operations with `resume`, more with `exchange`.
    pub filter_concurrency: u32,
    /// Whether `search_tools` must ask as it goes (the core's
    /// `ToolSearch::asks_as_it_goes`): the wrapper then starts its
    /// operation (`searchOperation`) without trying `search` first.
    pub search_asks_as_it_goes: bool,
    /// Whether a `search_tools` operation awaits as the reference (the
    /// core's `ToolSearch::awaits_as_reference`), as its
    /// `awaitsAsReference` would say, known once for the processor.
    pub search_awaits_as_reference: bool,
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

/// The constructor options, applied for the host release. They are read
/// before the tools, so the wrapper knows whether to read the tools'
/// parameters too.
#[napi]
pub struct NativeToolSearchOptions {
    options: Options,
}

#[napi]
impl NativeToolSearchOptions {
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, values: ToolSearchOptionValues, host_release: String) -> Result<Self> {
        let host = releases::behaviours(&host_release).map_err(internal_error)?;
        let options = Options::from_given(&values.given()?, &host).map_err(|refusal| type_error(&env, refusal))?;
        Ok(Self { options })
    }

    /// Whether the catalogs keep the tools' parameters (for the ranking, or
    /// a `search_tools` pattern), which the wrapper then sends beside every
    /// tool table.
    #[napi(getter, catch_unwind)]
    pub fn reads_parameters(&self) -> bool {
        self.options.reads_parameters()
    }

    /// Whether the ranking embeds with the built-in model (`'hybrid'`
    /// without `search.embedder`): the wrapper then names its file with
    /// [`locate_builtin_model`] before the tools cross.
    #[napi(getter, catch_unwind)]
    pub fn uses_builtin_model(&self) -> bool {
        matches!(self.options.ranking, Ranking::Hybrid(HybridConfig { vectors: VectorSource::BuiltIn, .. }))
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
    /// Positional, unlike the other calls made once per step: named, its
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
                .loaded_names_continuing(thread_units, slot as usize, history_kept.unwrap_or(0) as usize, &facts, now)
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

/// A catalog a step searches: the constructor's tools, or those merged with
/// the tools the agent resolved for a request. The wrapper may let go of it
/// before it is collected, and have it made again (see
/// [`CatalogCell`]); the steps that search it share it.
#[napi]
pub struct NativeStepCatalog {
    cell: Arc<CatalogCell>,
}

impl NativeStepCatalog {
    fn new(catalog: Arc<StepCatalog>) -> NativeStepCatalog {
        NativeStepCatalog { cell: Arc::new(CatalogCell::new(catalog)) }
    }

    fn catalog(&self) -> Result<Arc<StepCatalog>> {
        built(&self.cell)
    }
}

/// A cell's catalog, which the wrapper makes again before any use once it
/// let go of it.
fn built(cell: &CatalogCell) -> Result<Arc<StepCatalog>> {
    cell.get().ok_or_else(|| internal_error("the step catalog was let go of and not made again"))
}

#[napi]
impl NativeStepCatalog {
    /// Whether names resolve in the caller's record as it is now (the
    /// constructor's), which the wrapper then reads: see the core's
    /// `StepCatalog::live`.
    #[napi(getter, catch_unwind)]
    pub fn live(&self) -> Result<bool> {
        Ok(self.catalog()?.live)
    }

    /// The step's own tools that stay in the prompt (indexes into them), or
    /// `null` when all do. A property of the catalog, so the wrapper reads
    /// it once, with the catalog, rather than for every step.
    #[napi(getter, catch_unwind)]
    pub fn visible(&self) -> Result<Option<Int32Array>> {
        Ok(self.catalog()?.visible.as_ref().map(|v| Int32Array::new(v.iter().map(|&i| i as i32).collect())))
    }

    /// Lets go of the catalog now, rather than when this wrapper and the
    /// steps' are collected; `NativeToolSearch.restoreStepCatalog` makes it
    /// again.
    #[napi(catch_unwind)]
    pub fn let_go(&self) {
        self.cell.let_go();
    }
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

/// The caller's tools record as the wrapper read it now: a tool table of
/// keys and ids (no descriptions), its tools being the wrapper's tools
/// `base..`.
#[napi(object, object_to_js = false)]
pub struct LiveRecordTable {
    #[napi(ts_type = "string")]
    pub text: Utf16Text,
    pub spans: Int32Array,
    pub base: i32,
}

fn live_record(record: Option<LiveRecordTable>) -> Result<Option<Arc<LiveRecord>>> {
    let Some(LiveRecordTable { text: Utf16Text(text), spans, base }) = record else { return Ok(None) };
    let spans = read_table(text.len(), &spans).map_err(internal_error)?;
    Ok(Some(Arc::new(LiveRecord::new(text, spans, base).map_err(internal_error)?)))
}

#[napi(object)]
pub struct StateStats {
    pub thread_count: u32,
    pub oldest_access_time: Option<f64>,
}

/// What an operation ends with.
enum Outcome {
    Catalog(Option<JsString>),
    Search(SearchOutcome),
    Load(LoadOutcome),
    Active(Vec<(JsString, ToolRef)>),
}

/// A `search_tools`, `load_tool`, active-tools or catalog operation that
/// consults the filter hook: the core's resumable `Operation` (its module
/// docs describe how JavaScript drives it).
#[napi]
pub struct NativeOperation {
    inner: Operation<Outcome>,
}

impl NativeOperation {
    /// An operation asking in `phase`, awaiting as the reference does when
    /// `awaits` (see the core's `operation`), up to `filterConcurrency`
    /// questions at once.
    fn start<F>(
        search: &ToolSearch,
        phase: Phase,
        awaits: bool,
        run: impl FnOnce(mastra_native_processors::tool_search::operation::Relay) -> F,
    ) -> Self
    where
        F: std::future::Future<Output = Outcome> + Send + 'static,
    {
        let concurrency = usize::try_from(search.options().filter_concurrency).unwrap_or(usize::MAX);
        NativeOperation { inner: Operation::start_with(phase, concurrency, awaits, run) }
    }

    fn outcome(&mut self) -> Result<Outcome> {
        self.inner.take_outcome().ok_or_else(|| internal_error("the operation has no outcome (yet)"))
    }
}

#[napi]
impl NativeOperation {
    /// The `phase` of every question this operation asks.
    #[napi(getter, catch_unwind)]
    pub fn phase(&self) -> &'static str {
        self.inner.phase().name()
    }

    /// Whether the operation runs in time with the reference: its driver
    /// awaits every answer that is a promise (its stand-in for the
    /// reference's `isToolAllowed`, which it gives for every tool asked
    /// about, hook or not) and every `tick` (see the core's `operation`).
    #[napi(getter, catch_unwind)]
    pub fn awaits_as_reference(&self) -> bool {
        self.inner.awaits()
    }

    /// Hands over the verdict on the last question and runs on; returns the
    /// tool of the next question, or the `done` code.
    #[napi(catch_unwind)]
    pub fn resume(&mut self, verdict: i32) -> Result<i32> {
        self.inner.resume(verdict).map_err(internal_error)
    }

    /// For a hook asked about several tools at once (`filterConcurrency`):
    /// hands over `count` answers from `answers` and runs on, deciding in
    /// the order asked; writes the questions to ask now into `questions`
    /// and returns how many, or the `done` code. The layout is the
    /// protocol's `operation.batch`: `[ticket, code]` per answer and per
    /// question. None written: the hook still has some to answer; the
    /// buffer filled: call again, without answers, for more.
    #[napi(catch_unwind)]
    pub fn exchange(&mut self, answers: Int32In, count: u32, mut questions: Int32Out) -> Result<i32> {
        use mastra_native_processors::protocol::tool_search::operation::batch::{CODE, ENTRY_WORDS, TICKET};
        let given = answers.as_slice().chunks_exact(ENTRY_WORDS).take(count as usize);
        let room = questions.len() / ENTRY_WORDS;
        let asked =
            self.inner.exchange(given.map(|answer| (answer[TICKET], answer[CODE])), room).map_err(internal_error)?;
        let Some(asked) = asked else { return Ok(mastra_native_processors::protocol::tool_search::operation::DONE) };
        let mut words = vec![0; asked.len() * ENTRY_WORDS];
        for (entry, (ticket, question)) in words.chunks_exact_mut(ENTRY_WORDS).zip(&asked) {
            entry[TICKET] = *ticket;
            entry[CODE] = *question;
        }
        questions.write(&[&words], &[Some(&answers)])?;
        Ok(asked.len() as i32)
    }

    /// The name question `ticket` is about, while the hook has it, when the
    /// tables found no tool for it (else `null`).
    #[napi(catch_unwind)]
    pub fn question_name_of(&self, ticket: i32) -> Option<Utf16String> {
        self.inner.question_name_of(ticket).map(utf16)
    }

    /// The name the pending question is about, when the tables found no
    /// tool for it (else `null`).
    #[napi(getter, catch_unwind)]
    pub fn question_name(&self) -> Option<Utf16String> {
        self.inner.question_name().map(utf16)
    }

    /// The caller's record's keys as they are now (`Object.keys`), end to
    /// end in `text`, each `lengths[i]` long, as the `needKeys` question
    /// asks; the next `resume` hands them over.
    #[napi(catch_unwind)]
    pub fn use_keys(&mut self, #[napi(ts_arg_type = "string")] text: Utf16Text, lengths: Int32Array) -> Result<()> {
        let keys = LiveKeys::from_lengths(&text.0, &lengths).ok_or_else(|| internal_error("key lengths"))?;
        self.inner.provide_keys(keys);
        Ok(())
    }

    /// The `id` of the tool the next `resume` answers about, when it is not
    /// the id the tables hold for it, as read after the hook answered, for
    /// the injected catalog's line (the core's `listed_name` says what it
    /// names). `false`: it names nothing, for the wrapper to refuse it.
    #[napi(catch_unwind)]
    pub fn use_name(&mut self, id: Unknown) -> Result<bool> {
        Ok(self.inner.provide_id(None, given(Some(id))?))
    }

    /// `useName` for the answer to question `ticket`, for a hook asked
    /// about several tools at once (`filterConcurrency`): the name goes with
    /// that answer, whenever `exchange` hands it over.
    #[napi(catch_unwind)]
    pub fn use_name_of(&mut self, ticket: i32, id: Unknown) -> Result<bool> {
        Ok(self.inner.provide_id(Some(ticket), given(Some(id))?))
    }

    #[napi(catch_unwind)]
    pub fn catalog_output(&mut self) -> Result<Option<Utf16String>> {
        match self.outcome()? {
            Outcome::Catalog(message) => Ok(message.map(utf16)),
            _ => Err(internal_error("not a catalog operation")),
        }
    }

    /// `search_tools`' answer, laid out in `out` after no checks (see
    /// [`flat`]) and its text returned, or as an object when it does not fit.
    #[napi(catch_unwind)]
    pub fn search_output(&mut self, mut out: Int32Out) -> Result<Either<Utf16String, SearchToolsOutput>> {
        match self.outcome()? {
            Outcome::Search(outcome) => flat::search_answer(outcome, Checks::none(), &mut out),
            _ => Err(internal_error("not a search operation")),
        }
    }

    #[napi(catch_unwind)]
    pub fn load_output(&mut self) -> Result<LoadToolResult> {
        match self.outcome()? {
            Outcome::Load(outcome) => Ok(load_result(outcome)),
            _ => Err(internal_error("not a load operation")),
        }
    }

    #[napi(catch_unwind)]
    pub fn active_output(&mut self) -> Result<ActiveTools> {
        match self.outcome()? {
            Outcome::Active(tools) => Ok(active_tools(tools, Checks::none())),
            _ => Err(internal_error("not an active-tools operation")),
        }
    }
}

/// Runs an operation without a hook, which completes on its first poll.
fn run_now<T>(future: impl std::future::Future<Output = T>) -> Result<T> {
    complete_now(future).ok_or_else(|| internal_error("an operation without a hook waited"))
}

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

fn load_result(outcome: LoadOutcome) -> LoadToolResult {
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

fn utf16(s: JsString) -> Utf16String {
    Utf16String::from(s.into_units().into_vec())
}

fn active_tools(names_and_tools: Vec<(JsString, ToolRef)>, checks: Checks) -> ActiveTools {
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

/// One `processInputStep`'s half in Rust. Its catalog is kept apart, as the
/// wrapper may let go of it between calls (see [`NativeStepCatalog`]); each
/// call makes the core's [`Step`] of it.
#[napi]
pub struct NativeStep {
    search: Arc<ToolSearch>,
    catalog: Arc<CatalogCell>,
    thread: Option<JsString>,
    loaded: LoadedNames,
}

impl NativeStep {
    fn step(&self) -> Result<Step> {
        let (thread, loaded) = (self.thread.clone(), self.loaded.clone());
        Ok(Step { catalog: built(&self.catalog)?, thread, loaded })
    }

    /// `search_tools` as an operation (see [`search_operation`](Self::search_operation)),
    /// with the question's vector when the user's embedding model made one.
    fn start_search(&self, query: JsString, now: f64, query_vector: Option<Vec<f32>>) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        let awaits = search.awaits_as_reference(Phase::Search);
        Ok(NativeOperation::start(&self.search, Phase::Search, awaits, move |hook| async move {
            Outcome::Search(search.search_with_vector(&step, &query, query_vector.as_deref(), &hook, now).await)
        }))
    }
}

#[napi]
impl NativeStep {
    /// `search_tools`: the operation to drive when it must ask as it goes
    /// (the core's `ToolSearch::asks_as_it_goes`); else the search made at
    /// once, trusting the catalog's tables: the resolutions made go to `out`
    /// as checks (see [`flat`]), for the wrapper to check against the
    /// caller's record, which may have changed since (it runs
    /// [`search_operation`](Self::search_operation) instead should any not
    /// hold); then the answer, laid out after them and its text returned, or
    /// as an object when it does not fit.
    #[napi(catch_unwind)]
    pub fn search(
        &self,
        env: Env,
        query: Unknown,
        now: f64,
        mut out: Int32Out,
        query_vector: Option<Float32Array>,
    ) -> Result<Either3<Utf16String, SearchToolsOutput, NativeOperation>> {
        let query = search_query(given(Some(query))?).map_err(|refusal| type_error(&env, refusal))?;
        let step = self.step()?;
        if self.search.asks_as_it_goes(Phase::Search) {
            return Ok(Either3::C(self.start_search(query, now, query_vector.map(|v| v.to_vec()))?));
        }
        let trusted = VerifyAfter::default();
        let outcome = run_now(self.search.search_with_vector(&step, &query, query_vector.as_deref(), &trusted, now))?;
        Ok(match flat::search_answer(outcome, Checks::of_search(trusted)?, &mut out)? {
            Either::A(text) => Either3::A(text),
            Either::B(output) => Either3::B(output),
        })
    }

    /// `search_tools` as an operation, asking the host about each candidate
    /// in rank order: when it must, or when the checks of
    /// [`search`](Self::search)'s answer do not hold.
    #[napi(catch_unwind)]
    pub fn search_operation(
        &self,
        env: Env,
        query: Unknown,
        now: f64,
        query_vector: Option<Float32Array>,
    ) -> Result<NativeOperation> {
        let query = search_query(given(Some(query))?).map_err(|refusal| type_error(&env, refusal))?;
        self.start_search(query, now, query_vector.map(|v| v.to_vec()))
    }

    /// `load_tool`: the operation to drive, asking the host about each name
    /// and suggestion, in time with the reference (see the core's
    /// `ToolSearch::awaits_as_reference`).
    #[napi(catch_unwind)]
    pub fn load(&self, env: Env, tool_name: Unknown, tool_names: Unknown, now: f64) -> Result<NativeOperation> {
        let tool_name = load_tool_name(given(Some(tool_name))?).map_err(|refusal| type_error(&env, refusal))?;
        let tool_names = read_tool_names(&env, tool_names)?;
        let (search, step) = (self.search.clone(), self.step()?);
        let awaits = search.awaits_as_reference(Phase::Load);
        Ok(NativeOperation::start(&self.search, Phase::Load, awaits, move |hook| async move {
            Outcome::Load(search.load(&step, tool_name.as_deref(), tool_names.as_deref(), &hook, now).await)
        }))
    }

    /// The loaded tools as of this step's start: `null` when nothing is
    /// loaded, which most steps find, for far less than an empty answer
    /// costs to make; the operation to drive when it must ask as it goes
    /// (with a hook); else the tools, trusting the catalog's tables, with the
    /// checks (see [`search`](Self::search)).
    #[napi(catch_unwind)]
    pub fn active(&self) -> Result<Option<Either<ActiveTools, NativeOperation>>> {
        let names = {
            let loaded = self.loaded.lock();
            if loaded.is_empty() {
                return Ok(None);
            }
            loaded.clone()
        };
        let catalog = built(&self.catalog)?;
        if self.search.asks_as_it_goes(Phase::Active) {
            return Ok(Some(Either::B(self.active_operation()?)));
        }
        let trusted = VerifyAfter::default();
        let tools = run_now(self.search.active_tools(&catalog, &names, &trusted))?;
        Ok(Some(Either::A(active_tools(tools, Checks::of(trusted)?))))
    }

    /// The loaded tools as an operation, asking the host about each
    /// (phase `'active'`): when the checks of [`active`](Self::active)'s
    /// answer do not hold.
    #[napi(catch_unwind)]
    pub fn active_operation(&self) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        Ok(NativeOperation::start(&self.search, Phase::Active, false, move |hook| async move {
            let names = step.loaded.lock().clone();
            Outcome::Active(search.active_tools(&step.catalog, &names, &hook).await)
        }))
    }

    /// The system message listing the step's catalog (`injectCatalog`), or
    /// `null` when there is none, or the operation to drive with a hook,
    /// which it asks about each tool (phase `'search'`). A `record` is the
    /// caller's record as it is now, when it no longer is the catalog's;
    /// without one, and without a hook, the message depends on the catalog
    /// alone, so the wrapper may keep it with the catalog.
    #[napi(catch_unwind)]
    pub fn catalog_message(
        &self,
        record: Option<LiveRecordTable>,
    ) -> Result<Either<Option<Utf16String>, NativeOperation>> {
        let record = live_record(record)?;
        let (search, step) = (self.search.clone(), self.step()?);
        if !search.options().search.has_filter {
            let message = run_now(search.catalog_message(&step.catalog, record.as_deref(), &NoFilter))?;
            return Ok(Either::A(message.map(utf16)));
        }
        Ok(Either::B(NativeOperation::start(&self.search, Phase::Search, false, move |hook| async move {
            Outcome::Catalog(search.catalog_message(&step.catalog, record.as_deref(), &hook).await)
        })))
    }
}
