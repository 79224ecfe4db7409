//! A tools record handed over in runs, indexed as it comes.
//!
//! Reading a large record in JavaScript (every tool's id and description)
//! takes about as long as indexing it. Fed to a [`CatalogFeed`] a run of
//! tools at a time, the index of the first runs is built on a thread of the
//! feed's own while JavaScript reads the rest; [`CatalogFeed::finish`] makes
//! the catalog of the runs (their texts kept as they crossed, not joined),
//! whose first search waits only for what is left: the runs not yet indexed,
//! shared out between two threads, one of which makes the lookups first.
//! The index is the one [`Catalog::new`] builds: each run is indexed as its
//! own builder, appended in order, as the halves of a large catalog are.
//!
//! A feed that is dropped unfinished (JavaScript met a bad tool) stops its
//! thread; a feed whose thread could not start is indexed when finished.

use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use super::catalog::{index_run, Built, Catalog, CatalogError, EntrySpans, Partial, Ranking, Source, Span};
use super::params::ParamTable;

/// Tools per run JavaScript hands over: the thread starts once the first run
/// has come, and runs are what the two threads share out at the end.
pub const RUN_TOOLS: usize = 512;

/// Records with fewer tools than this cross in one piece (see
/// [`table`](super::table)): a feed's thread costs more than it saves.
pub const FEED_FROM_TOOLS: usize = 4 * RUN_TOOLS;

/// One run as it crossed: its own text, its entries' spans within it.
struct Run {
    text: Arc<Vec<u16>>,
    entries: Vec<EntrySpans>,
}

impl Run {
    fn index(&self) -> Partial {
        let text = &self.text;
        let piece = |span: Span| &text[span.start as usize..span.end as usize];
        index_run(self.entries.iter().map(|spans| (piece(spans.name()), piece(spans.description))), text.len())
    }
}

/// What the feed says once it stops taking runs.
enum End {
    Open,
    /// Let go of unfinished: the thread stops.
    Abandoned,
    /// Finished: the whole catalog, whose lookups are still to make.
    Finished(Box<Source>),
}

struct FeedState {
    runs: Vec<Arc<Run>>,
    /// The first run no thread has taken yet.
    next: usize,
    /// Each run's index, once made.
    partials: Vec<Option<Partial>>,
    end: End,
}

struct Shared {
    state: Mutex<FeedState>,
    changed: Condvar,
}

impl Shared {
    /// Indexes runs no thread has taken, until there are none, or until the
    /// feed has ended when `until_end` (the rest is then shared out).
    fn index_untaken(&self, until_end: bool) {
        loop {
            let (at, run) = {
                let mut state = self.state.lock();
                if until_end && !matches!(state.end, End::Open) {
                    return;
                }
                let at = state.next;
                let Some(run) = state.runs.get(at).cloned() else { return };
                state.next += 1;
                (at, run)
            };
            let partial = run.index();
            self.state.lock().partials[at] = Some(partial);
        }
    }
}

/// A record's tools, fed in runs.
pub struct CatalogFeed {
    shared: Arc<Shared>,
    /// The runs, as kept for joining (the shared state holds them too).
    runs: Vec<Arc<Run>>,
    /// The indexing thread, once started; `None` also when it could not be.
    thread: Option<JoinHandle<Option<Built>>>,
    started: bool,
}

impl Default for CatalogFeed {
    fn default() -> Self {
        CatalogFeed::new()
    }
}

impl CatalogFeed {
    pub fn new() -> CatalogFeed {
        let state = FeedState { runs: Vec::new(), next: 0, partials: Vec::new(), end: End::Open };
        CatalogFeed {
            shared: Arc::new(Shared { state: Mutex::new(state), changed: Condvar::new() }),
            runs: Vec::new(),
            thread: None,
            started: false,
        }
    }

    /// The next run: its text and its entries' spans within that text
    /// (checked here, so that the thread never meets a bad span). Every run
    /// but the last holds [`RUN_TOOLS`] tools: the catalog finds an entry's
    /// text by its run.
    pub fn push(&mut self, text: Vec<u16>, entries: Vec<EntrySpans>) -> Result<(), CatalogError> {
        Catalog::check_table(text.len(), &entries)?;
        let full = self.runs.iter().all(|run| run.entries.len() == RUN_TOOLS);
        if !full || entries.len() > RUN_TOOLS {
            return Err(CatalogError::RunCount { entries: self.len() + entries.len(), runs: self.runs.len() + 1 });
        }
        let run = Arc::new(Run { text: Arc::new(text), entries });
        self.runs.push(run.clone());
        {
            let mut state = self.shared.state.lock();
            state.runs.push(run);
            state.partials.push(None);
        }
        if !self.started {
            self.started = true;
            let shared = self.shared.clone();
            // No thread to be had: the catalog is indexed when finished.
            self.thread = std::thread::Builder::new().name("tool-search-feed".into()).spawn(move || work(&shared)).ok();
        } else {
            self.shared.changed.notify_one();
        }
        Ok(())
    }

    /// Tools fed so far.
    pub fn len(&self) -> usize {
        self.runs.iter().map(|run| run.entries.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.iter().all(|run| run.entries.is_empty())
    }

    /// The catalog of every run fed, in order, with this ranking and the
    /// tools' parameters (for a ranking that reads them).
    pub fn finish(mut self, ranking: Ranking, params: Option<ParamTable>) -> Result<Catalog, CatalogError> {
        let mut entries = Vec::with_capacity(self.len());
        for run in &self.runs {
            entries.extend_from_slice(&run.entries);
        }
        let texts = self.runs.iter().map(|run| run.text.clone()).collect();
        let worker = self.thread.take().map(|thread| FeedWorker { shared: self.shared.clone(), thread: Some(thread) });
        Catalog::from_fed(texts, entries, ranking, params, worker)
    }
}

impl Drop for CatalogFeed {
    fn drop(&mut self) {
        // Unfinished (a finished feed has handed its thread over): stop it.
        if self.thread.take().is_some() {
            abandon(&self.shared);
        }
    }
}

fn abandon(shared: &Shared) {
    shared.state.lock().end = End::Abandoned;
    shared.changed.notify_all();
}

/// A feed's thread, handed to the catalog that finishes it.
pub(super) struct FeedWorker {
    shared: Arc<Shared>,
    /// Taken when finished.
    thread: Option<JoinHandle<Option<Built>>>,
}

impl FeedWorker {
    /// The thread, told that `source` is the whole catalog: it indexes what
    /// is left and makes the lookups, then gives what was built.
    pub(super) fn finish(mut self, source: Source) -> Option<JoinHandle<Option<Built>>> {
        self.shared.state.lock().end = End::Finished(Box::new(source));
        self.shared.changed.notify_all();
        self.thread.take()
    }
}

impl Drop for FeedWorker {
    fn drop(&mut self) {
        // Let go of without being finished (another ranking): stop it. Once
        // finished, the end is no longer `Open` and this changes nothing.
        let mut state = self.shared.state.lock();
        if matches!(state.end, End::Open) {
            state.end = End::Abandoned;
            self.shared.changed.notify_all();
        }
    }
}

/// The feed's thread: indexes runs as they come, then, once the feed is
/// finished, what is left on two threads (one of them making the lookups
/// first) and joins the runs' indexes in order.
fn work(shared: &Shared) -> Option<Built> {
    let source = loop {
        shared.index_untaken(true);
        let mut state = shared.state.lock();
        if state.next < state.runs.len() && matches!(state.end, End::Open) {
            continue;
        }
        match std::mem::replace(&mut state.end, End::Open) {
            End::Open => shared.changed.wait(&mut state),
            End::Abandoned => {
                state.end = End::Abandoned;
                return None;
            }
            End::Finished(source) => break *source,
        }
    };
    let lookups = std::thread::scope(|scope| {
        let helper = std::thread::Builder::new().spawn_scoped(scope, || shared.index_untaken(false));
        let lookups = source.lookups();
        shared.index_untaken(false);
        if let Ok(helper) = helper {
            // A run the helper took and did not finish is indexed below.
            let _ = helper.join();
        }
        lookups
    });
    let (runs, partials) = {
        let mut state = shared.state.lock();
        (std::mem::take(&mut state.runs), std::mem::take(&mut state.partials))
    };
    let mut whole: Option<Partial> = None;
    for (run, partial) in runs.iter().zip(partials) {
        let partial = partial.unwrap_or_else(|| run.index());
        match &mut whole {
            Some(whole) => whole.append(partial),
            None => whole = Some(partial),
        }
    }
    let whole = whole.unwrap_or_else(|| index_run(std::iter::empty(), 0));
    Some(Built { searchable: Some(whole.finish(&lookups.retired)), lookups })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SearchOptions;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// Tool `i`: key, id (if any) and description, some names repeated
    /// across runs' ends and some ids other than their keys.
    fn tool(i: usize) -> (String, Option<String>, String) {
        let key = format!("tool_{i}");
        let id = match i {
            _ if i == RUN_TOOLS - 1 || i == RUN_TOOLS => Some("twin".to_string()),
            _ if i % 9 == 4 => None,
            _ if i % 7 == 2 => Some(format!("other_{i}")),
            _ if i % 31 == 5 => Some(String::new()),
            _ => Some(key.clone()),
        };
        let words = ["weather", "größe", "検索", "invoice", "query", "records"];
        let description = format!("{} {} n{}", words[i % words.len()], words[(i * 5) % words.len()], i % 13);
        (key, id, description)
    }

    /// A run's text and spans, as JavaScript writes a tool table.
    fn table(tools: impl Iterator<Item = (String, Option<String>, String)>) -> (Vec<u16>, Vec<EntrySpans>) {
        let (mut text, mut entries) = (Vec::new(), Vec::new());
        for (key, id, description) in tools {
            let mut take = |s: &str| {
                let start = text.len() as u32;
                text.extend(s.encode_utf16());
                Span::new(start, text.len() as u32)
            };
            let key = take(&key);
            let id = id.map(|id| take(&id));
            let description = take(&description);
            entries.push(EntrySpans { key, id, description });
        }
        (text, entries)
    }

    fn fed(count: usize) -> Catalog {
        let mut feed = CatalogFeed::new();
        for start in (0..count).step_by(RUN_TOOLS) {
            let (text, entries) = table((start..(start + RUN_TOOLS).min(count)).map(tool));
            feed.push(text, entries).unwrap();
        }
        feed.finish(Ranking::Reference, None).unwrap()
    }

    #[test]
    fn a_fed_catalog_answers_as_one_built_whole() {
        for count in [FEED_FROM_TOOLS, 3 * RUN_TOOLS + 17, RUN_TOOLS / 2] {
            let fed = fed(count);
            let (text, entries) = table((0..count).map(tool));
            let whole = Catalog::new(text, entries).unwrap();
            assert_eq!(fed.len(), whole.len());
            let options = SearchOptions { top_k: 50.0, min_score: 0.0, has_filter: false };
            for query in ["weather", "größe 検索", "twin", "tool_600", "other_9 records", "n7 invoice"] {
                let (a, b) = (fed.search(&units(query), &options), whole.search(&units(query), &options));
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "{count} tools, {query:?}");
            }
            for i in (0..count).step_by(37) {
                let (key, _, _) = tool(i);
                assert_eq!(fed.find_by_key(&units(&key)), whole.find_by_key(&units(&key)));
                assert_eq!(fed.name(i), whole.name(i));
                assert_eq!(fed.description(i), whole.description(i));
            }
            assert_eq!(fed.find_doc(&units("twin")), whole.find_doc(&units("twin")));
        }
    }

    #[test]
    fn runs_other_than_full_ones_then_the_last_are_refused() {
        let mut feed = CatalogFeed::new();
        let (text, entries) = table((0..3).map(tool));
        feed.push(text, entries).unwrap();
        let (text, entries) = table((3..6).map(tool));
        assert!(matches!(feed.push(text, entries), Err(CatalogError::RunCount { .. })));
        let (text, mut entries) = table((0..2).map(tool));
        entries[1].description.end += 1;
        assert!(matches!(CatalogFeed::new().push(text, entries), Err(CatalogError::BadSpan { entry: 1, .. })));
    }

    #[test]
    fn a_feed_let_go_of_unfinished_stops_its_thread() {
        let mut feed = CatalogFeed::new();
        let (text, entries) = table((0..RUN_TOOLS).map(tool));
        feed.push(text, entries).unwrap();
        let shared = feed.shared.clone();
        drop(feed);
        // The thread gives up its hold on the shared state once it stops.
        let start = std::time::Instant::now();
        while Arc::strong_count(&shared) > 1 {
            assert!(start.elapsed() < std::time::Duration::from_secs(10), "the feed's thread did not stop");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn another_ranking_builds_from_the_runs() {
        let mut feed = CatalogFeed::new();
        for start in (0..FEED_FROM_TOOLS).step_by(RUN_TOOLS) {
            let (text, entries) = table((start..start + RUN_TOOLS).map(tool));
            feed.push(text, entries).unwrap();
        }
        let fielded = feed.finish(Ranking::Fielded(Default::default()), None).unwrap();
        let options = SearchOptions { top_k: 5.0, min_score: 0.0, has_filter: false };
        assert_eq!(fielded.search(&units("twin"), &options)[0].name.units(), &units("twin")[..]);
    }
}
