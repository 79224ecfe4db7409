//! `NativeToolSearch`, `NativeStep` and `NativeOperation`: the Rust half of
//! `ToolSearchProcessor`.
//!
//! Translation only. Tool records cross once, as one UTF-16 string and a
//! tool table (the core's `search::table`), with a parameter table beside it
//! for a ranking that reads parameters; the context store's reading of the
//! messages crosses as facts (the core's `stores::facts`); options and
//! request-context entries cross as they are and are classified as
//! [`Given`] values for the core to judge. Queries and names cross as UTF-16
//! so lone surrogates survive. Tools themselves stay in JavaScript: Rust
//! refers to them by [`ToolRef`]. Operations that consult the filter hook are
//! the core's resumable [`Operation`]s, which JavaScript drives.
//!
//! Every entry point catches panics, so none can abort Node. A refusal of bad
//! input is thrown as a `TypeError` naming what was wrong; a failure of the
//! protocol between the two halves, which no input can cause, as an `Error`.

mod codes;
mod flat;

use std::fmt::Display;
use std::sync::Arc;

use mastra_native_processors::js::JsString;
use mastra_native_processors::releases;
use mastra_native_processors::search::embedding::TokenScratch;
use mastra_native_processors::search::table::{read_parameters, read_pool_additions, read_pool_rows, read_table};
use mastra_native_processors::search::{
    BuiltinModel, EntrySpans, HybridConfig, ParamTable, Ranking, Span, VectorSource,
};
use mastra_native_processors::stores::facts::read_facts;
use mastra_native_processors::tool_search::given::Given;
use mastra_native_processors::tool_search::operation::{complete_now, Operation};
use mastra_native_processors::tool_search::options::GivenOptions;
use mastra_native_processors::tool_search::request::{request_thread, thread_to_clear, MemoryContext};
use mastra_native_processors::tool_search::{
    loaded_names, messages, CatalogCell, LiveRecord, LoadOutcome, LoadedNames, NoFilter, Options, Phase, PoolTool,
    PooledTool, SearchOutcome, Step, StepCatalog, ToolEntry, ToolRef, ToolSearch, VerifyAfter,
};
use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;

use crate::buffers::Int32Out;
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

/// Classifies a JavaScript value for the core (`None` is `undefined`).
fn given(value: Option<Unknown<'_>>) -> Result<Given> {
    let Some(value) = value else { return Ok(Given::Undefined) };
    Ok(match value.get_type()? {
        ValueType::Undefined => Given::Undefined,
        ValueType::Null => Given::Null,
        // SAFETY: the value was just found to be a boolean.
        ValueType::Boolean => Given::Boolean(unsafe { value.cast::<bool>() }?),
        // SAFETY: the value was just found to be a number.
        ValueType::Number => Given::Number(unsafe { value.cast::<f64>() }?),
        // SAFETY: the value was just found to be a string.
        ValueType::String => Given::String(JsString::from(unsafe { value.cast::<Utf16Text>() }?.0)),
        ValueType::Object | ValueType::External => Given::Object { is_array: value.is_array()? },
        ValueType::Function => Given::Function,
        ValueType::Symbol => Given::Other { type_of: "symbol", truthy: true },
        ValueType::BigInt => Given::Other { type_of: "bigint", truthy: truthy(&value)? },
        _ => Given::Other { type_of: "unknown", truthy: truthy(&value)? },
    })
}

/// `!!value`, as JavaScript decides it.
fn truthy(value: &Unknown<'_>) -> Result<bool> {
    let raw = value.value();
    let mut coerced = std::ptr::null_mut();
    let mut truthy = false;
    // SAFETY: `raw` is a live value of its env, and each out-pointer is valid.
    unsafe {
        check_status!(sys::napi_coerce_to_bool(raw.env, raw.value, &mut coerced))?;
        check_status!(sys::napi_get_value_bool(raw.env, coerced, &mut truthy))?;
    }
    Ok(truthy)
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
    /// Whether `load_tool` is offered.
    pub offers_load_tool: bool,
    /// Whether the step's own tools are searchable (`includeResolvedTools`),
    /// so the wrapper hands them over.
    pub searches_step_tools: bool,
    /// Whether `search_tools` changes loaded state, so that it cannot simply
    /// be run again after a check of its resolutions failed.
    pub search_changes_state: bool,
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

    /// Whether the ranking reads the tools' parameters, which the wrapper
    /// then sends beside every tool table.
    #[napi(getter, catch_unwind)]
    pub fn reads_parameters(&self) -> bool {
        self.options.ranking.reads_parameters()
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
    /// A processor with these options over the constructor's tools (a tool
    /// table, see the core's `search::table`, and their parameter table when
    /// the ranking reads parameters).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        options: &NativeToolSearchOptions,
        text: Utf16Text,
        table: Int32Array,
        parameters_text: Option<Utf16Text>,
        parameters: Option<Int32Array>,
    ) -> Result<Self> {
        let Utf16Text(text) = text;
        let entries = read_table(text.len(), &table).map_err(internal_error)?;
        let parameters = parameter_table(parameters_text, parameters, entries.len())?;
        let inner = ToolSearch::from_table_with_parameters(options.options, text, entries, parameters)
            .map_err(internal_error)?;
        Ok(Self { inner: Arc::new(inner) })
    }

    #[napi(getter, catch_unwind)]
    pub fn settings(&self) -> ToolSearchSettings {
        let options = self.inner.options();
        ToolSearchSettings {
            instruction: messages::instruction(options.auto_load).into(),
            search_description: messages::search_description(options.auto_load).into(),
            offers_load_tool: options.offers_load_tool(),
            searches_step_tools: options.include_resolved_tools,
            search_changes_state: self.inner.search_changes_state(),
            reads_messages: options.reads_messages(),
            has_filter: options.search.has_filter,
            injects_catalog: options.inject_catalog,
            sweep_interval_ms: self.inner.sweep_interval_ms(),
            takes_vectors: self.inner.takes_vectors(),
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
    /// constructor's tools record as it is now, made of tools analysed
    /// before and kept by slot (the core's `ToolSearch::pooled_step_catalog`).
    /// First the pool is brought up to date: the `released` slots are
    /// emptied (their tools were collected), then the tools in `added` (a
    /// table of slots, ids and descriptions, with their parameter table when
    /// the ranking reads parameters) are analysed. `rows` are the record's
    /// tools (the first `recordCount` rows) then the step's, as slots and
    /// keys (see the core's `search::table::pool_marker`).
    #[allow(clippy::too_many_arguments)]
    #[napi(catch_unwind)]
    pub fn pool_step_catalog(
        &self,
        released: Int32Array,
        added_text: Utf16Text,
        added: Int32Array,
        added_parameters_text: Option<Utf16Text>,
        added_parameters: Option<Int32Array>,
        keys_text: Utf16Text,
        rows: Int32Array,
        record_count: u32,
    ) -> Result<NativeStepCatalog> {
        let (Utf16Text(added_text), Utf16Text(keys_text)) = (added_text, keys_text);
        let additions = read_pool_additions(added_text.len(), &added).map_err(internal_error)?;
        let parameters = parameter_table(added_parameters_text, added_parameters, additions.len())?;
        // `read_pool_additions` and `read_pool_rows` checked every span against its text.
        let tools: Vec<PoolTool<'_>> = additions
            .iter()
            .map(|a| PoolTool {
                slot: a.slot,
                id: a.id.map(|id| piece(&added_text, id)),
                description: piece(&added_text, a.description),
            })
            .collect();
        self.inner.update_pool(&released, &tools, parameters.as_ref()).map_err(internal_error)?;
        let rows = read_pool_rows(keys_text.len(), &rows).map_err(internal_error)?;
        let rows: Vec<PooledTool<'_>> = rows
            .iter()
            .map(|row| PooledTool { slot: row.slot, key: row.key.map(|key| piece(&keys_text, key)) })
            .collect();
        let (record, resolved) = rows.split_at((record_count as usize).min(rows.len()));
        let catalog = self.inner.pooled_step_catalog(record, resolved).map_err(internal_error)?;
        Ok(NativeStepCatalog::new(Arc::new(catalog)))
    }

    /// Makes `catalog` again after the wrapper let go of it (see the core's
    /// `tool_search::retention`), from its tools as they were read for it:
    /// the record's and the step's, as two tool tables like the
    /// constructor's, each with its parameter table when the ranking reads
    /// parameters. The core makes it from their text, as the pool's
    /// catalogs are tested against.
    #[allow(clippy::too_many_arguments)]
    #[napi(catch_unwind)]
    pub fn restore_step_catalog(
        &self,
        catalog: &NativeStepCatalog,
        record_text: Utf16Text,
        record_table: Int32Array,
        text: Utf16Text,
        table: Int32Array,
        record_parameters_text: Option<Utf16Text>,
        record_parameters: Option<Int32Array>,
        parameters_text: Option<Utf16Text>,
        parameters: Option<Int32Array>,
    ) -> Result<()> {
        let (Utf16Text(record_text), Utf16Text(text)) = (record_text, text);
        let record_spans = read_table(record_text.len(), &record_table).map_err(internal_error)?;
        let spans = read_table(text.len(), &table).map_err(internal_error)?;
        let record_parameters = parameter_table(record_parameters_text, record_parameters, record_spans.len())?;
        let parameters = parameter_table(parameters_text, parameters, spans.len())?;
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

    /// `{ tools, slots }`: how many tools the pool of analysed tools holds,
    /// and how many slots it has (for tests: memory follows the live tools).
    #[napi(catch_unwind)]
    pub fn pool_stats(&self) -> PoolStats {
        let (tools, slots) = self.inner.pool_stats();
        PoolStats { tools: tools as u32, slots: slots as u32 }
    }

    /// The system message listing a catalog (`injectCatalog`) for a
    /// processor without a filter hook, or `null` when there is none. With
    /// no record given it depends on the catalog alone, so the wrapper keeps
    /// it with the catalog; a record (a tool table of keys and ids, its tools
    /// being the wrapper's tools `base..`) is the caller's record as it is
    /// now, when it no longer is the catalog's.
    #[napi(catch_unwind)]
    pub fn catalog_message(
        &self,
        catalog: &NativeStepCatalog,
        record_text: Option<Utf16Text>,
        record_table: Option<Int32Array>,
        base: Option<i32>,
    ) -> Result<Option<Utf16String>> {
        let record = live_record(record_text, record_table, base)?;
        Ok(run_now(self.inner.catalog_message(&*catalog.catalog()?, record.as_deref(), &NoFilter))?.map(utf16))
    }

    /// Starts a step (or a resume-path lookup) over a catalog from
    /// [`static_catalog`](Self::static_catalog) or
    /// [`step_catalog`](Self::step_catalog).
    ///
    /// The thread comes from the request context as the wrapper read it:
    /// `requestContext?.get('mastra__threadId')`, and the memory context
    /// `memory = requestContext?.get('MastraMemory')` with `memory?.thread`,
    /// `memory?.thread?.id` and `memory?.resourceId`. `facts` is the context
    /// store's reading of the messages (`null` on the resume path, and for
    /// the in-memory store): all of them, or, with `historySlot`, those that
    /// follow the first `historyKept` meta-tool parts of the list remembered
    /// in that slot (the core's `stores::history`).
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
/// before it is collected, and have it made again (see the core's
/// `tool_search::retention`); the steps that search it share it.
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

/// A record read by the wrapper (see `NativeToolSearch.catalogMessage`).
fn live_record(
    text: Option<Utf16Text>,
    table: Option<Int32Array>,
    base: Option<i32>,
) -> Result<Option<Arc<LiveRecord>>> {
    let (Some(Utf16Text(text)), Some(table), Some(base)) = (text, table, base) else { return Ok(None) };
    let spans = read_table(text.len(), &table).map_err(internal_error)?;
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
    fn start<F>(phase: Phase, run: impl FnOnce(mastra_native_processors::tool_search::operation::Relay) -> F) -> Self
    where
        F: std::future::Future<Output = Outcome> + Send + 'static,
    {
        NativeOperation { inner: Operation::start(phase, run) }
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

    /// Hands over the verdict on the last question and runs on; returns the
    /// tool of the next question, or the `done` code.
    #[napi(catch_unwind)]
    pub fn resume(&mut self, verdict: i32) -> Result<i32> {
        self.inner.resume(verdict).map_err(internal_error)
    }

    /// The name the pending question is about, when the tables found no
    /// tool for it (else `null`).
    #[napi(getter, catch_unwind)]
    pub fn question_name(&self) -> Option<Utf16String> {
        self.inner.question_name().map(utf16)
    }

    /// The caller's record as it is now (a tool table of keys and ids, its
    /// tools being the wrapper's tools `base..`), as the `needRecord`
    /// question asks; the next `resume` hands it over.
    #[napi(catch_unwind)]
    pub fn use_record(&mut self, text: Utf16Text, table: Int32Array, base: i32) -> Result<()> {
        let record = live_record(Some(text), Some(table), Some(base))?.ok_or_else(|| internal_error("no record"))?;
        self.inner.provide_record(record);
        Ok(())
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
    pub fn load_output(&mut self) -> Result<LoadToolOutput> {
        match self.outcome()? {
            Outcome::Load(outcome) => Ok(outcome.into()),
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

/// `load_tool`'s answer; `shape` (a load-shape code) says which keys the
/// wrapper puts in the result.
#[napi(object)]
pub struct LoadToolOutput {
    pub shape: i32,
    pub success: bool,
    pub message: Utf16String,
    pub tool_name: Option<Utf16String>,
    pub loaded_count: Option<u32>,
    pub loaded: Option<Vec<Utf16String>>,
    pub not_found: Option<Vec<Utf16String>>,
    pub already_loaded: Option<Vec<Utf16String>>,
}

impl From<LoadOutcome> for LoadToolOutput {
    fn from(outcome: LoadOutcome) -> Self {
        let shape = outcome.shape();
        let list = |names: Option<Vec<JsString>>| names.map(|names| names.into_iter().map(utf16).collect());
        let output = LoadToolOutput {
            shape,
            success: false,
            message: Utf16String::from(Vec::new()),
            tool_name: None,
            loaded_count: None,
            loaded: None,
            not_found: None,
            already_loaded: None,
        };
        match outcome {
            LoadOutcome::Invalid { message } => LoadToolOutput { message: utf16(message), ..output },
            LoadOutcome::Single { success, message, tool_name } => {
                LoadToolOutput { success, message: utf16(message), tool_name: Some(utf16(tool_name)), ..output }
            }
            LoadOutcome::Multi { success, message, loaded_count, loaded, not_found, already_loaded } => {
                LoadToolOutput {
                    success,
                    message: utf16(message),
                    loaded_count: Some(loaded_count as u32),
                    loaded: list(loaded),
                    not_found: list(not_found),
                    already_loaded: list(already_loaded),
                    ..output
                }
            }
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
}

#[napi]
impl NativeStep {
    /// `search_tools` without a filter hook, trusting the catalog's tables:
    /// the resolutions made go to `out` as checks (see [`flat`]), for the
    /// wrapper to check against the caller's record, which may have changed
    /// since (it runs [`search_operation`](Self::search_operation) instead
    /// should any not hold, and when searching changes state, always over a
    /// live catalog); then the answer, laid out after them and its text
    /// returned, or as an object when it does not fit.
    #[napi(catch_unwind)]
    pub fn search(
        &self,
        query: Utf16String,
        now: f64,
        mut out: Int32Out,
        query_vector: Option<Float32Array>,
    ) -> Result<Either<Utf16String, SearchToolsOutput>> {
        let trusted = VerifyAfter::default();
        let step = self.step()?;
        let outcome = run_now(self.search.search_with_vector(&step, &query, query_vector.as_deref(), &trusted, now))?;
        flat::search_answer(outcome, Checks::of_search(trusted)?, &mut out)
    }

    /// `search_tools` as an operation, asking the host about each candidate
    /// in rank order.
    #[napi(catch_unwind)]
    pub fn search_operation(
        &self,
        query: Utf16String,
        now: f64,
        query_vector: Option<Float32Array>,
    ) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        let query_vector: Option<Vec<f32>> = query_vector.map(|v| v.to_vec());
        Ok(NativeOperation::start(Phase::Search, move |hook| async move {
            Outcome::Search(search.search_with_vector(&step, &query, query_vector.as_deref(), &hook, now).await)
        }))
    }

    /// `load_tool` at once, for a processor without a filter hook whose
    /// step catalog is not live.
    #[napi(catch_unwind)]
    pub fn load(
        &self,
        tool_name: Option<Utf16String>,
        tool_names: Option<Vec<Utf16String>>,
        now: f64,
    ) -> Result<LoadToolOutput> {
        let tool_names = to_names(tool_names);
        let outcome =
            run_now(self.search.load(&self.step()?, tool_name.as_deref(), tool_names.as_deref(), &NoFilter, now))?;
        Ok(outcome.into())
    }

    /// `load_tool` as an operation, asking the host about each name and
    /// suggestion.
    #[napi(catch_unwind)]
    pub fn load_operation(
        &self,
        tool_name: Option<Utf16String>,
        tool_names: Option<Vec<Utf16String>>,
        now: f64,
    ) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        let tool_name = tool_name.map(|name| JsString::from(&name[..]));
        let tool_names = to_names(tool_names);
        Ok(NativeOperation::start(Phase::Load, move |hook| async move {
            Outcome::Load(search.load(&step, tool_name.as_deref(), tool_names.as_deref(), &hook, now).await)
        }))
    }

    /// The loaded tools as of this step's start, without a filter hook,
    /// trusting the catalog's tables, with the checks (see
    /// [`search`](Self::search)); `null` when nothing is loaded, which most
    /// steps find, for far less than an empty answer costs to make.
    #[napi(catch_unwind)]
    pub fn active(&self) -> Result<Option<ActiveTools>> {
        let names = {
            let loaded = self.loaded.lock();
            if loaded.is_empty() {
                return Ok(None);
            }
            loaded.clone()
        };
        let trusted = VerifyAfter::default();
        let tools = run_now(self.search.active_tools(&*built(&self.catalog)?, &names, &trusted))?;
        Ok(Some(active_tools(tools, Checks::of(trusted)?)))
    }

    /// The loaded tools as an operation, asking the host about each
    /// (phase `'active'`).
    #[napi(catch_unwind)]
    pub fn active_operation(&self) -> Result<NativeOperation> {
        let (search, step) = (self.search.clone(), self.step()?);
        Ok(NativeOperation::start(Phase::Active, move |hook| async move {
            let names = step.loaded.lock().clone();
            Outcome::Active(search.active_tools(&step.catalog, &names, &hook).await)
        }))
    }

    /// The system message listing the step's catalog (`injectCatalog`) as
    /// an operation, asking the hook about each tool (phase `'search'`);
    /// with a record as for `NativeToolSearch.catalogMessage`.
    #[napi(catch_unwind)]
    pub fn catalog_operation(
        &self,
        record_text: Option<Utf16Text>,
        record_table: Option<Int32Array>,
        base: Option<i32>,
    ) -> Result<NativeOperation> {
        let record = live_record(record_text, record_table, base)?;
        let (search, step) = (self.search.clone(), self.step()?);
        Ok(NativeOperation::start(Phase::Search, move |hook| async move {
            Outcome::Catalog(search.catalog_message(&step.catalog, record.as_deref(), &hook).await)
        }))
    }
}

fn to_names(names: Option<Vec<Utf16String>>) -> Option<Vec<JsString>> {
    names.map(|names| names.iter().map(|n| JsString::from(&n[..])).collect())
}

/// The model-facing strings of the meta-tools' schemas; the instruction and
/// `search_tools`' description come with each processor's
/// [`settings`](NativeToolSearch::settings).
#[napi(object)]
pub struct ToolSearchStrings {
    pub search_query_description: String,
    pub load_description: String,
    pub load_tool_name_description: String,
    pub load_tool_names_description: String,
}

#[napi(catch_unwind)]
pub fn tool_search_strings() -> ToolSearchStrings {
    ToolSearchStrings {
        search_query_description: messages::SEARCH_QUERY_DESCRIPTION.into(),
        load_description: messages::LOAD_DESCRIPTION.into(),
        load_tool_name_description: messages::LOAD_TOOL_NAME_DESCRIPTION.into(),
        load_tool_names_description: messages::LOAD_TOOL_NAMES_DESCRIPTION.into(),
    }
}
