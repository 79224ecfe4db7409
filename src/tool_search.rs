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
//! A tools record that the caller edits after construction is read by one
//! rule: [`lookup`] states it, and says where it is applied.
//!
//! What JavaScript hands over is read here too: the options
//! ([`options::ToolSearchOptions::from_given`]), the request's thread and the
//! meta-tools' inputs ([`request`]), and what it found in a tools record and
//! could not use ([`refusal::refuse_record_value`]). The codes, layouts and
//! names both sides share are the [`protocol`](crate::protocol::tool_search)'s.
//!
//! This module keeps the processor's state ([`ToolSearch`]: its options, the
//! constructor's catalog, the loaded-names store and the tool pool), made
//! and kept here, and the order of a step, as the binding runs it:
//!
//! 1. the catalog the step searches: the constructor's
//!    ([`ToolSearch::static_step_catalog`]), or with `includeResolvedTools`
//!    one merged with the step's own tools ([`resolved_tools`]);
//! 2. the names loaded as of its start, from the store
//!    ([`ToolSearch::loaded_names`]), which with the catalog make its
//!    [`Step`] ([`step`]);
//! 3. the system message that lists the catalog ([`catalog_message`]), and
//!    the loaded tools it hands the model ([`active_tools`]);
//! 4. the model's calls of the meta-tools, on that step: `search_tools`
//!    ([`search_tools`]) and `load_tool` ([`load_tool`]), which add to its
//!    loaded names and to the store (what they take and give is
//!    [`step`]'s).
//!
//! Each of those operations decides, for every tool it finds, whether the
//! step may use it, by [`admission`]: at once, or by asking the host. The
//! hook's vocabulary, which the operations share, is [`hook`]; the catalog a
//! step searches, with the tools it is made of, [`step_catalog`]; how an
//! operation that asks runs on the JavaScript thread, [`operation`], with
//! several questions out at once by [`ahead`]; and the model-facing texts,
//! [`messages`].

pub mod active_tools;
pub mod admission;
pub mod ahead;
pub mod catalog_message;
pub mod hook;
pub mod load_tool;
pub mod lookup;
pub mod messages;
pub mod operation;
pub mod options;
pub mod refusal;
pub mod request;
pub mod resolved_tools;
pub mod search_tools;
pub mod step;
pub mod step_catalog;

use std::sync::Arc;

use parking_lot::Mutex;

use crate::js::JsString;
use crate::search::{
    embedding::ToolVectors, Catalog, CatalogError, EntrySpans, HybridConfig, ParamTable, Ranking, ToolPool,
    VectorSource,
};
use crate::stores::history::{Continuation, ContinueError};
use crate::stores::{activated_names_from_messages, ContextStore, InMemoryStore, NameSet, StoreStats, ToolResultFacts};

pub use options::{Storage, Syntax, ToolSearchOptions};

pub use hook::{Answer, Ask, Found, Lookup, NoFilter, Phase, ToolFilter, ToolRef, Verdict, VerifyAfter};
pub use step::{loaded_names, LoadInput, LoadOutcome, LoadedNames, SearchOutcome, SearchQuery, Step};
pub use step_catalog::{CatalogCell, PoolChanges, PoolStep, PoolTool, PooledTool, StepCatalog, ToolEntry};

/// The loaded-names store the options chose (`storage`).
enum Store {
    InMemory(InMemoryStore),
    Context(ContextStore),
}

/// The processor's state: its options, the static catalog, the store and
/// the tool pool.
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
    /// [`crate::stores::history`]). The in-memory store reads no messages.
    pub fn loaded_names_continuing(
        &self,
        thread: Option<&[u16]>,
        list: Continuation<'_>,
        now_ms: f64,
    ) -> Result<NameSet, ContinueError> {
        match &mut *self.store.lock() {
            Store::InMemory(store) => Ok(store.loaded_names(thread, now_ms)),
            Store::Context(store) => store.loaded_names_continuing(thread, list, now_ms),
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
}

#[cfg(test)]
mod testing;

#[cfg(test)]
mod concurrency_tests {
    //! `filterConcurrency`: every operation, driven through the batch exchange
    //! with the host answering its questions in a scrambled order, decides as
    //! it does one question at a time.

    use std::sync::Arc;

    use super::operation::Operation;
    use super::testing::{tool_name, tool_names};
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
                    [one] => search.load(&step, tool_name(one.units()), &relay, 0.0).await,
                    many => search.load(&step, tool_names(many), &relay, 0.0).await,
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
    use super::*;
    use crate::search::Ranking;
    use crate::tool_search::testing::*;

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
}
