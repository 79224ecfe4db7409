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
//! The tools record is the caller's object, which the reference keeps and
//! reads at every use, while the BM25 index and the descriptions stay as
//! they were at construction, in the reference too. Here one rule holds for
//! a record edited after construction: a key is read live (a tool added,
//! replaced or deleted under a key is found, or not, under that key at
//! once), and an id is resolved through the catalog's tables, made when the
//! record's tools were read, so no operation reads more of the record than
//! the keys of the names it looks up ([`operation::reads`] lists them; a
//! tool whose `id` changed in place, or one added under a key other than its
//! id, is found by that id once the tables are made again). Over such a
//! *live* catalog (see [`StepCatalog::live`]) each resolution is put to the
//! host as an [`Ask::Resolve`]: it answers with the tool the record gives
//! now, and whether the hook allows it. A host without a hook may instead
//! trust the tables ([`VerifyAfter`]) and have the binding make the same
//! reads afterwards, running the operation again with questions should any
//! differ. A step's own catalog is made of the record and the step's tools
//! as the step read them, and its tables are the answer. What lists the
//! record (the injected catalog, `load_tool`'s suggestions) lists the keys
//! the tables hold, and looks up only the keys it lists.
//!
//! What JavaScript hands over is read here too: the options
//! ([`options::ToolSearchOptions::from_given`]), the request's thread and the
//! meta-tools' inputs ([`request`]), and what it found in a tools record and
//! could not use ([`refusal::refuse_record_value`]). The codes, layouts and
//! names both sides share are the [`protocol`](crate::protocol::tool_search)'s.
//!
//! This module keeps the processor's own decisions ([`ToolSearch`]); the
//! hook's vocabulary, which the operations share, is [`hook`], and the
//! catalog a step searches, with the tools it is made of, [`step_catalog`].

pub mod ahead;
pub mod hook;
pub mod messages;
pub mod operation;
pub mod options;
pub mod refusal;
pub mod request;
pub mod step_catalog;

use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::js::JsString;
use crate::search::suggestion_matcher;
use crate::search::{
    embedding::ToolVectors, Catalog, CatalogError, EntrySpans, HybridConfig, ParamTable, Pattern, PoolEntry, PoolError,
    PoolSlot, Ranking, SearchHit, SearchWalk, ToolPool, VectorSource,
};
use crate::stores::history::ContinueError;
use crate::stores::{activated_names_from_messages, ContextStore, InMemoryStore, NameSet, StoreStats, ToolResultFacts};

pub use options::{Storage, Syntax, ToolSearchOptions};

pub use hook::{Answer, Ask, Found, Lookup, NoFilter, Phase, ToolFilter, ToolRef, Verdict, VerifyAfter};
use step_catalog::{listed, spread, SpreadKey};
pub use step_catalog::{CatalogCell, PoolChanges, PoolStep, PoolTool, PooledTool, StepCatalog, ToolEntry};

use ahead::{Ahead, Decision};

use crate::protocol::tool_search as protocol;
use protocol::is_meta_tool;

enum Store {
    InMemory(InMemoryStore),
    Context(ContextStore),
}

/// The processor's state: its options, the static catalog and the store.
pub struct ToolSearch {
    options: ToolSearchOptions,
    static_catalog: Arc<Catalog>,
    /// The static catalog as a step searches it, shared by every step that
    /// has no tools of its own to search.
    static_step: Arc<StepCatalog>,
    store: Mutex<Store>,
    /// The tools of earlier steps, analysed, for step catalogs made of them
    /// (see [`pooled_step_catalog`](Self::pooled_step_catalog)).
    pool: Mutex<ToolPool>,
}

impl ToolSearch {
    pub fn new(options: ToolSearchOptions, tools: &[ToolEntry<'_>]) -> Result<ToolSearch, CatalogError> {
        let mut builder = Catalog::builder();
        for tool in tools {
            builder.push(tool.key, tool.id, tool.description);
        }
        let (text, entries) = builder.into_parts();
        ToolSearch::from_table(options, text, entries)
    }

    /// [`new`](Self::new) from the table the binding receives, without copying the text.
    pub fn from_table(
        options: ToolSearchOptions,
        text: Vec<u16>,
        entries: Vec<EntrySpans>,
    ) -> Result<ToolSearch, CatalogError> {
        ToolSearch::from_table_with_parameters(options, text, entries, None)
    }

    /// [`from_table`](Self::from_table), with the tools' parameters (one list
    /// per entry) for a ranking that reads them; other rankings ignore them.
    pub fn from_table_with_parameters(
        options: ToolSearchOptions,
        text: Vec<u16>,
        entries: Vec<EntrySpans>,
        parameters: Option<ParamTable>,
    ) -> Result<ToolSearch, CatalogError> {
        let store = match options.storage {
            Storage::InMemory => Store::InMemory(InMemoryStore::new(options.ttl_ms)),
            Storage::Context => Store::Context(ContextStore::new(options.ttl_ms)),
        };
        let parameters = parameters.filter(|_| options.reads_parameters());
        let static_catalog = Arc::new(Catalog::with_ranking(text, entries, options.ranking, parameters)?);
        Ok(ToolSearch {
            options,
            static_step: Arc::new(StepCatalog::new(static_catalog.clone(), None, None, true)),
            static_catalog,
            store: Mutex::new(store),
            pool: Mutex::new(match options.syntax {
                Syntax::Words => ToolPool::new(options.ranking),
                Syntax::Regex => ToolPool::new(options.ranking).keeping_parameters(),
            }),
        })
    }

    /// The options, as applied.
    pub fn options(&self) -> &ToolSearchOptions {
        &self.options
    }

    /// Whether the user's embedding model makes the vectors (`'hybrid'` with
    /// `search.embedder`): the binding then embeds [`tool_texts`](Self::tool_texts)
    /// and each question.
    pub fn takes_vectors(&self) -> bool {
        matches!(self.options.ranking, Ranking::Hybrid(HybridConfig { vectors: VectorSource::Given, .. }))
    }

    /// The text each of the constructor's tools is embedded from, in record
    /// order (see [`crate::search::hybrid::tool_text`]).
    pub fn tool_texts(&self) -> Vec<String> {
        (0..self.static_catalog.entry_count()).map(|entry| self.static_catalog.tool_text(entry)).collect()
    }

    /// Sets the vectors of the constructor's tools (`vectors[i]` for tool
    /// `i`, any length the model makes, the same for all; an empty one for
    /// a tool without). From then on a search given a question vector ranks
    /// with them. `false` if they were set before, the count is not the
    /// tools', or the ranking takes none.
    pub fn set_tool_vectors<'v>(&self, vectors: impl ExactSizeIterator<Item = &'v [f32]> + Clone) -> bool {
        let dimensions = vectors.clone().map(<[f32]>::len).max().unwrap_or(0);
        if !self.takes_vectors() || vectors.len() != self.static_catalog.entry_count() || dimensions == 0 {
            return false;
        }
        let mut table = ToolVectors::zeros(dimensions, vectors.len());
        for (entry, vector) in vectors.enumerate() {
            table.set_normalized(entry, vector);
        }
        self.static_catalog.set_tool_vectors(table)
    }

    /// How often the binding should sweep idle threads, if at all.
    pub fn sweep_interval_ms(&self) -> Option<f64> {
        match &*self.store.lock() {
            Store::InMemory(store) => store.sweep_interval_ms(),
            Store::Context(store) => store.sweep_interval_ms(),
        }
    }

    /// The catalog for a step whose agent resolved `resolved` tools (in
    /// `Object.entries` order), with `record` the constructor's tools record
    /// as it is now, from their text (the binding makes it from tools it
    /// analysed before: [`pool_step_catalog`](Self::pool_step_catalog)).
    /// Two requests may carry tools of the same name bound to different
    /// credentials, and one must never get the other's: a catalog names
    /// tools by [`ToolRef`] only, and the host hands out its own. The
    /// record's tools are the step's tools `0..record.len()`, and resolved
    /// tool `i` is tool `record.len() + i`.
    pub fn step_catalog(
        &self,
        record: &[ToolEntry<'_>],
        resolved: &[ToolEntry<'_>],
    ) -> Result<StepCatalog, CatalogError> {
        self.step_catalog_with_parameters(record, resolved, None, None)
    }

    /// [`step_catalog`](Self::step_catalog), with the parameters of the
    /// record's tools and of the resolved tools (one list per tool of each)
    /// for a ranking that reads them: read now, as the record's descriptions
    /// are.
    pub fn step_catalog_with_parameters(
        &self,
        record: &[ToolEntry<'_>],
        resolved: &[ToolEntry<'_>],
        record_parameters: Option<&ParamTable>,
        parameters: Option<&ParamTable>,
    ) -> Result<StepCatalog, CatalogError> {
        if !self.options.include_resolved_tools {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, None, true));
        }
        let visible = resolved.iter().enumerate().filter(|(_, t)| is_meta_tool(t.key)).map(|(i, _)| i as u32).collect();
        if resolved.iter().all(|t| is_meta_tool(t.key)) {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, Some(visible), true));
        }

        let record_keys: Vec<&[u16]> = record.iter().map(|t| t.key).collect();
        let resolved_keys: Vec<SpreadKey> = resolved.iter().map(|t| SpreadKey::of(t.key)).collect();
        let order = spread(&record_keys, &resolved_keys, |i| Ok::<_, CatalogError>(resolved[i].key))?;
        let mut builder = Catalog::builder();
        let reads_parameters = self.options.reads_parameters();
        builder.ranking(self.options.ranking).keep_parameters(reads_parameters);
        let mut sources = Vec::with_capacity(order.len());
        for source in order {
            let tool = match (source as usize).checked_sub(record.len()) {
                None => &record[source as usize],
                Some(resolved_index) => &resolved[resolved_index],
            };
            let (key, id, description) = (tool.key, tool.id, tool.description);
            if reads_parameters {
                // A record tool's parameters are in `record_parameters`, a
                // resolved one's in `parameters`, by its index among the
                // resolved tools (see `ToolRef`).
                let source_index = source as usize;
                let params: Vec<(&[u16], &[u16])> = match source_index.checked_sub(record.len()) {
                    None => record_parameters.into_iter().flat_map(|p| p.entry(source_index)).collect(),
                    Some(resolved) => parameters.into_iter().flat_map(|p| p.entry(resolved)).collect(),
                };
                builder.push_with_parameters(key, id, description, params);
            } else {
                builder.push(key, id, description);
            }
            sources.push(source);
        }
        Ok(StepCatalog::new(Arc::new(builder.build()?), Some(sources), Some(visible), false))
    }

    /// [`step_catalog`](Self::step_catalog) from tools analysed once and
    /// kept in the processor's [`ToolPool`] by slot. First the pool is
    /// brought up to date: the step's `added` tools are analysed (a new one
    /// into a slot the pool chooses), then the slots of collected tools are
    /// emptied. The step's selection is noted, and when the pool holds more
    /// than [`retention`](protocol::retention) allows for it, the tools
    /// none of the last few selections read are let go of: their binding
    /// may not learn soon enough that they are gone (a caller that makes
    /// steps without a turn of the event loop), and one that comes back is
    /// analysed again. The catalog is the one `step_catalog` makes of the
    /// tools' ids and descriptions as analysed, searching the same; only its
    /// making is cheaper. No instance is kept: the binding hands out the
    /// step's own tools by [`ToolRef`], as for `step_catalog`.
    pub fn pool_step_catalog(&self, step: PoolStep<'_>) -> Result<(StepCatalog, PoolChanges), PoolError> {
        let mut pool = self.pool.lock();
        let mut changes = PoolChanges::default();
        for (i, tool) in step.added.iter().enumerate() {
            let parameters = step.parameters.map(|p| p.entry(i));
            match tool.slot {
                Some(slot) => pool.analyse(slot, tool.id, tool.description, parameters)?,
                None => changes.added.push(pool.add(tool.id, tool.description, parameters)?),
            }
        }
        for &slot in step.released {
            pool.release(u32::try_from(slot).map_err(|_| PoolError::SlotOutOfRange(u32::MAX))?)?;
        }
        let mut new_slots = changes.added.iter().copied();
        let rows = step
            .rows
            .iter()
            .map(|&(slot, key)| {
                let slot = match slot {
                    PoolSlot::Held(slot) => Some(slot),
                    PoolSlot::New => Some(new_slots.next().ok_or(PoolError::NoTool)?),
                    PoolSlot::NoTool => None,
                };
                Ok(PooledTool { slot, key })
            })
            .collect::<Result<Vec<_>, PoolError>>()?;
        pool.note_selection(rows.iter().filter_map(|row| row.slot));
        let bound = protocol::retention::POOL_SWEEP_FLOOR.max(protocol::retention::POOL_SWEEP_FACTOR * rows.len());
        if pool.len() > bound {
            changes.forgotten = pool.sweep(protocol::retention::POOL_KEPT_SELECTIONS as u32);
        }
        let (record, resolved) = rows.split_at(step.record_count.min(rows.len()));
        let catalog = self.pooled_step_catalog(&mut pool, record, resolved)?;
        Ok((catalog, changes))
    }

    /// The catalog of a selection of the pool's tools: `record` and
    /// `resolved` are the slots (and keys) of the record's and the step's
    /// tools.
    fn pooled_step_catalog(
        &self,
        pool: &mut ToolPool,
        record: &[PooledTool<'_>],
        resolved: &[PooledTool<'_>],
    ) -> Result<StepCatalog, PoolError> {
        if !self.options.include_resolved_tools {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, None, true));
        }
        let (selection, sources, visible) = {
            fn key_of<'k>(pool: &'k ToolPool, tool: &PooledTool<'k>) -> Result<&'k [u16], PoolError> {
                match (tool.key, tool.slot) {
                    (Some(key), _) => Ok(key),
                    (None, Some(slot)) => pool.id_as_key(slot),
                    (None, None) => Err(PoolError::NoTool),
                }
            }
            let pool = &*pool;
            let record_keys = record.iter().map(|tool| key_of(pool, tool)).collect::<Result<Vec<_>, _>>()?;
            // A step's tools are mostly keyed by their ids: what the pool
            // keeps of each id merges it, without reading the tool.
            let resolved_keys = resolved
                .iter()
                .map(|tool| match (tool.key, tool.slot) {
                    (Some(key), _) => Ok(SpreadKey::of(key)),
                    (None, Some(slot)) => SpreadKey::of_id(pool.id_key(slot)?, || pool.id_as_key(slot)),
                    (None, None) => Err(PoolError::NoTool),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let visible: Vec<u32> =
                resolved_keys.iter().enumerate().filter(|(_, key)| key.meta).map(|(i, _)| i as u32).collect();
            if visible.len() == resolved.len() {
                return Ok(StepCatalog::new(self.static_catalog.clone(), None, Some(visible), true));
            }
            let order = spread(&record_keys, &resolved_keys, |i| key_of(pool, &resolved[i]))?;
            let mut selection = Vec::with_capacity(order.len());
            for &source in &order {
                let tool = match (source as usize).checked_sub(record.len()) {
                    None => &record[source as usize],
                    Some(resolved_index) => &resolved[resolved_index],
                };
                selection.push(PoolEntry { slot: tool.slot.ok_or(PoolError::NoTool)?, key: tool.key });
            }
            (selection, order, visible)
        };
        let catalog = pool.catalog(&selection)?;
        Ok(StepCatalog::new(Arc::new(catalog), Some(sources), Some(visible), false))
    }

    /// How many tools the processor's [`ToolPool`] holds, its slots, and
    /// how many of them are free.
    pub fn pool_stats(&self) -> (usize, usize, usize) {
        let pool = self.pool.lock();
        (pool.len(), pool.slot_count(), pool.free_count())
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
            Store::Context(store) => store.loaded_names(thread, messages.map(activated_names_from_messages), now_ms),
        }
    }

    /// [`loaded_names`](Self::loaded_names) for a step whose messages
    /// continue a list the context store remembers (see
    /// [`crate::stores::history`]): the first `kept` meta-tool parts of the
    /// list in `slot` still stand, `parts` follow them. The in-memory store
    /// reads no messages.
    pub fn loaded_names_continuing(
        &self,
        thread: Option<&[u16]>,
        slot: usize,
        kept: usize,
        parts: &[ToolResultFacts],
        now_ms: f64,
    ) -> Result<NameSet, ContinueError> {
        match &mut *self.store.lock() {
            Store::InMemory(store) => Ok(store.loaded_names(thread, now_ms)),
            Store::Context(store) => store.loaded_names_continuing(thread, slot, kept, parts, now_ms),
        }
    }

    fn add_loaded(&self, names: &[JsString], thread: Option<&[u16]>, now_ms: f64) {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.add_loaded(names.iter().map(JsString::units), thread, now_ms),
            Store::Context(store) => store.add_loaded(names.iter().map(JsString::units), thread, now_ms),
        }
    }

    // The state methods act on whichever store there is. The reference's
    // make no-ops of them (and zeros of the stats) for the context store,
    // whose supplemental state it neither expires nor shows; here that state
    // is bounded by the ttl like the in-memory store's, and these see and
    // clear it. It is empty whenever every activation has reached the
    // messages, so the stats then read as the reference's.

    pub fn clear_state(&self, thread: Option<&[u16]>) {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.clear_state(thread),
            Store::Context(store) => store.clear_state(thread),
        }
    }

    pub fn clear_all_state(&self) {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.clear_all(),
            Store::Context(store) => store.clear_all(),
        }
    }

    pub fn state_stats(&self, now_ms: f64) -> StoreStats {
        match &*self.store.lock() {
            Store::InMemory(store) => store.stats(now_ms),
            Store::Context(store) => store.stats(now_ms),
        }
    }

    pub fn cleanup_now(&self, now_ms: f64) -> usize {
        match &mut *self.store.lock() {
            Store::InMemory(store) => store.cleanup_stale(now_ms),
            Store::Context(store) => store.cleanup_stale(now_ms),
        }
    }

    /// `search_tools`. Activates the results in `autoLoad` mode.
    ///
    /// In time with the reference when the host [`awaits`](ToolFilter::awaits)
    /// (see [`operation`]): each candidate the record gives is asked about
    /// (`await isToolAllowed`), the search's end awaited once (`await
    /// searchTools`), and an activation recorded in the store, awaited once,
    /// then in the step's loaded names.
    pub async fn search(&self, step: &Step, query: &[u16], filter: &impl ToolFilter, now_ms: f64) -> SearchOutcome {
        self.search_with_vector(step, query, None, filter, now_ms).await
    }

    /// [`search`](Self::search), with the question's vector for the
    /// `'hybrid'` ranking when the user's embedding model made the tools'
    /// (see [`set_tool_vectors`](Self::set_tool_vectors)).
    pub async fn search_with_vector(
        &self,
        step: &Step,
        query: &[u16],
        query_vector: Option<&[f32]>,
        filter: &impl ToolFilter,
        now_ms: f64,
    ) -> SearchOutcome {
        let catalog = &step.catalog.catalog;
        let mut walk = match self.options.syntax {
            Syntax::Words => SearchWalk::with_vector(catalog, query, query_vector, &self.options.search),
            Syntax::Regex => match Pattern::new(query) {
                Ok(pattern) => {
                    SearchWalk::from_candidates(catalog.pattern_texts().candidates(&pattern), &self.options.search)
                }
                Err(error) => {
                    return SearchOutcome { results: Vec::new(), message: messages::invalid_pattern(query, &error) }
                }
            },
        };
        // The hook is asked down the ranked list, several at once if the
        // host allows (see `ahead`), and the walk decides in rank order. A
        // name no entry carries as its id is passed over, as the reference's
        // `findToolById` finds nothing for it.
        let mut ahead = Ahead::new(filter.concurrency());
        loop {
            let next = ahead
                .next(|| {
                    let pending = walk.next_ahead(catalog)?;
                    let found = Found::ById(step.catalog.source(pending.entry));
                    Some((pending, self.admission(filter, step.catalog.live, found, Lookup::IdOnly, Phase::Search)))
                })
                .await;
            let Some((pending, admitted)) = next else { break };
            walk.decide(pending, admitted.is_some());
            if walk.is_done() {
                break;
            }
        }
        drop(ahead);
        filter.tick().await;
        let results = walk.finish(catalog);
        if results.is_empty() {
            return SearchOutcome { message: messages::no_tools_found(query, self.options.syntax), results };
        }
        if !self.options.auto_load {
            return SearchOutcome { message: messages::found(results.len()), results };
        }

        let newly_loaded: Vec<JsString> = {
            let loaded = step.loaded.lock();
            results.iter().filter(|r| !loaded.contains(&r.name)).map(|r| r.name.clone()).collect()
        };
        self.add_loaded(&newly_loaded, step.thread(), now_ms);
        filter.tick().await;
        step.loaded.lock().extend(newly_loaded.iter().cloned());
        let message = messages::found_and_loaded(&results, newly_loaded.len() < results.len());
        SearchOutcome { results, message }
    }

    /// `load_tool`; in time with the reference when the host
    /// [`awaits`](ToolFilter::awaits), as [`search`](Self::search).
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

        let lookup = self.dynamic_lookup();
        let mut not_found = Vec::new();
        let mut already_loaded = Vec::new();
        let mut loaded: Vec<JsString> = Vec::new();
        let mut ahead = Ahead::new(filter.concurrency());
        let mut names = to_load.iter();
        loop {
            let next = ahead
                .next(|| {
                    let name = names.next()?;
                    let found = step.catalog.find(name.units(), lookup);
                    Some((name, self.admission(filter, step.catalog.live, found, lookup, Phase::Load)))
                })
                .await;
            let Some((name, admitted)) = next else { break };
            if admitted.is_none() {
                not_found.push(name.clone());
                continue;
            }
            // `to_load` holds each name once, so a name is never in `loaded`
            // yet (asking would cost the square of the names).
            if step.loaded.lock().contains(name) {
                already_loaded.push(name.clone());
                continue;
            }
            loaded.push(name.clone());
        }

        // The reference records the loads in its store, awaits that, and
        // only then in the step's loaded names.
        self.add_loaded(&loaded, step.thread(), now_ms);
        filter.tick().await;
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
    /// Each key of the catalog's tables, in `Object.keys` order, resolves to
    /// a tool as `load_tool` resolves a name (key first; id first with a
    /// filter hook), which the hook may hide (phase `'search'`). A line shows
    /// the tool's `id || key`, as the tables hold it, and the description
    /// indexed under that name, truncated as in search results. With a hook,
    /// each key is resolved when it is listed (in the caller's record, read
    /// live, for a live catalog), as the reference does. Without one, the
    /// message depends on the catalog alone, so a caller may keep it for as
    /// long as it keeps the catalog.
    pub async fn catalog_message(&self, catalog: &StepCatalog, filter: &impl ToolFilter) -> Option<JsString> {
        if !self.options.inject_catalog {
            return None;
        }
        let index = &*catalog.catalog;
        let has_filter = self.has_filter();
        let mut lines = Vec::new();
        let mut ahead = Ahead::new(filter.concurrency());
        let mut entries = 0..index.entry_count();
        loop {
            let next = ahead
                .next(|| loop {
                    let entry = entries.next()?;
                    let key = index.key(entry);
                    if !has_filter {
                        let Some(tool) = index.find_for_dynamic_name(key, false) else { continue };
                        return Some((key, Decision::Now(Some(index.id(tool)))));
                    }
                    let (found, entry) = listed(catalog, key);
                    let name = entry.and_then(|entry| index.id(entry));
                    let admission = self.admission(filter, catalog.live, found, Lookup::IdFirst, Phase::Search);
                    let decision = match admission {
                        Decision::Now(tool) => Decision::Now(tool.map(|_| name)),
                        Decision::Asking(asking) => Decision::Asking(async move { asking.await.map(|_| name) }),
                    };
                    return Some((key, decision));
                })
                .await;
            let Some((key, listed_as)) = next else { break };
            let Some(id) = listed_as else { continue };
            let name = id.filter(|id| !id.is_empty()).unwrap_or(key);
            // The description is the one indexed under that name, which a
            // later tool of the same name may have replaced.
            let description = index.find_doc(name).map_or(&[][..], |doc| index.description(index.doc_entry(doc)));
            messages::push_catalog_line(&mut lines, name, description);
        }
        (!lines.is_empty()).then(|| messages::catalog(self.options.auto_load, self.options.syntax, &lines))
    }

    /// Keys of the catalog's tables that look like a name that was not
    /// found (a listing, as the injected catalog is: nothing of the record is
    /// read to make it). Without a hook, every match but the name itself,
    /// whose key was just read and found empty (the message shows three);
    /// with one, the first three allowed, each key looked up when it
    /// is asked about as `load_tool` looks up a name (id first), as the
    /// reference does (the hook may change the record): a tool is read only
    /// for a key that matches, up to the third allowed. Awaited at its end,
    /// as the reference's, when the host [`awaits`](ToolFilter::awaits).
    async fn suggestions(&self, step: &Step, tool_name: &[u16], filter: &impl ToolFilter) -> Vec<JsString> {
        let mut matches = suggestion_matcher(tool_name);
        let record = &step.catalog.catalog;
        let candidates: Vec<JsString> = (0..record.entry_count())
            .map(|entry| record.key(entry))
            .filter(|key| matches(key))
            .map(JsString::from)
            .collect();
        let mut allowed = Vec::new();
        if !self.has_filter() {
            // The name itself was just looked up by its key, in the record as
            // it is now, and not found: no key of the record is that name now.
            allowed = candidates.into_iter().filter(|key| key.units() != tool_name).collect();
        } else {
            let mut ahead = Ahead::new(filter.concurrency());
            let mut candidates = candidates.into_iter();
            loop {
                let next = ahead
                    .next(|| {
                        let key = candidates.next()?;
                        let found = step.catalog.find(key.units(), Lookup::IdFirst);
                        let admission = self.admission(filter, step.catalog.live, found, Lookup::IdFirst, Phase::Load);
                        Some((key, admission))
                    })
                    .await;
                let Some((key, admitted)) = next else { break };
                if admitted.is_some() {
                    allowed.push(key);
                    if allowed.len() >= 3 {
                        break;
                    }
                }
            }
        }
        filter.tick().await;
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
        let lookup = self.dynamic_lookup();
        let mut active = Vec::with_capacity(names.len());
        let mut ahead = Ahead::new(filter.concurrency());
        let mut names = names.iter();
        loop {
            let next = ahead
                .next(|| {
                    let name = names.next()?;
                    let found = catalog.find(name.units(), lookup);
                    Some((name, self.admission(filter, catalog.live, found, lookup, Phase::Active)))
                })
                .await;
            let Some((name, admitted)) = next else { break };
            if let Some(tool) = admitted {
                active.push((name.clone(), tool));
            }
        }
        active
    }

    fn has_filter(&self) -> bool {
        self.options.search.has_filter
    }

    /// How a name the model typed (or a loaded name) is looked up: key first
    /// without a hook, id first with one, as `findToolForDynamicName`.
    fn dynamic_lookup(&self) -> Lookup {
        if self.has_filter() {
            Lookup::IdFirst
        } else {
            Lookup::KeyFirst
        }
    }

    /// Whether an operation (named by its phase) must ask the host as it
    /// goes (a resumable [`operation::Operation`]), rather than trust the
    /// catalog's tables with [`VerifyAfter`] and have the host check its
    /// resolutions after: with a hook, which must be asked anyway, and when
    /// the operation changes loaded state, as it then
    /// [awaits as the reference](Self::awaits_as_reference) (and could not
    /// simply be run again should a check fail).
    pub fn asks_as_it_goes(&self, operation: Phase) -> bool {
        self.has_filter() || self.awaits_as_reference(operation)
    }

    /// Whether an operation (named by its phase) changes loaded state, and so
    /// runs in time with the reference (see [`operation`]): `load_tool`, and
    /// `search_tools` in `autoLoad` mode.
    pub fn awaits_as_reference(&self, operation: Phase) -> bool {
        match operation {
            Phase::Search => self.options.auto_load,
            Phase::Load => true,
            Phase::Active => false,
        }
    }

    /// The tool `found` stands for, if there is one the hook (if any) allows
    /// in `phase`: decided at once, or by asking the host. Over a `live`
    /// catalog (the caller's record) the host resolves the name with the
    /// reads [`operation::reads`] lists; over a step's own, the tables are
    /// the answer, and the hook alone is asked, if there is one or the host
    /// awaits as the reference does.
    fn admission<'f>(
        &self,
        filter: &'f impl ToolFilter,
        live: bool,
        found: Found,
        lookup: Lookup,
        phase: Phase,
    ) -> Decision<Option<ToolRef>, impl Future<Output = Option<ToolRef>> + 'f> {
        let (ask, fallback, resolves) = if live && !operation::reads(lookup, &found).is_empty() {
            let tables = found.tool();
            (Ask::Resolve { lookup, found }, tables, true)
        } else {
            match found.tool() {
                None => return Decision::Now(None),
                Some(tool) if !self.has_filter() && !filter.awaits() => return Decision::Now(Some(tool)),
                Some(tool) => (Ask::Tool(tool), Some(tool), false),
            }
        };
        let asking = filter.check(ask, phase);
        Decision::Asking(async move {
            let answer = asking.await;
            match (answer.verdict.allows(), resolves) {
                (false, _) => None,
                (true, true) => answer.tool.or(fallback),
                (true, false) => fallback,
            }
        })
    }
}

/// One `processInputStep`: its catalog, thread and the loaded names as of its
/// start, which its own `search_tools` and `load_tool` calls add to.
pub struct Step {
    pub catalog: Arc<StepCatalog>,
    pub thread: Option<JsString>,
    /// Shared, so that a binding that keeps the step's catalog apart (in a
    /// [`CatalogCell`]) can make the step anew for each call without losing
    /// what earlier calls loaded.
    pub loaded: LoadedNames,
}

/// A step's loaded names, shared by its calls.
pub type LoadedNames = Arc<Mutex<NameSet>>;

/// `names`, to share.
pub fn loaded_names(names: NameSet) -> LoadedNames {
    Arc::new(Mutex::new(names))
}

impl Step {
    pub fn new(catalog: Arc<StepCatalog>, thread: Option<JsString>, loaded: NameSet) -> Step {
        Step { catalog, thread, loaded: loaded_names(loaded) }
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

#[cfg(test)]
mod concurrency_tests {
    //! `filterConcurrency`: every operation, driven through the batch exchange
    //! with the host answering its questions in a scrambled order, decides as
    //! it does one question at a time.

    use std::sync::Arc;

    use super::operation::Operation;
    use super::*;
    use crate::protocol::tool_search::operation as code;
    use crate::search::{Ranking, SearchOptions};
    use crate::test_rng::Rng;

    const WORDS: &[&str] = &["weather", "email", "issue", "create", "send", "get", "city", "list", "file", "query"];

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn pick<'a>(rng: &mut Rng, list: &[&'a str]) -> &'a str {
        list[(rng.next() % list.len() as u64) as usize]
    }

    /// `count` tools with ids made of the words (some repeated, some keyed
    /// apart from their id), and descriptions of a few words each.
    fn tools(rng: &mut Rng, count: usize) -> Vec<Tool> {
        (0..count)
            .map(|i| {
                let id = format!("{}_{}", pick(rng, WORDS), rng.next() % (count as u64));
                let key = if rng.next().is_multiple_of(5) { format!("key{i}") } else { id.clone() };
                let description: Vec<&str> = (0..1 + rng.next() % 5).map(|_| pick(rng, WORDS)).collect();
                (units(&key), Some(units(&id)), units(&description.join(" ")))
            })
            .collect()
    }

    type Tool = (Vec<u16>, Option<Vec<u16>>, Vec<u16>);

    fn entries(tools: &[Tool]) -> Vec<ToolEntry<'_>> {
        tools.iter().map(|(key, id, description)| ToolEntry { key, id: id.as_deref(), description }).collect()
    }

    /// The host's hook, per tool: allowed, denied, or failed (thrown).
    fn verdicts(rng: &mut Rng, count: usize) -> Vec<i32> {
        (0..count + 8)
            .map(|_| [code::ALLOWED, code::ALLOWED, code::DENIED, code::FAILED][(rng.next() % 4) as usize])
            .collect()
    }

    /// The host's answer to a question, over a record still as the tables say:
    /// a name they miss resolves to nothing.
    fn answer(question: i32, verdicts: &[i32]) -> i32 {
        let kind = question & ((1 << code::ask::KIND_BITS) - 1);
        let tool = (question >> code::ask::KIND_BITS) as usize;
        if kind != code::ask::TOOL && kind & ((1 << code::ask::FOUND_BITS) - 1) == code::ask::MISSING {
            return code::DENIED;
        }
        verdicts[tool]
    }

    /// Runs `operation` to its end: one question at a time through `resume`
    /// (`scramble` is `None`), or through `exchange`, handing out a random
    /// number of questions a call and answering a random few of those out, in
    /// a random order. The questions asked go to `asked`.
    fn drive<T>(mut operation: Operation<T>, scramble: Option<&mut Rng>, verdicts: &[i32], asked: &mut Vec<i32>) -> T {
        let Some(rng) = scramble else {
            let mut given = code::NO_VERDICT;
            loop {
                let question = operation.resume(given).unwrap();
                if question == code::DONE {
                    return operation.take_outcome().unwrap();
                }
                asked.push(question);
                given = answer(question, verdicts);
            }
        };
        let mut out: Vec<(i32, i32)> = Vec::new();
        let mut given = Vec::new();
        loop {
            let room = 1 + (rng.next() % 5) as usize;
            let Some(questions) = operation.exchange(given.drain(..), room).unwrap() else {
                return operation.take_outcome().unwrap();
            };
            asked.extend(questions.iter().map(|&(_, question)| question));
            out.extend(questions);
            assert!(!out.is_empty(), "the operation waits on nothing");
            // Sometimes only more questions; else a few answers, in any order.
            if out.len() < room && rng.next().is_multiple_of(3) {
                continue;
            }
            for _ in 0..1 + rng.next() % out.len() as u64 {
                if out.is_empty() {
                    break;
                }
                let (ticket, question) = out.swap_remove((rng.next() % out.len() as u64) as usize);
                given.push((ticket, answer(question, verdicts)));
            }
        }
    }

    /// What one run of operations ends with, and the questions each asked.
    #[derive(Debug, PartialEq)]
    struct Run {
        searches: Vec<SearchOutcome>,
        loads: Vec<LoadOutcome>,
        active: Vec<(JsString, ToolRef)>,
        catalog: Option<JsString>,
        asked: Vec<Vec<i32>>,
    }

    fn options(rng: &mut Rng, concurrency: u32, include_resolved_tools: bool) -> ToolSearchOptions {
        ToolSearchOptions {
            search: SearchOptions { top_k: (1 + rng.next() % 6) as f64, min_score: 0.0, has_filter: true },
            auto_load: rng.next().is_multiple_of(3),
            include_resolved_tools,
            storage: Storage::InMemory,
            ttl_ms: 0.0,
            inject_catalog: true,
            ranking: Ranking::Reference,
            syntax: if rng.next().is_multiple_of(2) { Syntax::Words } else { Syntax::Regex },
            filter_concurrency: concurrency,
        }
    }

    /// Searches, loads, the loaded tools and the injected catalog, each an
    /// operation driven as `drive` says, over one processor (`seed` makes the
    /// same tools, options and inputs for every concurrency).
    fn run(seed: u64, concurrency: u32, scramble: Option<&mut Rng>) -> Run {
        let mut rng = Rng::new(seed);
        let include_resolved = rng.next().is_multiple_of(2);
        let options = options(&mut rng, concurrency, include_resolved);
        let count = 20 + (rng.next() % 40) as usize;
        let all = tools(&mut rng, count);
        let verdicts = verdicts(&mut rng, count);
        let split = count / 2;
        let search = Arc::new(ToolSearch::new(options, &entries(&all[..split])).unwrap());
        // With resolved tools, the step's catalog is its own record (no live lookups).
        let catalog = Arc::new(search.step_catalog(&entries(&all[..split]), &entries(&all[split..])).unwrap());
        let queries = match options.syntax {
            Syntax::Words => ["weather email", "create issue list", "get file query city", "send"],
            Syntax::Regex => ["weather|email", "^(create|list)", "e", "(a+)+$"],
        };
        let loads: Vec<Vec<JsString>> = vec![
            vec![JsString::from(&all[1].0[..])],
            vec![JsString::from("weath")],
            all.iter().step_by(3).map(|tool| JsString::from(&tool.0[..])).chain([JsString::from("nope")]).collect(),
        ];
        let mut scramble = scramble;
        let mut asked = Vec::new();
        let step =
            || Step::new(catalog.clone(), Some(JsString::from("t")), search.loaded_names(Some(&units("t")), None, 0.0));
        let mut searches = Vec::new();
        for query in queries {
            let (search, step, query) = (search.clone(), step(), JsString::from(query));
            let operation = Operation::start(Phase::Search, concurrency as usize, move |relay| async move {
                search.search(&step, query.units(), &relay, 0.0).await
            });
            let mut questions = Vec::new();
            searches.push(drive(operation, scramble.as_deref_mut(), &verdicts, &mut questions));
            asked.push(questions);
        }
        let mut load_outcomes = Vec::new();
        for names in loads {
            let (search, step) = (search.clone(), step());
            let operation = Operation::start(Phase::Load, concurrency as usize, move |relay| async move {
                match &names[..] {
                    [one] => search.load(&step, Some(one.units()), None, &relay, 0.0).await,
                    many => search.load(&step, None, Some(many), &relay, 0.0).await,
                }
            });
            let mut questions = Vec::new();
            load_outcomes.push(drive(operation, scramble.as_deref_mut(), &verdicts, &mut questions));
            asked.push(questions);
        }
        let active_step = step();
        let names = active_step.loaded.lock().clone();
        let searcher = search.clone();
        let active_catalog = active_step.catalog.clone();
        let operation = Operation::start(Phase::Active, concurrency as usize, move |relay| async move {
            searcher.active_tools(&active_catalog, &names, &relay).await
        });
        let mut questions = Vec::new();
        let active = drive(operation, scramble.as_deref_mut(), &verdicts, &mut questions);
        asked.push(questions);
        let searcher = search.clone();
        let operation = Operation::start(Phase::Search, concurrency as usize, move |relay| async move {
            searcher.catalog_message(&catalog, &relay).await
        });
        let mut questions = Vec::new();
        let catalog = drive(operation, scramble, &verdicts, &mut questions);
        asked.push(questions);
        Run { searches, loads: load_outcomes, active, catalog, asked }
    }

    #[test]
    fn every_operation_decides_as_one_question_at_a_time_whatever_the_order_of_the_answers() {
        let (mut asked_ahead, mut questions) = (0, 0);
        for seed in 1..=60 {
            let one_at_a_time = run(seed, 1, None);
            assert!(one_at_a_time.asked.iter().any(|asked| !asked.is_empty()), "seed {seed}: the hook was asked");
            for concurrency in [1, 2, 3, 8, 64, u32::MAX] {
                let mut scramble = Rng::new(seed * 1000 + u64::from(concurrency.min(1000)));
                let ahead = run(seed, concurrency, Some(&mut scramble));
                let label = format!("seed {seed}, concurrency {concurrency}");
                assert_eq!(ahead.searches, one_at_a_time.searches, "{label}");
                assert_eq!(ahead.loads, one_at_a_time.loads, "{label}");
                assert_eq!((&ahead.active, &ahead.catalog), (&one_at_a_time.active, &one_at_a_time.catalog), "{label}");
                for (i, (asked, once)) in ahead.asked.iter().zip(&one_at_a_time.asked).enumerate() {
                    // Everything one at a time asks is asked, in the same order
                    // of tickets; a walk that stops early may ask ahead of it,
                    // by at most concurrency - 1 questions per stop.
                    assert_eq!(&asked[..once.len()], &once[..], "{label}, operation {i}");
                    let stops = if i < 4 { 1 } else { 2 };
                    let ahead_by = (concurrency as usize - 1).saturating_mul(stops);
                    assert!(
                        asked.len() <= once.len() + ahead_by,
                        "{label}, operation {i}: {} for {}",
                        asked.len(),
                        once.len()
                    );
                    asked_ahead += asked.len() - once.len();
                    questions += once.len();
                }
            }
        }
        // The cases ask the hook, and some searches stop before their list ends.
        assert!(questions > 10_000 && asked_ahead > 100, "{questions} questions, {asked_ahead} asked ahead");
    }

    #[test]
    fn one_at_a_time_through_the_exchange_asks_exactly_what_resume_asks() {
        for seed in 1..=20 {
            let once = run(seed, 1, None);
            let mut scramble = Rng::new(seed);
            assert_eq!(run(seed, 1, Some(&mut scramble)), once, "seed {seed}");
        }
    }
}
#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use super::*;
    use crate::search::{Ranking, SearchOptions, Slot};

    /// Runs a future that never waits (every hook here answers at once).
    fn ready<T>(future: impl Future<Output = T>) -> T {
        match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(value) => value,
            Poll::Pending => panic!("future waited"),
        }
    }

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// A hook that records its calls and denies the tools listed.
    struct Recorder {
        denied: Vec<ToolRef>,
        failing: Vec<ToolRef>,
        calls: RefCell<Vec<(ToolRef, Phase)>>,
    }

    impl Recorder {
        fn denying(denied: &[ToolRef]) -> Recorder {
            Recorder { denied: denied.to_vec(), failing: Vec::new(), calls: RefCell::default() }
        }
    }

    impl ToolFilter for Recorder {
        /// A hook over a record that is still what the tables say: a tool they
        /// do not find is not there, and the hook is not asked about it.
        fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer> {
            let tool = match ask {
                Ask::Tool(tool) => Some(tool),
                Ask::Resolve { found, .. } => found.tool(),
            };
            let Some(tool) = tool else { return std::future::ready(Answer::DENIED) };
            self.calls.borrow_mut().push((tool, phase));
            std::future::ready(Answer::verdict(if self.failing.contains(&tool) {
                Verdict::Failed
            } else if self.denied.contains(&tool) {
                Verdict::Denied
            } else {
                Verdict::Allowed
            }))
        }
    }

    /// A host over a record that changed since construction: it records every
    /// question; the tools the tables found are still there unless `gone`, names
    /// they miss resolve through `record` (name -> tool), and the hook allows
    /// every tool but those in `denied`.
    struct ChangedRecord {
        record: Vec<(&'static str, ToolRef)>,
        gone: Vec<ToolRef>,
        denied: Vec<ToolRef>,
        asked: RefCell<Vec<(Ask, Phase)>>,
    }

    impl ChangedRecord {
        fn new(record: &[(&'static str, ToolRef)]) -> ChangedRecord {
            ChangedRecord { record: record.to_vec(), gone: Vec::new(), denied: Vec::new(), asked: RefCell::default() }
        }
    }

    impl ToolFilter for ChangedRecord {
        fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer> {
            self.asked.borrow_mut().push((ask.clone(), phase));
            let answer = match ask {
                Ask::Tool(tool) if self.denied.contains(&tool) => Answer::DENIED,
                Ask::Tool(_) => Answer::ALLOWED,
                Ask::Resolve { found: Found::Missing(name), .. } => {
                    match self.record.iter().find(|(n, _)| *n == name.to_string_lossy()) {
                        Some(&(_, tool)) if !self.denied.contains(&tool) => {
                            Answer { verdict: Verdict::Allowed, tool: Some(tool) }
                        }
                        _ => Answer::DENIED,
                    }
                }
                Ask::Resolve { found, .. } => match found.tool() {
                    Some(tool) if !self.gone.contains(&tool) && !self.denied.contains(&tool) => Answer::ALLOWED,
                    _ => Answer::DENIED,
                },
            };
            std::future::ready(answer)
        }
    }

    fn options(has_filter: bool) -> ToolSearchOptions {
        ToolSearchOptions {
            search: SearchOptions { top_k: 5.0, min_score: 0.0, has_filter },
            auto_load: false,
            include_resolved_tools: false,
            storage: Storage::InMemory,
            ttl_ms: 3_600_000.0,
            inject_catalog: false,
            ranking: Ranking::Reference,
            syntax: Syntax::Words,
            filter_concurrency: 1,
        }
    }

    /// A tool's key, id and description as UTF-16.
    type OwnedEntry = (Vec<u16>, Option<Vec<u16>>, Vec<u16>);

    struct Tools(Vec<OwnedEntry>);

    impl Tools {
        fn new(tools: &[(&str, Option<&str>, &str)]) -> Tools {
            Tools(tools.iter().map(|(k, id, d)| (units(k), id.map(units), units(d))).collect())
        }

        fn entries(&self) -> Vec<ToolEntry<'_>> {
            self.0.iter().map(|(key, id, description)| ToolEntry { key, id: id.as_deref(), description }).collect()
        }
    }

    fn weather_tools() -> Tools {
        Tools::new(&[
            ("weather", Some("getWeather"), "Get the weather forecast for a city"),
            ("email", Some("sendEmail"), "Send an email to a recipient"),
            ("issue", Some("createIssue"), "Create a GitHub issue"),
        ])
    }

    fn step(search: &ToolSearch, thread: Option<&str>) -> Step {
        let catalog = Arc::new(search.step_catalog(&[], &[]).unwrap());
        let loaded = search.loaded_names(thread.map(units).as_deref(), None, 1000.0);
        Step::new(catalog, thread.map(js), loaded)
    }

    fn names(outcome: &SearchOutcome) -> Vec<String> {
        outcome.results.iter().map(|r| r.name.to_string_lossy()).collect()
    }

    #[test]
    fn search_finds_by_description_and_name() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, None);
        let outcome = ready(search.search(&step, &units("weather"), &NoFilter, 1000.0));
        assert_eq!(names(&outcome), ["getWeather"]);
        assert_eq!(
            outcome.message.to_string_lossy(),
            "Found 1 tool(s). Use load_tool with an exact toolName or a toolNames array to make them available."
        );
        let none = ready(search.search(&step, &units("zebra"), &NoFilter, 1000.0));
        assert!(none.results.is_empty());
        assert_eq!(none.message.to_string_lossy(), "No tools found matching \"zebra\". Try different keywords.");
    }

    #[test]
    fn load_then_load_again_reports_already_loaded() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let first = step(&search, Some("t1"));
        let outcome = ready(search.load(&first, Some(&units("weather")), None, &NoFilter, 1000.0));
        assert_eq!(
            outcome,
            LoadOutcome::Single {
                success: true,
                message: js("Tool \"weather\" loaded successfully. It will be available on your next turn."),
                tool_name: js("weather"),
            }
        );
        // The next step of the same thread starts with it loaded; another thread does not.
        let second = step(&search, Some("t1"));
        assert_eq!(second.loaded.lock().iter().map(|n| n.to_string_lossy()).collect::<Vec<_>>(), ["weather"]);
        assert!(step(&search, Some("t2")).loaded.lock().is_empty());
        let again = ready(search.load(&second, Some(&units("weather")), None, &NoFilter, 1000.0));
        assert_eq!(
            again,
            LoadOutcome::Single {
                success: true,
                message: js("Tool \"weather\" is already loaded and available."),
                tool_name: js("weather"),
            }
        );
        assert_eq!(search.state_stats(5000.0), StoreStats { thread_count: 2, oldest_access_ms: Some(1000.0) });
    }

    #[test]
    fn load_suggests_near_names() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, None);
        let outcome = ready(search.load(&step, Some(&units("Weathe")), None, &NoFilter, 1000.0));
        assert_eq!(
            outcome,
            LoadOutcome::Single {
                success: false,
                message: js("Tool \"Weathe\" not found. Did you mean: weather?"),
                tool_name: js("Weathe"),
            }
        );
    }

    #[test]
    fn multi_load_lists_each_kind() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, None);
        let requested = [js("email"), js("nope"), js("email"), js("sendEmail")];
        let outcome = ready(search.load(&step, Some(&units("weather")), Some(&requested), &NoFilter, 1000.0));
        assert_eq!(
            outcome,
            LoadOutcome::Multi {
                success: false,
                message: js("Loaded: email, sendEmail, weather — available on your next turn | Not found: nope"),
                loaded_count: 3,
                loaded: Some(vec![js("email"), js("sendEmail"), js("weather")]),
                not_found: Some(vec![js("nope")]),
                already_loaded: None,
            }
        );
        assert_eq!(
            ready(search.load(&step, None, Some(&[]), &NoFilter, 1000.0)),
            LoadOutcome::Invalid { message: js("toolNames array must not be empty.") }
        );
        assert_eq!(
            ready(search.load(&step, Some(&[]), None, &NoFilter, 1000.0)),
            LoadOutcome::Invalid {
                message: js("You must provide either toolName (string) or toolNames (array) to load.")
            }
        );
    }

    #[test]
    fn the_hook_decides_per_phase_and_a_failure_denies() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
        let step = step(&search, None);
        let hook = Recorder { denied: vec![1], failing: vec![2], calls: RefCell::default() };
        let outcome = ready(search.search(&step, &units("send email create issue weather"), &hook, 1000.0));
        assert_eq!(names(&outcome), ["getWeather"]);
        let load = ready(search.load(&step, None, Some(&[js("sendEmail"), js("weather")]), &hook, 1000.0));
        assert!(matches!(load, LoadOutcome::Multi { loaded_count: 1, .. }));
        let phases: Vec<Phase> = hook.calls.borrow().iter().map(|(_, p)| *p).collect();
        assert_eq!(phases, [Phase::Search, Phase::Search, Phase::Search, Phase::Load, Phase::Load]);

        let active = ready(search.active_tools(&step.catalog, &step.loaded.lock(), &Recorder::denying(&[0])));
        assert!(active.is_empty());
    }

    #[test]
    fn auto_load_activates_results() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { auto_load: true, ..options(false) }, &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        let outcome = ready(search.search(&step, &units("email"), &NoFilter, 1000.0));
        assert_eq!(
            outcome.message.to_string_lossy(),
            "Found and loaded 1 tool(s): sendEmail. They are available on your next turn — call them directly."
        );
        let again = ready(search.search(&step, &units("email"), &NoFilter, 1000.0));
        assert!(again.message.to_string_lossy().ends_with(" Some were already loaded."));
        let next = super::tests::step(&search, Some("t"));
        let active = ready(search.active_tools(&next.catalog, &next.loaded.lock(), &NoFilter));
        assert_eq!(active, vec![(js("sendEmail"), 1)]);
    }

    #[test]
    fn resolved_tools_merge_like_an_object_spread() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        let resolved = Tools::new(&[
            ("search_tools", Some("search_tools"), "meta"),
            ("email", Some("mail"), "Resolved mail tool"),
            ("7", None, "array index key"),
            ("memory", None, "Remember things"),
        ]);
        let catalog = search.step_catalog(&tools.entries(), &resolved.entries()).unwrap();
        assert!(!catalog.live, "a step's merged record is its own copy");
        assert_eq!(catalog.visible, Some(vec![0]));
        // Resolved tool `i` is `3 + i`: the constructor had three tools.
        assert_eq!(catalog.sources, Some(vec![5, 0, 4, 2, 6]));
        let keys: Vec<String> =
            (0..catalog.catalog.entry_count()).map(|i| String::from_utf16_lossy(catalog.catalog.key(i))).collect();
        assert_eq!(keys, ["7", "weather", "email", "issue", "memory"]);

        // Only meta-tools resolved: the static catalog serves.
        let meta_only = Tools::new(&[("load_tool", Some("load_tool"), "meta")]);
        let catalog = search.step_catalog(&tools.entries(), &meta_only.entries()).unwrap();
        assert!(catalog.sources.is_none() && catalog.live);
        assert_eq!(catalog.visible, Some(vec![0]));
    }

    /// [`weather_tools`] as the binding hands them over.
    fn weather_table() -> (Vec<u16>, Vec<EntrySpans>) {
        let mut builder = Catalog::builder();
        for entry in weather_tools().entries() {
            builder.push(entry.key, entry.id, entry.description);
        }
        builder.into_parts()
    }

    #[test]
    fn fielded_ranking_searches_static_and_resolved_parameters() {
        let (text, entries) = weather_table();
        let weather_params = || {
            let mut params = ParamTable::new();
            params.push([(&units("city")[..], &units("The city, e.g. Lisbon")[..])]);
            params.push([(&units("recipient")[..], &units("Who receives it")[..])]);
            params.push([]);
            params
        };
        let options = ToolSearchOptions { include_resolved_tools: true, ranking: Ranking::FIELDED, ..options(false) };
        let search = ToolSearch::from_table_with_parameters(options, text, entries, Some(weather_params())).unwrap();
        // Static: a parameter's description is searched.
        let outcome = ready(search.search(&step(&search, None), &units("Lisbon"), &NoFilter, 1000.0));
        assert_eq!(names(&outcome), ["getWeather"]);

        // Resolved tools bring their own parameters, and the record's tools
        // theirs as they are now, except where a resolved tool replaces one.
        let resolved = Tools::new(&[("email", Some("mail"), "Resolved mail tool"), ("memory", None, "Remember")]);
        let mut resolved_params = ParamTable::new();
        resolved_params.push([(&units("attachment")[..], &units("A file")[..])]);
        resolved_params.push([(&units("fact")[..], &units("What to remember about Lisbon")[..])]);
        let record = weather_tools();
        let record_params = weather_params();
        let catalog = search
            .step_catalog_with_parameters(
                &record.entries(),
                &resolved.entries(),
                Some(&record_params),
                Some(&resolved_params),
            )
            .unwrap();
        // Resolved tool `i` is tool `3 + i`: `email` replaced static tool 1 in place.
        assert_eq!(catalog.sources, Some(vec![0, 3, 2, 4]));
        let step = Step::new(Arc::new(catalog), None, NameSet::new());
        let outcome = ready(search.search(&step, &units("Lisbon"), &NoFilter, 1000.0));
        // `memory` has no id, so it is indexed but never returned.
        assert_eq!(names(&outcome), ["getWeather"]);
        assert_eq!(names(&ready(search.search(&step, &units("attachment"), &NoFilter, 1000.0))), ["mail"]);
        assert!(ready(search.search(&step, &units("recipient"), &NoFilter, 1000.0)).results.is_empty());
        // Without parameters for the resolved tools, they are searched by name and description.
        let catalog = search
            .step_catalog_with_parameters(&record.entries(), &resolved.entries(), Some(&record_params), None)
            .unwrap();
        let step = Step::new(Arc::new(catalog), None, NameSet::new());
        assert!(ready(search.search(&step, &units("attachment"), &NoFilter, 1000.0)).results.is_empty());
        assert_eq!(names(&ready(search.search(&step, &units("city"), &NoFilter, 1000.0))), ["getWeather"]);
    }

    #[test]
    fn the_reference_ranking_ignores_parameters() {
        let (text, entries) = weather_table();
        let mut params = ParamTable::new();
        for _ in 0..3 {
            params.push([(&units("lisbon")[..], &units("Lisbon")[..])]);
        }
        let search = ToolSearch::from_table_with_parameters(options(false), text, entries, Some(params)).unwrap();
        assert!(ready(search.search(&step(&search, None), &units("Lisbon"), &NoFilter, 1000.0)).results.is_empty());
    }

    #[test]
    fn a_large_catalog_indexes_in_the_background_and_searches_the_same() {
        let owned: Vec<(String, String, String)> = (0..1000)
            .map(|i| (format!("key{i}"), format!("tool_{i}"), format!("Does thing number {i} for the weather desk")))
            .collect();
        let tools =
            Tools::new(&owned.iter().map(|(k, id, d)| (k.as_str(), Some(id.as_str()), d.as_str())).collect::<Vec<_>>());
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, None);
        let outcome = ready(search.search(&step, &units("tool_999 weather"), &NoFilter, 0.0));
        assert_eq!(names(&outcome)[0], "tool_999");
        assert_eq!(step.catalog.catalog.entry_count(), 1000);
    }

    #[test]
    fn the_injected_catalog_lists_each_key_with_its_name_and_indexed_description() {
        let long = "d".repeat(151);
        let tools = Tools::new(&[
            ("weather", Some("getWeather"), "Get the weather"),
            ("bare", None, ""),
            ("long", Some("longOne"), &long),
            // Same name as the first tool: both lines show the later description.
            ("again", Some("getWeather"), "Replaced"),
        ]);
        let inject = ToolSearchOptions { inject_catalog: true, ..options(false) };
        let search = ToolSearch::new(inject, &tools.entries()).unwrap();
        let step = step(&search, None);
        let message = ready(search.catalog_message(&step.catalog, &NoFilter)).unwrap();
        let expected = format!(
            "{}\n\nAvailable tools:\n- `getWeather`: Replaced\n- `bare`\n- `longOne`: {}...\n- `getWeather`: Replaced",
            messages::CATALOG_HEADER,
            "d".repeat(147)
        );
        assert_eq!(message.to_string_lossy(), expected);

        // The hook is asked about every tool, in key order, and may hide some.
        let filtered =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
        let hook = Recorder::denying(&[0, 2]);
        let message = ready(filtered.catalog_message(&step.catalog, &hook)).unwrap();
        assert_eq!(
            message.to_string_lossy(),
            format!("{}\n\nAvailable tools:\n- `bare`\n- `getWeather`: Replaced", messages::CATALOG_HEADER)
        );
        assert_eq!(
            *hook.calls.borrow(),
            [(0, Phase::Search), (1, Phase::Search), (2, Phase::Search), (3, Phase::Search)]
        );
    }

    #[test]
    fn a_catalog_key_resolves_like_a_loaded_name() {
        // The key `getWeather` is also the first tool's id: without a hook the
        // key wins, with one the id does (and the hook is asked about that tool).
        let tools = Tools::new(&[("weather", Some("getWeather"), "Weather"), ("getWeather", Some("other"), "Other")]);
        let plain =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(false) }, &tools.entries()).unwrap();
        let message = ready(plain.catalog_message(&step(&plain, None).catalog, &NoFilter)).unwrap();
        assert!(message.to_string_lossy().ends_with("\n- `getWeather`: Weather\n- `other`: Other"), "{message}");
        let hooked =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
        let hook = Recorder::denying(&[]);
        let message = ready(hooked.catalog_message(&step(&hooked, None).catalog, &hook)).unwrap();
        assert!(message.to_string_lossy().ends_with("\n- `getWeather`: Weather\n- `getWeather`: Weather"), "{message}");
        assert_eq!(*hook.calls.borrow(), [(0, Phase::Search), (0, Phase::Search)]);
    }

    #[test]
    fn the_catalog_is_not_injected_when_off_empty_or_before_the_host_has_the_option() {
        let tools = weather_tools();
        let off = ToolSearch::new(options(false), &tools.entries()).unwrap();
        assert_eq!(ready(off.catalog_message(&step(&off, None).catalog, &NoFilter)), None);
        let empty = ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(false) }, &[]).unwrap();
        assert_eq!(ready(empty.catalog_message(&step(&empty, None).catalog, &NoFilter)), None);
        let requested = ToolSearchOptions { inject_catalog: true, ..options(false) };
        let old_host = crate::releases::behaviours("1.66.0").unwrap();
        assert!(!requested.for_host(&old_host).inject_catalog);
        assert!(requested.for_host(&crate::releases::behaviours("1.67.0").unwrap()).inject_catalog);
        let auto = ToolSearch::new(ToolSearchOptions { auto_load: true, ..requested }, &tools.entries()).unwrap();
        let message = ready(auto.catalog_message(&step(&auto, None).catalog, &NoFilter)).unwrap();
        assert!(message.to_string_lossy().starts_with(messages::CATALOG_HEADER_AUTO_LOAD));
    }

    /// The resolutions put to the host, as (lookup, what the tables found).
    fn resolutions(asked: &RefCell<Vec<(Ask, Phase)>>) -> Vec<(Lookup, Found, Phase)> {
        asked
            .borrow()
            .iter()
            .filter_map(|(ask, phase)| match ask {
                Ask::Resolve { lookup, found, .. } => Some((*lookup, found.clone(), *phase)),
                Ask::Tool(_) => None,
            })
            .collect()
    }

    #[test]
    fn over_the_constructor_record_every_resolution_is_put_to_the_host() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        // A tool the caller added since (tool 3, beyond the tables) loads by its
        // key and by its id; what the tables found is confirmed as found.
        let host = ChangedRecord::new(&[("translator", 3), ("translate_text", 3)]);
        let names = [js("translator"), js("weather"), js("translate_text"), js("nope")];
        let outcome = ready(search.load(&step, None, Some(&names), &host, 1000.0));
        let LoadOutcome::Multi { loaded, not_found, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(not_found, Some(vec![js("nope")]));
        assert_eq!(loaded, Some(vec![js("translator"), js("weather"), js("translate_text")]));
        assert_eq!(
            resolutions(&host.asked),
            [
                (Lookup::KeyFirst, Found::Missing(js("translator")), Phase::Load),
                (Lookup::KeyFirst, Found::ByKey(0), Phase::Load),
                (Lookup::KeyFirst, Found::Missing(js("translate_text")), Phase::Load),
                (Lookup::KeyFirst, Found::Missing(js("nope")), Phase::Load),
            ]
        );
        // The active tools are the tools the record gives now.
        let next = super::tests::step(&search, Some("t"));
        let active = ready(search.active_tools(&next.catalog, &next.loaded.lock(), &host));
        assert_eq!(active, [(js("translator"), 3), (js("weather"), 0), (js("translate_text"), 3)]);
        // Search resolves by id only, and only what the (stale) index finds.
        let mut host = ChangedRecord::new(&[]);
        host.gone = vec![1];
        let found = ready(search.search(&next, &units("email"), &host, 1000.0));
        assert!(found.results.is_empty(), "the record no longer holds sendEmail");
        assert_eq!(resolutions(&host.asked), [(Lookup::IdOnly, Found::ById(1), Phase::Search)]);
    }

    #[test]
    fn with_a_hook_names_resolve_id_first_and_the_hook_is_asked_by_the_host() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        let host = ChangedRecord::new(&[]);
        ready(search.load(&step, None, Some(&[js("getWeather"), js("email")]), &host, 1000.0));
        assert_eq!(
            resolutions(&host.asked),
            [(Lookup::IdFirst, Found::ById(0), Phase::Load), (Lookup::IdFirst, Found::ByKey(1), Phase::Load)]
        );
        assert!(host.asked.borrow().iter().all(|(ask, _)| matches!(ask, Ask::Resolve { .. })));
    }

    #[test]
    fn trusting_the_tables_records_each_resolution_for_a_later_check() {
        let tools = weather_tools();
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        let host = VerifyAfter::default();
        let outcome = ready(search.search(&step, &units("weather email"), &host, 1000.0));
        assert_eq!(names(&outcome), ["sendEmail", "getWeather"]);
        assert_eq!(
            host.into_resolutions(),
            [resolve(Lookup::IdOnly, Found::ById(1)), resolve(Lookup::IdOnly, Found::ById(0))]
        );
        let loaded: NameSet = [js("weather"), js("gone")].into_iter().collect();
        let host = VerifyAfter::default();
        let active = ready(search.active_tools(&step.catalog, &loaded, &host));
        assert_eq!(active, [(js("weather"), 0)]);
        assert_eq!(
            host.into_resolutions(),
            [resolve(Lookup::KeyFirst, Found::ByKey(0)), resolve(Lookup::KeyFirst, Found::Missing(js("gone")))]
        );
    }

    /// A resolution in the caller's record.
    fn resolve(lookup: Lookup, found: Found) -> Ask {
        Ask::Resolve { lookup, found }
    }

    #[test]
    fn a_step_s_own_catalog_is_its_tables_and_only_the_hook_is_asked() {
        let tools = weather_tools();
        let resolved = Tools::new(&[("memory", Some("remember"), "Remember things")]);
        let merged = |has_filter| {
            let search = ToolSearch::new(
                ToolSearchOptions { include_resolved_tools: true, ..options(has_filter) },
                &tools.entries(),
            )
            .unwrap();
            let catalog = Arc::new(search.step_catalog(&tools.entries(), &resolved.entries()).unwrap());
            (search, Step::new(catalog, Some(js("t")), NameSet::new()))
        };
        // The step read its tools at its start: with a hook, names resolve id
        // first in its tables, and the hook alone is asked about what they find.
        let (search, step) = merged(true);
        let host = ChangedRecord::new(&[("nope", 9)]);
        let outcome = ready(search.load(&step, None, Some(&[js("remember"), js("nope"), js("memory")]), &host, 1000.0));
        let LoadOutcome::Multi { loaded, not_found, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!((loaded, not_found), (Some(vec![js("remember"), js("memory")]), Some(vec![js("nope")])));
        assert_eq!(*host.asked.borrow(), [(Ask::Tool(3), Phase::Load), (Ask::Tool(3), Phase::Load)]);
        // Without one, the tables are the answer: nothing is asked.
        let (search, step) = merged(false);
        let host = ChangedRecord::new(&[]);
        ready(search.load(&step, None, Some(&[js("memory"), js("remember")]), &host, 1000.0));
        assert_eq!(*host.asked.borrow(), []);
    }

    #[test]
    fn the_catalog_and_suggestions_list_the_tables_keys_each_resolved_in_the_record_now() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { inject_catalog: true, ..options(true) }, &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        // `sendEmail` (tool 1) is gone from the record, `createIssue` denied:
        // each key of the tables is resolved as it is listed, and named as the
        // tables name its tool.
        let mut host = ChangedRecord::new(&[("translate", 12)]);
        host.gone = vec![1];
        host.denied = vec![2];
        let message = ready(search.catalog_message(&step.catalog, &host)).unwrap();
        assert_eq!(
            message.to_string_lossy(),
            format!(
                "{}\n\nAvailable tools:\n- `getWeather`: Get the weather forecast for a city",
                messages::CATALOG_HEADER
            )
        );
        assert_eq!(
            resolutions(&host.asked),
            [0, 1, 2].map(|tool| (Lookup::IdFirst, Found::ByKey(tool), Phase::Search))
        );
        // A key added since (`translate`) is found by its name; the
        // suggestions are the tables' keys that match, each looked up as
        // `load_tool` looks up a name, so a key deleted since is not suggested
        // with a hook (its tool is not found), nor one added since.
        let outcome = ready(search.load(&step, Some(&units("translate")), None, &host, 1000.0));
        assert!(matches!(outcome, LoadOutcome::Single { success: true, .. }), "{outcome:?}");
        host.asked.borrow_mut().clear();
        let outcome = ready(search.load(&step, Some(&units("e")), None, &host, 1000.0));
        let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"e\" not found. Did you mean: weather?");
        assert_eq!(
            resolutions(&host.asked),
            [
                (Lookup::IdFirst, Found::Missing(js("e")), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(0), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(1), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(2), Phase::Load),
            ]
        );
    }

    #[test]
    fn suggestions_look_up_each_matching_key_of_the_tables_only() {
        let tools = Tools::new(&[
            ("weather", Some("getWeather"), "Get the weather forecast for a city"),
            ("email", Some("sendEmail"), "Send an email to a recipient"),
            ("weatherAlerts", None, "Severe weather alerts"),
            ("issue", Some("createIssue"), "Create a GitHub issue"),
        ]);
        let search = ToolSearch::new(options(true), &tools.entries()).unwrap();
        let step = step(&search, Some("t"));
        let mut host = ChangedRecord::new(&[]);
        host.denied = vec![0];
        let outcome = ready(search.load(&step, Some(&units("Weather")), None, &host, 1000.0));
        let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"Weather\" not found. Did you mean: weatherAlerts?");
        // `load_tool`'s own lookup, then each key that matches, in the tables'
        // order, looked up as `load_tool` looks up a name (id first): no other
        // key is read.
        assert_eq!(
            resolutions(&host.asked),
            [
                (Lookup::IdFirst, Found::Missing(js("Weather")), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(0), Phase::Load),
                (Lookup::IdFirst, Found::ByKey(2), Phase::Load),
            ]
        );
        // Without a hook the keys that match are the suggestions: nothing is looked up.
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = self::step(&search, Some("t"));
        host.asked.borrow_mut().clear();
        let outcome = ready(search.load(&step, Some(&units("Weather")), None, &host, 1000.0));
        let LoadOutcome::Single { message, .. } = outcome else { panic!("{outcome:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"Weather\" not found. Did you mean: weather, weatherAlerts?");
        assert_eq!(resolutions(&host.asked), [(Lookup::KeyFirst, Found::Missing(js("Weather")), Phase::Load)]);
    }

    #[test]
    fn pooled_step_catalogs_merge_and_search_as_catalogs_from_the_text() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        // `None` as a slot: a key without a tool (a meta-tool's, as the binding sends it).
        let resolved: [(&str, Option<&str>, &str, bool); 8] = [
            ("search_tools", Some("search_tools"), "meta, keyed by its id", true),
            ("load_tool", None, "meta, no tool", false),
            ("email", Some("mail"), "Resolved mail tool", true),
            ("7", None, "array index key", true),
            ("12", Some("12"), "array index id", true),
            ("getWeather", Some("getWeather"), "Weather by the id of a record tool", true),
            ("issue", Some("issue"), "Resolved issue tool, keyed by its id", true),
            ("memory", None, "Remember things", true),
        ];
        let text_resolved = Tools::new(&resolved.map(|(key, id, description, _)| (key, id, description)));
        let by_text = search.step_catalog(&tools.entries(), &text_resolved.entries()).unwrap();

        // Every tool new to the pool (the record's, then the step's that hold
        // one): the pool gives them slots 0.. in order.
        let all: Vec<_> = tools.0.iter().chain(&text_resolved.0).collect();
        let has_tool = |i: usize| i < 3 || resolved[i - 3].3;
        let added: Vec<PoolTool<'_>> = (0..all.len())
            .filter(|&i| has_tool(i))
            .map(|i| PoolTool { slot: None, id: all[i].1.as_deref(), description: &all[i].2 })
            .collect();
        let rows: Vec<(PoolSlot, Option<&[u16]>)> = (0..all.len())
            .map(|i| {
                let (key, id, _) = all[i];
                let slot = if has_tool(i) { PoolSlot::New } else { PoolSlot::NoTool };
                (slot, (id.as_deref() != Some(&key[..]) || !has_tool(i)).then_some(&key[..]))
            })
            .collect();
        let step = PoolStep { added: &added, parameters: None, released: &[], rows: &rows, record_count: 3 };
        let (by_pool, changes) = search.pool_step_catalog(step).unwrap();
        assert_eq!(changes, PoolChanges { added: (0..added.len() as Slot).collect(), forgotten: vec![] });

        assert_eq!(by_pool.sources, by_text.sources);
        assert_eq!(by_pool.visible, by_text.visible);
        assert_eq!(by_pool.visible, Some(vec![0, 1]));
        assert_eq!((by_pool.live, by_text.live), (false, false));
        let (pooled, text) = (&by_pool.catalog, &by_text.catalog);
        assert_eq!(pooled.entry_count(), text.entry_count());
        for entry in 0..text.entry_count() {
            assert_eq!(pooled.key(entry), text.key(entry));
            assert_eq!(pooled.id(entry), text.id(entry));
            assert_eq!(pooled.description(entry), text.description(entry));
            assert_eq!(pooled.find_by_key(text.key(entry)), text.find_by_key(text.key(entry)));
            assert_eq!(pooled.find_doc(text.name(entry)), text.find_doc(text.name(entry)));
        }
        let keys: Vec<String> = (0..text.entry_count()).map(|i| String::from_utf16_lossy(pooled.key(i))).collect();
        assert_eq!(keys, ["7", "12", "weather", "email", "issue", "getWeather", "memory"]);
        let options = SearchOptions { top_k: 100.0, ..SearchOptions::default() };
        for query in ["weather", "resolved tool issue", "array index", "mail email"] {
            assert_eq!(pooled.search(&units(query), &options), text.search(&units(query), &options), "{query}");
        }
    }

    #[test]
    fn a_catalog_cell_is_let_go_of_and_restored_while_its_steps_share_their_loaded_names() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        let resolved =
            Tools::new(&[("email", Some("mail"), "Resolved mail tool"), ("memory", None, "Remember things")]);
        let make = || search.step_catalog(&tools.entries(), &resolved.entries()).unwrap();
        let cell = CatalogCell::new(Arc::new(make()));
        let loaded = loaded_names(NameSet::new());
        let step = |cell: &CatalogCell| Step { catalog: cell.get().unwrap(), thread: None, loaded: loaded.clone() };

        let before = step(&cell);
        let first = ready(search.load(&before, Some(&units("mail")), None, &NoFilter, 0.0));
        cell.let_go();
        assert!(cell.get().is_none());
        // A call under way keeps its own catalog.
        assert_eq!(before.catalog.catalog.entry_count(), 4);

        cell.restore(make());
        let after = step(&cell);
        let again = ready(search.load(&after, Some(&units("mail")), None, &NoFilter, 0.0));
        assert!(matches!(first, LoadOutcome::Single { success: true, .. }), "{first:?}");
        let LoadOutcome::Single { message, .. } = again else { panic!("{again:?}") };
        assert_eq!(message.to_string_lossy(), "Tool \"mail\" is already loaded and available.");
        let query = units("mail email memory");
        assert_eq!(
            ready(search.search(&after, &query, &NoFilter, 0.0)),
            ready(search.search(&before, &query, &NoFilter, 0.0))
        );
    }

    /// A host that awaits as the reference: it records each question, and at
    /// each tick what the step's loaded names and the store hold.
    struct Ticking<'s> {
        search: &'s ToolSearch,
        step: &'s Step,
        events: RefCell<Vec<String>>,
    }

    impl ToolFilter for Ticking<'_> {
        fn check(&self, ask: Ask, _phase: Phase) -> impl Future<Output = Answer> {
            self.events.borrow_mut().push(format!("{ask:?}"));
            std::future::ready(if matches!(ask, Ask::Resolve { found: Found::Missing(_), .. }) {
                Answer::DENIED
            } else {
                Answer::ALLOWED
            })
        }

        fn awaits(&self) -> bool {
            true
        }

        fn tick(&self) -> impl Future<Output = ()> {
            let step = self.step.loaded.lock().len();
            let store = self.search.loaded_names(Some(&units("t")), None, 1000.0).len();
            self.events.borrow_mut().push(format!("tick: step {step}, store {store}"));
            std::future::ready(())
        }
    }

    #[test]
    fn an_operation_that_awaits_as_the_reference_asks_about_every_tool_and_records_loads_around_a_tick() {
        let tools = weather_tools();
        let resolved = Tools::new(&[("memory", Some("remember"), "Remember things")]);
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        let catalog = Arc::new(search.step_catalog(&tools.entries(), &resolved.entries()).unwrap());
        let step = Step::new(catalog, Some(js("t")), NameSet::new());
        let host = Ticking { search: &search, step: &step, events: RefCell::default() };
        let outcome = ready(search.load(&step, None, Some(&[js("memory"), js("weather"), js("nope")]), &host, 1000.0));
        assert!(matches!(outcome, LoadOutcome::Multi { loaded_count: 2, .. }), "{outcome:?}");
        // A key of the step's copy is its tool, asked about as the reference's
        // `await isToolAllowed` asks even without a hook; a name its tables
        // lack is not found, without asking; the loads are in the store before
        // the tick and in the step's loaded names after it.
        assert_eq!(*host.events.borrow(), ["Tool(3)", "Tool(0)", "tick: step 0, store 2"]);
        assert_eq!(step.loaded.lock().len(), 2);

        // An auto-loading search: each candidate asked about, the search's end
        // awaited, then the activation recorded as a load is.
        let search =
            ToolSearch::new(ToolSearchOptions { auto_load: true, ..options(false) }, &tools.entries()).unwrap();
        let step = super::tests::step(&search, Some("t"));
        let host = Ticking { search: &search, step: &step, events: RefCell::default() };
        let outcome = ready(search.search(&step, &units("weather email"), &host, 1000.0));
        assert_eq!(names(&outcome), ["sendEmail", "getWeather"]);
        assert_eq!(
            *host.events.borrow(),
            [
                "Resolve { lookup: IdOnly, found: ById(1) }",
                "Resolve { lookup: IdOnly, found: ById(0) }",
                "tick: step 0, store 0",
                "tick: step 0, store 2",
            ]
        );
        assert_eq!(step.loaded.lock().len(), 2);
    }

    #[test]
    fn a_tool_indexed_under_its_key_for_lack_of_an_id_is_never_a_result_as_the_reference_finds_it_by_id() {
        let tools = Tools::new(&[("frob", None, "Frobnicate the widget"), ("other", Some("other"), "Another widget")]);
        let search = ToolSearch::new(options(false), &tools.entries()).unwrap();
        let step = step(&search, None);
        // Trusting the tables: passed over, and nothing to check of it.
        let host = VerifyAfter::default();
        let outcome = ready(search.search(&step, &units("frobnicate widget"), &host, 1000.0));
        assert_eq!(names(&outcome), ["other"]);
        assert_eq!(host.into_resolutions(), [resolve(Lookup::IdOnly, Found::ById(1))]);
        // A host asked as it goes is not asked about it either, whatever its record now gives.
        let host = ChangedRecord::new(&[("frob", 0)]);
        let outcome = ready(search.search(&step, &units("frobnicate widget"), &host, 1000.0));
        assert_eq!(names(&outcome), ["other"]);
        assert_eq!(resolutions(&host.asked), [(Lookup::IdOnly, Found::ById(1), Phase::Search)]);
    }
}
