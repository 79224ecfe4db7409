//! `NativeToolSearch` and `NativeStep`: the Rust half of `ToolSearchProcessor`.
//!
//! Tool records cross once, as one UTF-16 string and a span table; queries and
//! names cross as UTF-16 so lone surrogates survive. Tools themselves stay in
//! JavaScript: Rust refers to them by [`ToolRef`]. Operations that consult
//! the filter hook run as a [`NativeOperation`], suspended at each question.

use std::sync::Arc;

use mastra_native_processors::js::JsString;
use mastra_native_processors::search::{EntrySpans, SearchOptions, Span};
use mastra_native_processors::stores::ToolResultFacts;
use mastra_native_processors::tool_search::{
    thread_id, LoadOutcome, NoFilter, Options, Phase, SearchOutcome, Step, StepCatalog, Storage, ToolEntry, ToolFilter,
    ToolRef, ToolSearch, Verdict,
};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::utf16::Utf16Text;

fn type_error(error: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, format!("ToolSearchProcessor: {error}"))
}

#[napi(object)]
pub struct ToolSearchConfig {
    pub top_k: f64,
    pub min_score: f64,
    pub auto_load: bool,
    pub include_resolved_tools: bool,
    pub context_storage: bool,
    pub ttl: f64,
    pub has_filter: bool,
    /// `search.ranking`; absent is `'reference'`.
    pub ranking: Option<String>,
}

/// Reads a tool table: `spans` holds `[keyLength, idLength, descriptionLength]`
/// per tool, laid end to end in text of `text_len` units; an id length of -1
/// means no id, and -2 an id equal to the key (which is then not repeated).
fn read_spans(text_len: usize, spans: &[i32]) -> Result<Vec<EntrySpans>> {
    let bad = || type_error("malformed tool table");
    if !spans.len().is_multiple_of(3) {
        return Err(bad());
    }
    let mut at = 0u32;
    let mut take = |len: i32| -> Result<Span> {
        let len = u32::try_from(len).map_err(|_| bad())?;
        let span = Span::new(at, at.checked_add(len).ok_or_else(bad)?);
        at = span.end;
        Ok(span)
    };
    let entries = spans
        .chunks_exact(3)
        .map(|row| {
            let key = take(row[0])?;
            let id = match row[1] {
                -1 => None,
                -2 => Some(key),
                len => Some(take(len)?),
            };
            Ok(EntrySpans { key, id, description: take(row[2])? })
        })
        .collect::<Result<Vec<_>>>()?;
    if at as usize != text_len {
        return Err(bad());
    }
    Ok(entries)
}

fn tool_entries<'t>(text: &'t [u16], spans: &[EntrySpans]) -> Vec<ToolEntry<'t>> {
    let piece = |span: Span| &text[span.start as usize..span.end as usize];
    spans
        .iter()
        .map(|e| ToolEntry { key: piece(e.key), id: e.id.map(piece), description: piece(e.description) })
        .collect()
}

#[napi]
pub struct NativeToolSearch {
    inner: Arc<ToolSearch>,
}

#[napi]
impl NativeToolSearch {
    /// `parameters_text` and `parameters` carry the tools' parameters for a
    /// ranking that reads them (see `ranking.rs`).
    #[napi(constructor)]
    pub fn new(
        config: ToolSearchConfig,
        text: Utf16Text,
        spans: Int32Array,
        parameters_text: Option<Utf16Text>,
        parameters: Option<Int32Array>,
    ) -> Result<Self> {
        let options = Options {
            search: SearchOptions { top_k: config.top_k, min_score: config.min_score, has_filter: config.has_filter },
            auto_load: config.auto_load,
            include_resolved_tools: config.include_resolved_tools,
            storage: if config.context_storage { Storage::Context } else { Storage::InMemory },
            ttl_ms: config.ttl,
            ranking: crate::ranking::ranking(config.ranking.as_deref())?,
        };
        let Utf16Text(text) = text;
        let entries = read_spans(text.len(), &spans)?;
        let parameters = crate::ranking::parameters(parameters_text, parameters, entries.len())?;
        let inner = ToolSearch::from_table_with_parameters(options, text, entries, parameters).map_err(type_error)?;
        Ok(Self { inner: Arc::new(inner) })
    }

    /// How often to sweep idle threads, or `null` for never.
    #[napi(getter)]
    pub fn sweep_interval_ms(&self) -> Option<f64> {
        self.inner.sweep_interval_ms()
    }

    /// The catalog of a step whose agent resolved these tools (the same
    /// table form as the constructor's). The wrapper keeps it while the step
    /// tools stay the very same objects.
    #[napi]
    pub fn step_catalog(
        &self,
        text: Utf16Text,
        spans: Int32Array,
        parameters_text: Option<Utf16Text>,
        parameters: Option<Int32Array>,
    ) -> Result<NativeStepCatalog> {
        let Utf16Text(text) = text;
        let spans = read_spans(text.len(), &spans)?;
        let parameters = crate::ranking::parameters(parameters_text, parameters, spans.len())?;
        let catalog = self
            .inner
            .step_catalog_with_parameters(&tool_entries(&text, &spans), parameters.as_ref())
            .map_err(type_error)?;
        Ok(NativeStepCatalog { inner: Arc::new(catalog) })
    }

    /// Starts a step (or a resume-path lookup). `catalog` comes from
    /// [`step_catalog`](Self::step_catalog), or is absent when the step has no
    /// tools of its own to search; `facts` is the context store's reading of
    /// the messages (see `lib/tool-search.js`), absent on the resume path.
    #[napi]
    pub fn begin_step(
        &self,
        context_thread: Option<Utf16String>,
        memory_thread: Option<Utf16String>,
        catalog: Option<&NativeStepCatalog>,
        facts_text: Option<Utf16String>,
        facts: Option<Int32Array>,
        now: f64,
    ) -> Result<NativeStep> {
        let catalog = match catalog {
            Some(catalog) => catalog.inner.clone(),
            None => Arc::new(self.inner.step_catalog(&[]).map_err(type_error)?),
        };
        let thread =
            thread_id(context_thread.map(|t| JsString::from(&t[..])), memory_thread.map(|t| JsString::from(&t[..])));
        let facts = match facts {
            Some(facts) => Some(read_facts(facts_text.as_deref().unwrap_or_default(), &facts)?),
            None => None,
        };
        let loaded = self.inner.loaded_names(thread.as_ref().map(JsString::units), facts.as_deref(), now);
        Ok(NativeStep { search: self.inner.clone(), step: Arc::new(Step::new(catalog, thread, loaded)) })
    }

    #[napi]
    pub fn clear_state(&self, thread: Option<Utf16String>) {
        self.inner.clear_state(thread.as_deref());
    }

    #[napi]
    pub fn clear_all_state(&self) {
        self.inner.clear_all_state();
    }

    #[napi]
    pub fn state_stats(&self, now: f64) -> StateStats {
        let stats = self.inner.state_stats(now);
        StateStats { thread_count: stats.thread_count as u32, oldest_access_time: stats.oldest_access_ms }
    }

    #[napi]
    pub fn cleanup_now(&self, now: f64) -> u32 {
        self.inner.cleanup_now(now) as u32
    }
}

/// A step catalog built from request-resolved tools.
#[napi]
pub struct NativeStepCatalog {
    inner: Arc<StepCatalog>,
}

#[napi(object)]
pub struct StateStats {
    pub thread_count: u32,
    pub oldest_access_time: Option<f64>,
}

/// Reads the context store's facts: per `search_tools`/`load_tool` part,
/// `[kind (1 search_tools, 2 load_tool), isResult, n, len*n, m, len*m, singleLen or -1]`
/// with the names laid end to end in `text`.
fn read_facts(text: &[u16], facts: &[i32]) -> Result<Vec<ToolResultFacts>> {
    let mut reader = FactsReader { facts, at: 0, text, text_at: 0 };
    let mut out = Vec::new();
    while reader.at < facts.len() {
        let tool_name = match reader.next()? {
            1 => JsString::from("search_tools"),
            2 => JsString::from("load_tool"),
            _ => return Err(FactsReader::bad()),
        };
        let is_result_state = reader.next()? != 0;
        let result_names = reader.names()?;
        let loaded = reader.names()?;
        let single = reader.next()?;
        let single_loaded = if single < 0 { None } else { Some(reader.name(single)?) };
        out.push(ToolResultFacts { tool_name: Some(tool_name), is_result_state, result_names, loaded, single_loaded });
    }
    Ok(out)
}

struct FactsReader<'a> {
    facts: &'a [i32],
    at: usize,
    text: &'a [u16],
    text_at: usize,
}

impl FactsReader<'_> {
    fn bad() -> Error {
        type_error("malformed message facts")
    }

    fn next(&mut self) -> Result<i32> {
        let value = *self.facts.get(self.at).ok_or_else(Self::bad)?;
        self.at += 1;
        Ok(value)
    }

    fn name(&mut self, len: i32) -> Result<JsString> {
        let len = usize::try_from(len).map_err(|_| Self::bad())?;
        let units = self.text.get(self.text_at..self.text_at + len).ok_or_else(Self::bad)?;
        self.text_at += len;
        Ok(JsString::from(units))
    }

    fn names(&mut self) -> Result<Vec<JsString>> {
        let count = self.next()?;
        (0..count).map(|_| self.next().and_then(|len| self.name(len))).collect()
    }
}

/// The hook's side of an [`Operation`]: the question the operation is
/// waiting on, and the answer once JavaScript has given it.
#[derive(Default)]
struct Exchange {
    question: Option<(ToolRef, Phase)>,
    answer: Option<Verdict>,
}

/// A [`ToolFilter`] whose answers come from JavaScript between polls: asking
/// parks the question and suspends the operation until the wrapper resumes it.
#[derive(Clone, Default)]
struct Relay(Arc<parking_lot::Mutex<Exchange>>);

impl ToolFilter for Relay {
    fn check(&self, tool: ToolRef, phase: Phase) -> impl std::future::Future<Output = Verdict> {
        let exchange = self.0.clone();
        let mut asked = false;
        std::future::poll_fn(move |_| {
            let mut exchange = exchange.lock();
            if asked {
                if let Some(verdict) = exchange.answer.take() {
                    return std::task::Poll::Ready(verdict);
                }
            } else {
                exchange.question = Some((tool, phase));
                asked = true;
            }
            std::task::Poll::Pending
        })
    }
}

type Running<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;

/// What an operation ends with.
enum Outcome {
    Search(SearchToolsOutput),
    Load(LoadToolOutput),
    Active(ActiveTools),
}

/// A `search_tools`, `load_tool` or active-tools resolution that consults the
/// filter hook. It runs on the JavaScript thread, in steps: each
/// [`resume`](Self::resume) runs it until it needs the hook's verdict on
/// [`tool`](Self::tool) or finishes. The wrapper calls the hook in between
/// (awaiting it only when it returns a promise), so a synchronous hook costs
/// two native calls and no thread hop, and no Rust lock is held while it runs.
#[napi]
pub struct NativeOperation {
    running: Option<Running<Outcome>>,
    relay: Relay,
    outcome: Option<Outcome>,
}

impl NativeOperation {
    fn new(relay: Relay, future: impl std::future::Future<Output = Outcome> + Send + 'static) -> NativeOperation {
        NativeOperation { running: Some(Box::pin(future)), relay, outcome: None }
    }
}

#[napi]
impl NativeOperation {
    /// Hands over the verdict on the last question (`1` allowed, `0` denied,
    /// `-1` the hook threw or rejected; ignored on the first call) and runs
    /// on. Returns the phase of the next question (0 search, 1 load, 2 active),
    /// or -1 once the operation is done.
    #[napi]
    pub fn resume(&mut self, verdict: i32) -> i32 {
        {
            let mut exchange = self.relay.0.lock();
            if exchange.question.take().is_some() {
                exchange.answer = Some(match verdict {
                    1 => Verdict::Allowed,
                    0 => Verdict::Denied,
                    _ => Verdict::Failed,
                });
            }
        }
        let Some(running) = self.running.as_mut() else { return -1 };
        match running.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
            std::task::Poll::Ready(outcome) => {
                self.running = None;
                self.outcome = Some(outcome);
                -1
            }
            std::task::Poll::Pending => match self.relay.0.lock().question {
                Some((_, Phase::Search)) => 0,
                Some((_, Phase::Load)) => 1,
                Some((_, Phase::Active)) => 2,
                // Only the relay ever suspends an operation.
                None => -1,
            },
        }
    }

    /// The tool the pending question is about.
    #[napi(getter)]
    pub fn tool(&self) -> i32 {
        self.relay.0.lock().question.map_or(0, |(tool, _)| tool)
    }

    #[napi]
    pub fn search_output(&mut self) -> Result<SearchToolsOutput> {
        match self.outcome.take() {
            Some(Outcome::Search(output)) => Ok(output),
            _ => Err(type_error("no search result")),
        }
    }

    #[napi]
    pub fn load_output(&mut self) -> Result<LoadToolOutput> {
        match self.outcome.take() {
            Some(Outcome::Load(output)) => Ok(output),
            _ => Err(type_error("no load result")),
        }
    }

    #[napi]
    pub fn active_output(&mut self) -> Result<ActiveTools> {
        match self.outcome.take() {
            Some(Outcome::Active(output)) => Ok(output),
            _ => Err(type_error("no active tools")),
        }
    }
}

/// Runs an operation that has no hook to wait for; it completes on its first poll.
fn run_now<T>(future: impl std::future::Future<Output = T>) -> T {
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(value) => value,
        std::task::Poll::Pending => unreachable!("an operation without a hook waited"),
    }
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

/// `load_tool`'s answer; `shape` says which keys the wrapper puts in the
/// result: 0 `{ success, message }`, 1 `{ success, message, toolName }`,
/// 2 `{ success, message, loadedCount, loaded, notFound, alreadyLoaded }`.
#[napi(object)]
pub struct LoadToolOutput {
    pub shape: u32,
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
        let list = |names: Option<Vec<JsString>>| names.map(|names| names.into_iter().map(utf16).collect());
        match outcome {
            LoadOutcome::Invalid { message } => LoadToolOutput {
                shape: 0,
                success: false,
                message: utf16(message),
                tool_name: None,
                loaded_count: None,
                loaded: None,
                not_found: None,
                already_loaded: None,
            },
            LoadOutcome::Single { success, message, tool_name } => LoadToolOutput {
                shape: 1,
                success,
                message: utf16(message),
                tool_name: Some(utf16(tool_name)),
                loaded_count: None,
                loaded: None,
                not_found: None,
                already_loaded: None,
            },
            LoadOutcome::Multi { success, message, loaded_count, loaded, not_found, already_loaded } => {
                LoadToolOutput {
                    shape: 2,
                    success,
                    message: utf16(message),
                    tool_name: None,
                    loaded_count: Some(loaded_count as u32),
                    loaded: list(loaded),
                    not_found: list(not_found),
                    already_loaded: list(already_loaded),
                }
            }
        }
    }
}

/// The loaded tools a request may use: names, and the tools they resolve to.
#[napi(object)]
pub struct ActiveTools {
    pub names: Vec<Utf16String>,
    pub tools: Int32Array,
}

fn utf16(s: JsString) -> Utf16String {
    Utf16String::from(s.into_units().into_vec())
}

fn active_tools(names_and_tools: Vec<(JsString, ToolRef)>) -> ActiveTools {
    let (names, tools): (Vec<_>, Vec<_>) = names_and_tools.into_iter().map(|(name, tool)| (utf16(name), tool)).unzip();
    ActiveTools { names, tools: Int32Array::new(tools) }
}

#[napi]
pub struct NativeStep {
    search: Arc<ToolSearch>,
    step: Arc<Step>,
}

#[napi]
impl NativeStep {
    /// The step's own tools that stay in the prompt (indexes into them), or
    /// `null` when all do.
    #[napi(getter)]
    pub fn visible(&self) -> Option<Int32Array> {
        self.step.catalog.visible.as_ref().map(|v| Int32Array::new(v.iter().map(|&i| i as i32).collect()))
    }

    /// `search_tools`, for a processor without a filter hook.
    #[napi]
    pub fn search(&self, query: Utf16String, now: f64) -> SearchToolsOutput {
        run_now(self.search.search(&self.step, &query, &NoFilter, now)).into()
    }

    /// `search_tools`, asking the hook about each candidate in rank order.
    #[napi]
    pub fn search_with_hook(&self, query: Utf16String, now: f64) -> NativeOperation {
        let (search, step, relay) = (self.search.clone(), self.step.clone(), Relay::default());
        let hook = relay.clone();
        NativeOperation::new(
            relay,
            async move { Outcome::Search(search.search(&step, &query, &hook, now).await.into()) },
        )
    }

    /// `load_tool`, for a processor without a filter hook.
    #[napi]
    pub fn load(
        &self,
        tool_name: Option<Utf16String>,
        tool_names: Option<Vec<Utf16String>>,
        now: f64,
    ) -> LoadToolOutput {
        let tool_names = to_names(tool_names);
        run_now(self.search.load(&self.step, tool_name.as_deref(), tool_names.as_deref(), &NoFilter, now)).into()
    }

    /// `load_tool`, asking the hook before loading and before suggesting.
    #[napi]
    pub fn load_with_hook(
        &self,
        tool_name: Option<Utf16String>,
        tool_names: Option<Vec<Utf16String>>,
        now: f64,
    ) -> NativeOperation {
        let (search, step, relay) = (self.search.clone(), self.step.clone(), Relay::default());
        let hook = relay.clone();
        let tool_name = tool_name.map(|name| JsString::from(&name[..]));
        let tool_names = to_names(tool_names);
        NativeOperation::new(relay, async move {
            let output = search.load(&step, tool_name.as_deref(), tool_names.as_deref(), &hook, now).await;
            Outcome::Load(output.into())
        })
    }

    /// The loaded tools as of this step's start.
    #[napi]
    pub fn active(&self) -> ActiveTools {
        let names = self.step.loaded.lock().clone();
        active_tools(run_now(self.search.active_tools(&self.step.catalog, &names, &NoFilter)))
    }

    /// The loaded tools the hook still allows (phase `'active'`).
    #[napi]
    pub fn active_with_hook(&self) -> NativeOperation {
        let (search, step, relay) = (self.search.clone(), self.step.clone(), Relay::default());
        let hook = relay.clone();
        NativeOperation::new(relay, async move {
            let names = step.loaded.lock().clone();
            Outcome::Active(active_tools(search.active_tools(&step.catalog, &names, &hook).await))
        })
    }
}

fn to_names(names: Option<Vec<Utf16String>>) -> Option<Vec<JsString>> {
    names.map(|names| names.iter().map(|n| JsString::from(&n[..])).collect())
}

/// The model-facing strings the wrapper puts in tool definitions and the
/// system message; they live in the core with every other message.
#[napi(object)]
pub struct ToolSearchStrings {
    pub instruction: String,
    pub instruction_auto_load: String,
    pub search_description: String,
    pub search_description_auto_load: String,
    pub search_query_description: String,
    pub load_description: String,
    pub load_tool_name_description: String,
    pub load_tool_names_description: String,
}

#[napi]
pub fn tool_search_strings() -> ToolSearchStrings {
    use mastra_native_processors::tool_search::messages as m;
    ToolSearchStrings {
        instruction: m::INSTRUCTION.into(),
        instruction_auto_load: m::INSTRUCTION_AUTO_LOAD.into(),
        search_description: m::SEARCH_DESCRIPTION.into(),
        search_description_auto_load: m::SEARCH_DESCRIPTION_AUTO_LOAD.into(),
        search_query_description: m::SEARCH_QUERY_DESCRIPTION.into(),
        load_description: m::LOAD_DESCRIPTION.into(),
        load_tool_name_description: m::LOAD_TOOL_NAME_DESCRIPTION.into(),
        load_tool_names_description: m::LOAD_TOOL_NAMES_DESCRIPTION.into(),
    }
}
