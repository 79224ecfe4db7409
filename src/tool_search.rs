//! The decisions of `ToolSearchProcessor`: which catalog a step searches,
//! which tools are loaded, what `search_tools` and `load_tool` answer, and
//! which loaded tools a request may use.
//!
//! The filter hook is the one thing that must run in JavaScript, possibly
//! asynchronously, in the middle of these decisions. It is abstracted as
//! [`ToolFilter`]; the binding implements it with a threadsafe function, and
//! [`NoFilter`] answers at once, so without a hook every operation completes
//! on its first poll and the binding can run it synchronously.

pub mod messages;

use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::js::{array_index, JsString};
use crate::search::{
    Catalog, CatalogError, EntrySpans, ParamTable, Ranking, SearchHit, SearchOptions, SearchWalk, Span,
};
use crate::stores::{activated_names_from_messages, ContextStore, InMemoryStore, NameSet, StoreStats, ToolResultFacts};

/// Where the filter hook is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Search,
    Load,
    Active,
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

/// A tool as the host knows it: an index into the constructor's tools
/// (`>= 0`) or into the step's resolved tools (`-1 - index`).
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    InMemory,
    Context,
}

/// The constructor options, converted once at the edge.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub search: SearchOptions,
    pub auto_load: bool,
    pub include_resolved_tools: bool,
    pub storage: Storage,
    /// `ttl ?? 3600000`, as JavaScript gave it.
    pub ttl_ms: f64,
    /// `search.ranking`: how the catalogs rank `search_tools` results.
    pub ranking: Ranking,
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
/// a non-empty string, and `tool.description || ''`.
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
        Ok(ToolSearch {
            options,
            static_catalog: Arc::new(Catalog::with_ranking(
                text,
                entries,
                options.ranking,
                parameters.filter(|_| options.ranking.reads_parameters()),
            )?),
            static_entries,
            store: Mutex::new(store),
        })
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
            return Ok(StepCatalog { catalog: self.static_catalog.clone(), sources: None, visible: None });
        }
        let visible = resolved.iter().enumerate().filter(|(_, t)| is_meta_tool(t.key)).map(|(i, _)| i as u32).collect();
        if resolved.iter().all(|t| is_meta_tool(t.key)) {
            return Ok(StepCatalog { catalog: self.static_catalog.clone(), sources: None, visible: Some(visible) });
        }

        // `{ ...staticTools, ...resolved }`: a resolved key replaces a static
        // one in place, new keys are appended, and array-index keys come
        // first in ascending order, as in any JavaScript object.
        let mut merged: indexmap::IndexMap<&[u16], MergedTool<'_>> =
            indexmap::IndexMap::with_capacity(self.static_entries.len() + resolved.len());
        for (i, (key, id, description)) in self.static_entries.iter().enumerate() {
            merged.insert(key.units(), (i as ToolRef, id.as_ref().map(JsString::units), description.units()));
        }
        for (i, tool) in resolved.iter().enumerate() {
            if !is_meta_tool(tool.key) {
                merged.insert(tool.key, (-1 - i as ToolRef, tool.id, tool.description));
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
                // resolved one's in `parameters`, by its index.
                let params: Vec<(&[u16], &[u16])> = if source >= 0 {
                    self.static_catalog.parameters(source as usize).collect()
                } else {
                    parameters.into_iter().flat_map(|p| p.entry((-1 - source) as usize)).collect()
                };
                builder.push_with_parameters(key, id, description, params);
            } else {
                builder.push(key, id, description);
            }
            sources.push(source);
        }
        Ok(StepCatalog { catalog: Arc::new(builder.build()?), sources: Some(sources), visible: Some(visible) })
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

/// The request's thread: `mastra__threadId`, else the memory thread the
/// Agent put in the request context, else none. Empty ids count as absent.
pub fn thread_id(context_thread: Option<JsString>, memory_thread: Option<JsString>) -> Option<JsString> {
    context_thread.filter(|t| !t.is_empty()).or(memory_thread.filter(|t| !t.is_empty()))
}

#[cfg(test)]
mod tests;
