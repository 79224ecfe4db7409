//! The decisions of `ToolSearchProcessor`: which catalog a step searches,
//! which tools are loaded, what `search_tools` and `load_tool` answer, which
//! loaded tools a request may use, and the catalog a step lists.
//!
//! The filter hook is the one thing that must run in JavaScript, possibly
//! asynchronously, in the middle of these decisions. It is abstracted as
//! [`ToolFilter`]: [`NoFilter`] answers at once, so without a hook every
//! operation completes on its first poll and runs synchronously; with one,
//! the operation runs as a resumable [`operation::Operation`] on the
//! JavaScript thread, suspended at each question (the mechanism is described
//! in [`operation`]).
//!
//! What JavaScript hands over is read here too: the options
//! ([`options::Options::from_given`]), the request's thread
//! ([`request::request_thread`]) and the codes and names both sides share.

pub mod given;
pub mod messages;
pub mod operation;
pub mod options;
pub mod request;

use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::js::{array_index, JsString};
use crate::search::{Catalog, CatalogError, EntrySpans, ParamTable, SearchHit, SearchWalk, Span};
use crate::stores::{activated_names_from_messages, ContextStore, InMemoryStore, NameSet, StoreStats, ToolResultFacts};

pub use options::{Options, Storage};

/// Where the filter hook is asked: the `phase` the hook receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `search_tools` results and the injected catalog.
    Search,
    /// `load_tool`, and its "did you mean" suggestions.
    Load,
    /// Loaded tools, as each step hands them to the model.
    Active,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Search, Phase::Load, Phase::Active];

    /// The `phase` string the hook receives.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Search => "search",
            Phase::Load => "load",
            Phase::Active => "active",
        }
    }
}

/// What the hook answered. A hook that threw or rejected does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Denied,
    Failed,
}

impl Verdict {
    pub fn allows(self) -> bool {
        self == Verdict::Allowed
    }
}

/// A tool as the host knows it: `i` for the constructor's tool `i`, and
/// `n + i` for the step's resolved tool `i` when the constructor had `n`
/// tools. Never negative.
pub type ToolRef = i32;

/// The request-aware filter hook.
pub trait ToolFilter {
    /// Whether the tool behind `tool` may be used in `phase`.
    fn check(&self, tool: ToolRef, phase: Phase) -> impl Future<Output = Verdict>;
}

/// No hook: everything is allowed, immediately.
pub struct NoFilter;

impl ToolFilter for NoFilter {
    fn check(&self, _tool: ToolRef, _phase: Phase) -> impl Future<Output = Verdict> {
        std::future::ready(Verdict::Allowed)
    }
}

enum Store {
    InMemory(InMemoryStore),
    Context(ContextStore),
}

/// The names of the meta-tools: never searchable, never withheld.
pub const SEARCH_TOOLS: &str = "search_tools";
pub const LOAD_TOOL: &str = "load_tool";

fn is_meta_tool(key: &[u16]) -> bool {
    key.iter().copied().eq(SEARCH_TOOLS.encode_utf16()) || key.iter().copied().eq(LOAD_TOOL.encode_utf16())
}

/// One tool record entry as the binding read it: `key`, `tool.id` when it is
/// a string (`''` included: it is found by id, though indexed under the key),
/// and `tool.description || ''`.
pub struct ToolEntry<'a> {
    pub key: &'a [u16],
    pub id: Option<&'a [u16]>,
    pub description: &'a [u16],
}

/// A tool of a merged step catalog: where it lives, its id and description.
type MergedTool<'a> = (ToolRef, Option<&'a [u16]>, &'a [u16]);

/// The catalog a step searches, and where its entries' tools live.
pub struct StepCatalog {
    pub catalog: Arc<Catalog>,
    /// For each catalog entry, its tool; `None` for the static catalog, whose
    /// entry `i` is the constructor's tool `i`.
    pub sources: Option<Vec<ToolRef>>,
    /// The step's own tools that stay in the prompt, as indexes into the
    /// resolved tools; `None` means all of them.
    pub visible: Option<Vec<u32>>,
}

impl StepCatalog {
    fn new(catalog: Arc<Catalog>, sources: Option<Vec<ToolRef>>, visible: Option<Vec<u32>>) -> StepCatalog {
        StepCatalog { catalog, sources, visible }
    }

    pub fn source(&self, entry: usize) -> ToolRef {
        match &self.sources {
            Some(sources) => sources[entry],
            None => entry as ToolRef,
        }
    }
}

/// The processor's state: its options, the static catalog and the store.
pub struct ToolSearch {
    options: Options,
    static_catalog: Arc<Catalog>,
    /// The static catalog as a step searches it, shared by every step that
    /// has no tools of its own to search.
    static_step: Arc<StepCatalog>,
    /// The static tools' keys, ids and descriptions, to merge with resolved tools.
    static_entries: Vec<(JsString, Option<JsString>, JsString)>,
    store: Mutex<Store>,
}

impl ToolSearch {
    pub fn new(options: Options, tools: &[ToolEntry<'_>]) -> Result<ToolSearch, CatalogError> {
        let mut builder = Catalog::builder();
        for tool in tools {
            builder.push(tool.key, tool.id, tool.description);
        }
        let (text, entries) = builder.into_parts();
        ToolSearch::from_table(options, text, entries)
    }

    /// [`new`](Self::new) from the table the binding receives, without copying the text.
    pub fn from_table(options: Options, text: Vec<u16>, entries: Vec<EntrySpans>) -> Result<ToolSearch, CatalogError> {
        ToolSearch::from_table_with_parameters(options, text, entries, None)
    }

    /// [`from_table`](Self::from_table), with the tools' parameters (one list
    /// per entry) for a ranking that reads them; other rankings ignore them.
    pub fn from_table_with_parameters(
        options: Options,
        text: Vec<u16>,
        entries: Vec<EntrySpans>,
        parameters: Option<ParamTable>,
    ) -> Result<ToolSearch, CatalogError> {
        let static_entries = if options.include_resolved_tools {
            let piece =
                |span: Span| JsString::from(text.get(span.start as usize..span.end as usize).unwrap_or_default());
            entries.iter().map(|e| (piece(e.key), e.id.map(piece), piece(e.description))).collect()
        } else {
            Vec::new()
        };
        let store = match options.storage {
            Storage::InMemory => Store::InMemory(InMemoryStore::new(options.ttl_ms)),
            Storage::Context => Store::Context(ContextStore::new()),
        };
        let parameters = parameters.filter(|_| options.ranking.reads_parameters());
        let static_catalog = Arc::new(Catalog::with_ranking(text, entries, options.ranking, parameters)?);
        Ok(ToolSearch {
            options,
            static_step: Arc::new(StepCatalog::new(static_catalog.clone(), None, None)),
            static_catalog,
            static_entries,
            store: Mutex::new(store),
        })
    }

    /// The options, as applied.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// How often the binding should sweep idle threads, if at all.
    pub fn sweep_interval_ms(&self) -> Option<f64> {
        match &*self.store.lock() {
            Store::InMemory(store) => store.sweep_interval_ms(),
            Store::Context(_) => None,
        }
    }

    /// The catalog for a step whose agent resolved `resolved` tools (in
    /// `Object.entries` order). Resolved tools are indexed afresh for each
    /// request: two requests may carry tools of the same name bound to
    /// different credentials, and one must never get the other's.
    pub fn step_catalog(&self, resolved: &[ToolEntry<'_>]) -> Result<StepCatalog, CatalogError> {
        self.step_catalog_with_parameters(resolved, None)
    }

    /// [`step_catalog`](Self::step_catalog), with the resolved tools'
    /// parameters (one list per resolved tool) for a ranking that reads them.
    pub fn step_catalog_with_parameters(
        &self,
        resolved: &[ToolEntry<'_>],
        parameters: Option<&ParamTable>,
    ) -> Result<StepCatalog, CatalogError> {
        if !self.options.include_resolved_tools {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, None));
        }
        let visible = resolved.iter().enumerate().filter(|(_, t)| is_meta_tool(t.key)).map(|(i, _)| i as u32).collect();
        if resolved.iter().all(|t| is_meta_tool(t.key)) {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, Some(visible)));
        }

        // `{ ...staticTools, ...resolved }`: a resolved key replaces a static
        // one in place, new keys are appended, and array-index keys come
        // first in ascending order, as in any JavaScript object.
        let mut merged: indexmap::IndexMap<&[u16], MergedTool<'_>> =
            indexmap::IndexMap::with_capacity(self.static_entries.len() + resolved.len());
        let tool_ref = |i: usize| ToolRef::try_from(i).map_err(|_| CatalogError::TooLarge);
        let static_count = self.static_entries.len();
        for (i, (key, id, description)) in self.static_entries.iter().enumerate() {
            merged.insert(key.units(), (tool_ref(i)?, id.as_ref().map(JsString::units), description.units()));
        }
        for (i, tool) in resolved.iter().enumerate() {
            if !is_meta_tool(tool.key) {
                merged.insert(tool.key, (tool_ref(static_count + i)?, tool.id, tool.description));
            }
        }
        let mut order: Vec<usize> = (0..merged.len()).collect();
        order.sort_by_key(|&i| match array_index(merged.get_index(i).unwrap().0) {
            Some(index) => (0, index, 0),
            None => (1, 0, i),
        });

        let mut builder = Catalog::builder();
        builder.ranking(self.options.ranking);
        let reads_parameters = self.options.ranking.reads_parameters();
        let mut sources = Vec::with_capacity(order.len());
        for i in order {
            let (key, &(source, id, description)) = merged.get_index(i).unwrap();
            if reads_parameters {
                // A static tool's parameters are in the static catalog; a
                // resolved one's in `parameters`, by its index among the
                // resolved tools (see `ToolRef`).
                let source_index = source as usize;
                let params: Vec<(&[u16], &[u16])> = match source_index.checked_sub(static_count) {
                    None => self.static_catalog.parameters(source_index).collect(),
                    Some(resolved) => parameters.into_iter().flat_map(|p| p.entry(resolved)).collect(),
                };
                builder.push_with_parameters(key, id, description, params);
            } else {
                builder.push(key, id, description);
            }
            sources.push(source);
        }
        Ok(StepCatalog::new(Arc::new(builder.build()?), Some(sources), Some(visible)))
    }

    /// The catalog of a step that has no tools of its own to search.
    pub fn static_step_catalog(&self) -> Arc<StepCatalog> {
        self.static_step.clone()
    }

    /// The names loaded as of a step's start. `messages` is the context
    /// store's view of the conversation (`None` on the resume path).
    pub fn loaded_names(&self, thread: Option<&[u16]>, messages: Option<&[ToolResultFacts]>, now_ms: f64) -> NameSet {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.loaded_names(thread, now_ms),
            Store::Context(store) => store.loaded_names(thread, messages.map(activated_names_from_messages)),
        }
    }

    fn add_loaded(&self, names: &[JsString], thread: Option<&[u16]>, now_ms: f64) {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.add_loaded(names.iter().map(JsString::units), thread, now_ms),
            Store::Context(store) => store.add_loaded(names.iter().map(JsString::units), thread),
        }
    }

    pub fn clear_state(&self, thread: Option<&[u16]>) {
        if let Store::InMemory(store) = &mut *self.store.lock() {
            store.clear_state(thread);
        }
    }

    pub fn clear_all_state(&self) {
        if let Store::InMemory(store) = &mut *self.store.lock() {
            store.clear_all();
        }
    }

    pub fn state_stats(&self, now_ms: f64) -> StoreStats {
        match &*self.store.lock() {
            Store::InMemory(store) => store.stats(now_ms),
            Store::Context(_) => StoreStats { thread_count: 0, oldest_access_ms: None },
        }
    }

    pub fn cleanup_now(&self, now_ms: f64) -> usize {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.cleanup_stale(now_ms),
            Store::Context(_) => 0,
        }
    }

    /// `search_tools`. Activates the results in `autoLoad` mode.
    pub async fn search(&self, step: &Step, query: &[u16], filter: &impl ToolFilter, now_ms: f64) -> SearchOutcome {
        let catalog = &step.catalog.catalog;
        let mut walk = SearchWalk::new(catalog, query, &self.options.search);
        while let Some(pending) = walk.next_pending(catalog) {
            let verdict = self.check(filter, &step.catalog, pending.entry, Phase::Search).await;
            walk.resolve(verdict);
        }
        let results = walk.finish(catalog);
        if results.is_empty() {
            return SearchOutcome { message: messages::no_tools_found(query), results };
        }
        if !self.options.auto_load {
            return SearchOutcome { message: messages::found(results.len()), results };
        }

        let newly_loaded: Vec<JsString> = {
            let mut loaded = step.loaded.lock();
            let newly: Vec<JsString> =
                results.iter().filter(|r| !loaded.contains(&r.name)).map(|r| r.name.clone()).collect();
            loaded.extend(newly.iter().cloned());
            newly
        };
        self.add_loaded(&newly_loaded, step.thread(), now_ms);
        let message = messages::found_and_loaded(&results, newly_loaded.len() < results.len());
        SearchOutcome { results, message }
    }

    /// `load_tool`.
    pub async fn load(
        &self,
        step: &Step,
        tool_name: Option<&[u16]>,
        tool_names: Option<&[JsString]>,
        filter: &impl ToolFilter,
        now_ms: f64,
    ) -> LoadOutcome {
        // An empty `toolName` counts as absent, as it is falsy in JavaScript.
        let tool_name = tool_name.filter(|name| !name.is_empty());
        let to_load: Vec<JsString> = match (tool_names, tool_name) {
            (Some([]), None) => return LoadOutcome::Invalid { message: messages::EMPTY_TOOL_NAMES.into() },
            (Some(names @ [_, ..]), extra) => {
                let mut unique = NameSet::new();
                unique.extend(names.iter().cloned());
                unique.extend(extra.map(JsString::from));
                unique.into_iter().collect()
            }
            (_, Some(name)) => vec![JsString::from(name)],
            (_, None) => return LoadOutcome::Invalid { message: messages::NOTHING_TO_LOAD.into() },
        };

        let catalog = &step.catalog.catalog;
        let mut not_found = Vec::new();
        let mut already_loaded = Vec::new();
        let mut loaded: Vec<JsString> = Vec::new();
        for name in &to_load {
            let Some(entry) = catalog.find_for_dynamic_name(name.units(), self.has_filter()) else {
                not_found.push(name.clone());
                continue;
            };
            if !self.check(filter, &step.catalog, entry, Phase::Load).await {
                not_found.push(name.clone());
                continue;
            }
            if step.loaded.lock().contains(name) || loaded.contains(name) {
                already_loaded.push(name.clone());
                continue;
            }
            loaded.push(name.clone());
        }

        self.add_loaded(&loaded, step.thread(), now_ms);
        step.loaded.lock().extend(loaded.iter().cloned());

        if to_load.len() == 1 && tool_names.is_none() {
            let name = &to_load[0];
            if !not_found.is_empty() {
                let suggestions = self.suggestions(step, name.units(), filter).await;
                return LoadOutcome::Single {
                    success: false,
                    message: messages::not_found(name, &suggestions),
                    tool_name: name.clone(),
                };
            }
            if let Some(name) = already_loaded.first() {
                return LoadOutcome::Single {
                    success: true,
                    message: messages::already_loaded(name),
                    tool_name: name.clone(),
                };
            }
            return LoadOutcome::Single {
                success: true,
                message: messages::loaded_one(&loaded[0]),
                tool_name: loaded[0].clone(),
            };
        }

        LoadOutcome::Multi {
            success: not_found.is_empty(),
            message: messages::loaded_many(&loaded, &already_loaded, &not_found),
            loaded_count: loaded.len(),
            loaded: (!loaded.is_empty()).then_some(loaded),
            not_found: (!not_found.is_empty()).then_some(not_found),
            already_loaded: (!already_loaded.is_empty()).then_some(already_loaded),
        }
    }

    /// The system message that lists a step's catalog (`injectCatalog`), or
    /// `None` when the option is off or nothing is listed.
    ///
    /// Each record key, in `Object.keys` order, resolves to a tool as
    /// `load_tool` resolves a name (key first; id first with a filter hook),
    /// which the hook may hide (phase `'search'`). A line shows the tool's
    /// `id || key` and the description indexed under that name, truncated as
    /// in search results. Without a hook the message depends on the catalog
    /// alone, so a caller may keep it for as long as it keeps the catalog.
    pub async fn catalog_message(&self, catalog: &StepCatalog, filter: &impl ToolFilter) -> Option<JsString> {
        if !self.options.inject_catalog {
            return None;
        }
        let tools = &catalog.catalog;
        let mut lines = Vec::new();
        for entry in 0..tools.entry_count() {
            let key = tools.key(entry);
            let Some(tool) = tools.find_for_dynamic_name(key, self.has_filter()) else { continue };
            if !self.check(filter, catalog, tool, Phase::Search).await {
                continue;
            }
            // `tool.id || key`; the description is the one indexed under that
            // name, which a later tool of the same name may have replaced.
            let name = tools.id(tool).filter(|id| !id.is_empty()).unwrap_or(key);
            let description = tools.find_doc(name).map_or(&[][..], |doc| tools.description(tools.doc_entry(doc)));
            messages::push_catalog_line(&mut lines, name, description);
        }
        (!lines.is_empty()).then(|| messages::catalog(self.options.auto_load, &lines))
    }

    /// Keys that look like a name that was not found. Without a hook, every
    /// match (the message shows three); with one, the first three allowed.
    async fn suggestions(&self, step: &Step, tool_name: &[u16], filter: &impl ToolFilter) -> Vec<JsString> {
        let catalog = &step.catalog.catalog;
        let candidates = catalog.suggestion_candidates(tool_name);
        if !self.has_filter() {
            return candidates.into_iter().map(|entry| JsString::from(catalog.key(entry))).collect();
        }
        let mut allowed = Vec::new();
        for entry in candidates {
            let key = catalog.key(entry);
            let Some(tool) = catalog.find_for_dynamic_name(key, true) else { continue };
            if self.check(filter, &step.catalog, tool, Phase::Load).await {
                allowed.push(JsString::from(key));
                if allowed.len() >= 3 {
                    break;
                }
            }
        }
        allowed
    }

    /// The loaded tools a request may use, in load order: each name with the
    /// tool it resolves to. Names that no longer resolve, or that the hook
    /// now denies (phase `'active'`), are left out.
    pub async fn active_tools(
        &self,
        catalog: &StepCatalog,
        names: &NameSet,
        filter: &impl ToolFilter,
    ) -> Vec<(JsString, ToolRef)> {
        let mut active = Vec::with_capacity(names.len());
        for name in names {
            let Some(entry) = catalog.catalog.find_for_dynamic_name(name.units(), self.has_filter()) else {
                continue;
            };
            if self.check(filter, catalog, entry, Phase::Active).await {
                active.push((name.clone(), catalog.source(entry)));
            }
        }
        active
    }

    fn has_filter(&self) -> bool {
        self.options.search.has_filter
    }

    /// Asks the hook, if there is one, about the tool behind `entry`.
    async fn check(&self, filter: &impl ToolFilter, catalog: &StepCatalog, entry: usize, phase: Phase) -> bool {
        if !self.has_filter() {
            return true;
        }
        filter.check(catalog.source(entry), phase).await.allows()
    }
}

/// One `processInputStep`: its catalog, thread and the loaded names as of its
/// start, which its own `search_tools` and `load_tool` calls add to.
pub struct Step {
    pub catalog: Arc<StepCatalog>,
    pub thread: Option<JsString>,
    pub loaded: Mutex<NameSet>,
}

impl Step {
    pub fn new(catalog: Arc<StepCatalog>, thread: Option<JsString>, loaded: NameSet) -> Step {
        Step { catalog, thread, loaded: Mutex::new(loaded) }
    }

    fn thread(&self) -> Option<&[u16]> {
        self.thread.as_ref().map(JsString::units)
    }
}

/// What `search_tools` returns.
#[derive(Debug, PartialEq)]
pub struct SearchOutcome {
    pub results: Vec<SearchHit>,
    pub message: JsString,
}

/// The codes of [`LoadOutcome`]'s shapes, which say what keys the result
/// object has.
pub mod load_shape {
    /// `{ success, message }`
    pub const INVALID: i32 = 0;
    /// `{ success, message, toolName }`
    pub const SINGLE: i32 = 1;
    /// `{ success, message, loadedCount, loaded, notFound, alreadyLoaded }`
    pub const MULTI: i32 = 2;
}

/// What `load_tool` returns, in its three shapes.
#[derive(Debug, PartialEq)]
pub enum LoadOutcome {
    /// `{ success: false, message }`: nothing usable was asked for.
    Invalid { message: JsString },
    /// `{ success, message, toolName }`: the single-`toolName` form.
    Single { success: bool, message: JsString, tool_name: JsString },
    /// `{ success, message, loadedCount, loaded, notFound, alreadyLoaded }`,
    /// the lists `undefined` when empty.
    Multi {
        success: bool,
        message: JsString,
        loaded_count: usize,
        loaded: Option<Vec<JsString>>,
        not_found: Option<Vec<JsString>>,
        already_loaded: Option<Vec<JsString>>,
    },
}

impl LoadOutcome {
    /// Its [`load_shape`] code.
    pub fn shape(&self) -> i32 {
        match self {
            LoadOutcome::Invalid { .. } => load_shape::INVALID,
            LoadOutcome::Single { .. } => load_shape::SINGLE,
            LoadOutcome::Multi { .. } => load_shape::MULTI,
        }
    }
}

#[cfg(test)]
mod tests;
