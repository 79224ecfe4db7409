//! Where "which tools has this conversation loaded" lives.
//!
//! Two backends, as in the reference:
//! - [`InMemoryStore`] (`storage: 'in-memory'`, the default): a map from
//!   thread id to an ordered set of names, with TTL cleanup. Anonymous
//!   requests share the `'default'` thread.
//! - [`ContextStore`] (`storage: 'context'`): names come from the completed
//!   `search_tools` / `load_tool` results still present in the messages
//!   ([`facts`]), plus a per-thread supplemental set for names activated in
//!   this step that the messages cannot show yet.
//!
//! Both keep their per-thread state in one kind of table, which expires a thread
//! after `ttl` of inactivity. The reference sweeps only the in-memory store
//! and keeps the context store's supplemental sets for as long as the process
//! lives; here they are swept by the same `ttl` (a deliberate difference: a
//! thread idle for longer forgets the names its messages never showed), so
//! neither store grows without bound unless `ttl <= 0` asks for that.
//!
//! Sets keep insertion order because the processor returns loaded tools in
//! set order. Time is passed in as `now_ms` (the binding's `Date.now()`), so
//! JS fake timers drive the TTL exactly as they drive the reference.

pub mod facts;
pub mod history;

use indexmap::{IndexMap, IndexSet};

use crate::js::JsString;
use crate::protocol::tool_search::defaults;

pub use facts::{activated_names_from_messages, ToolResultFacts};

/// An insertion-ordered set of tool names, like a JS `Set<string>`.
pub type NameSet = IndexSet<JsString>;

/// The shortest sweep period, whatever the TTL.
pub const MIN_SWEEP_INTERVAL_MS: f64 = 60_000.0;
/// The longest period a Node.js timer keeps (2^31 - 1 ms, about 24.8 days);
/// a longer one, or an infinite one, is clamped to 1 ms with a warning.
pub const MAX_SWEEP_INTERVAL_MS: f64 = 2_147_483_647.0;

fn default_thread() -> JsString {
    JsString::from(defaults::THREAD)
}

/// A JS thread id is "present" when it is a non-empty string (`threadId || ...`).
fn real_thread(thread: Option<&[u16]>) -> Option<&[u16]> {
    thread.filter(|t| !t.is_empty())
}

struct ThreadState {
    tools: NameSet,
    last_accessed_ms: f64,
}

/// Adds the names `tools` lacks, keeping the order names were first added.
fn add_names<'n>(tools: &mut NameSet, names: impl Iterator<Item = &'n [u16]>) {
    for name in names {
        if !tools.contains(name) {
            tools.insert(JsString::from(name));
        }
    }
}

/// Counters for monitoring, as `getStateStats()` reports them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoreStats {
    pub thread_count: usize,
    /// The least recent access time, or `None` (JS `null`) with no threads.
    pub oldest_access_ms: Option<f64>,
}

/// Per-thread name sets that expire after `ttl_ms` of inactivity: what
/// both stores keep.
struct Threads {
    ttl_ms: f64,
    map: IndexMap<JsString, ThreadState>,
}

impl Threads {
    fn new(ttl_ms: f64) -> Threads {
        Threads { ttl_ms, map: IndexMap::new() }
    }

    /// `max(ttl / 2, 60000)` when `ttl > 0`, as the reference, but never more
    /// than [`MAX_SWEEP_INTERVAL_MS`], and never for an infinite TTL, under
    /// which nothing ever expires. (The reference hands Node's `setInterval`
    /// the longer period, which Node turns into a sweep every millisecond.)
    /// A capped period sweeps more often than `ttl / 2`, so threads still go
    /// within `ttl / 2` of expiring; what expires is decided by
    /// [`cleanup_stale`](Self::cleanup_stale) alone.
    fn sweep_interval_ms(&self) -> Option<f64> {
        // JS `Math.max` would give NaN for a NaN ttl, but `NaN > 0` is false.
        (self.ttl_ms > 0.0 && self.ttl_ms.is_finite())
            .then(|| (self.ttl_ms / 2.0).clamp(MIN_SWEEP_INTERVAL_MS, MAX_SWEEP_INTERVAL_MS))
    }

    /// Fetches (creating if needed) a thread's state and marks it accessed.
    fn touch(&mut self, key: &[u16], now_ms: f64) -> &mut ThreadState {
        let state = match self.map.get_index_of(key) {
            Some(index) => &mut self.map[index],
            None => self
                .map
                .entry(JsString::from(key))
                .or_insert(ThreadState { tools: NameSet::new(), last_accessed_ms: now_ms }),
        };
        state.last_accessed_ms = now_ms;
        state
    }

    /// Forgets one thread: `None` means `'default'`; any other id, `''`
    /// included, is taken literally, as `clearState(threadId = 'default')`.
    fn forget(&mut self, thread: Option<&[u16]>) {
        match thread {
            Some(id) => self.map.shift_remove(id),
            None => self.map.shift_remove(&default_thread()),
        };
    }

    fn clear(&mut self) {
        self.map.clear();
    }

    /// Drops threads idle for more than the TTL; returns how many. Does
    /// nothing when `ttl <= 0`.
    fn cleanup_stale(&mut self, now_ms: f64) -> usize {
        if self.ttl_ms <= 0.0 {
            return 0;
        }
        let ttl = self.ttl_ms;
        let before = self.map.len();
        // Literally `now - lastAccessed > ttl`: with a NaN on either side
        // nothing is stale, which `<=` would get backwards.
        let is_stale = |state: &ThreadState| now_ms - state.last_accessed_ms > ttl;
        self.map.retain(|_, state| !is_stale(state));
        before - self.map.len()
    }

    /// Thread count and the oldest access time (never later than `now_ms`,
    /// where the reference starts its minimum).
    fn stats(&self, now_ms: f64) -> StoreStats {
        if self.map.is_empty() {
            return StoreStats { thread_count: 0, oldest_access_ms: None };
        }
        let mut oldest = now_ms;
        for state in self.map.values() {
            if state.last_accessed_ms < oldest {
                oldest = state.last_accessed_ms;
            }
        }
        StoreStats { thread_count: self.map.len(), oldest_access_ms: Some(oldest) }
    }
}

/// The in-memory store: thread id -> loaded names, expiring after `ttl_ms`
/// of inactivity.
pub struct InMemoryStore {
    threads: Threads,
}

impl InMemoryStore {
    /// `ttl_ms` is the option as given (`options.ttl ?? 3600000`); NaN and
    /// infinities are kept and compared exactly as JS would.
    pub fn new(ttl_ms: f64) -> InMemoryStore {
        InMemoryStore { threads: Threads::new(ttl_ms) }
    }

    pub fn ttl_ms(&self) -> f64 {
        self.threads.ttl_ms
    }

    /// How often to call [`cleanup_stale`](Self::cleanup_stale), if at all:
    /// `max(ttl / 2, 60000)` when `ttl > 0`, at most [`MAX_SWEEP_INTERVAL_MS`],
    /// and never for an infinite TTL.
    pub fn sweep_interval_ms(&self) -> Option<f64> {
        self.threads.sweep_interval_ms()
    }

    fn touch(&mut self, thread: Option<&[u16]>, now_ms: f64) -> &mut ThreadState {
        match real_thread(thread) {
            Some(thread) => self.threads.touch(thread, now_ms),
            None => self.threads.touch(&default_thread(), now_ms),
        }
    }

    /// The loaded names of a thread (`None` or `''` means `'default'`), as a
    /// copy. Reading counts as access: it creates the entry and refreshes
    /// its TTL.
    pub fn loaded_names(&mut self, thread: Option<&[u16]>, now_ms: f64) -> NameSet {
        self.touch(thread, now_ms).tools.clone()
    }

    /// Adds names to a thread. With no names this does nothing at all (no
    /// entry is created and the TTL is not refreshed).
    pub fn add_loaded<'n>(&mut self, names: impl IntoIterator<Item = &'n [u16]>, thread: Option<&[u16]>, now_ms: f64) {
        let mut names = names.into_iter().peekable();
        if names.peek().is_none() {
            return;
        }
        add_names(&mut self.touch(thread, now_ms).tools, names);
    }

    /// Forgets one thread. `None` means `'default'`; any other id, `''`
    /// included, is taken literally, as `clearState(threadId = 'default')`.
    pub fn clear_state(&mut self, thread: Option<&[u16]>) {
        self.threads.forget(thread);
    }

    /// Forgets every thread.
    pub fn clear_all(&mut self) {
        self.threads.clear();
    }

    /// Drops threads idle for more than the TTL; returns how many. Does
    /// nothing when `ttl <= 0`.
    pub fn cleanup_stale(&mut self, now_ms: f64) -> usize {
        self.threads.cleanup_stale(now_ms)
    }

    /// Thread count and the oldest access time (never later than `now_ms`,
    /// where the reference starts its minimum).
    pub fn stats(&self, now_ms: f64) -> StoreStats {
        self.threads.stats(now_ms)
    }

    /// Number of threads with state.
    pub fn thread_count(&self) -> usize {
        self.threads.map.len()
    }
}

/// The context store's same-process memory: names activated on a real thread
/// that the messages may not show yet. Threads expire after `ttl_ms` of
/// inactivity, as in the in-memory store (the reference keeps them forever).
pub struct ContextStore {
    supplemental: Threads,
    lists: history::RememberedLists,
}

impl ContextStore {
    /// `ttl_ms` as for [`InMemoryStore::new`].
    pub fn new(ttl_ms: f64) -> ContextStore {
        ContextStore { supplemental: Threads::new(ttl_ms), lists: history::RememberedLists::default() }
    }

    /// How often to call [`cleanup_stale`](Self::cleanup_stale), if at all.
    pub fn sweep_interval_ms(&self) -> Option<f64> {
        self.supplemental.sweep_interval_ms()
    }

    /// The loaded names for a step.
    ///
    /// `from_messages` is [`activated_names_from_messages`] over the step's
    /// messages, or `None` when there are no step args (the resume path).
    /// Without a thread the answer is just the messages' names. With one,
    /// supplemental names the messages now show are handed over to the
    /// messages (pruned, so they de-load with them), empty entries are
    /// dropped, and the answer is the messages' names followed by the
    /// remaining supplemental ones. Reading a thread that has names counts as
    /// access; reading never creates an entry.
    pub fn loaded_names(&mut self, thread: Option<&[u16]>, from_messages: Option<NameSet>, now_ms: f64) -> NameSet {
        let messages_available = from_messages.is_some();
        let mut loaded = from_messages.unwrap_or_default();
        let Some(thread) = real_thread(thread) else {
            return loaded;
        };
        let Some(index) = self.supplemental.map.get_index_of(thread) else {
            return loaded;
        };
        let state = &mut self.supplemental.map[index];
        state.last_accessed_ms = now_ms;
        if messages_available {
            state.tools.retain(|name| !loaded.contains(name));
        }
        if state.tools.is_empty() {
            self.supplemental.map.shift_remove_index(index);
            return loaded;
        }
        for name in state.tools.iter() {
            if !loaded.contains(name) {
                loaded.insert(name.clone());
            }
        }
        loaded
    }

    /// [`loaded_names`](Self::loaded_names) for a step whose messages
    /// continue a remembered list (see [`history`]).
    pub fn loaded_names_continuing(
        &mut self,
        thread: Option<&[u16]>,
        list: history::Continuation<'_>,
        now_ms: f64,
    ) -> Result<NameSet, history::ContinueError> {
        let from_messages = self.lists.continue_list(list.slot, list.kept, list.parts)?.clone();
        Ok(self.loaded_names(thread, Some(from_messages), now_ms))
    }

    /// Remembers names activated on a real thread. Without names or without a
    /// thread (anonymous requests must not share state) this does nothing.
    pub fn add_loaded<'n>(&mut self, names: impl IntoIterator<Item = &'n [u16]>, thread: Option<&[u16]>, now_ms: f64) {
        let mut names = names.into_iter().peekable();
        let Some(thread) = real_thread(thread) else {
            return;
        };
        if names.peek().is_none() {
            return;
        }
        add_names(&mut self.supplemental.touch(thread, now_ms).tools, names);
    }

    /// Forgets one thread's supplemental names (`None` means `'default'`,
    /// as for the in-memory store).
    pub fn clear_state(&mut self, thread: Option<&[u16]>) {
        self.supplemental.forget(thread);
    }

    /// Forgets every thread's supplemental names.
    pub fn clear_all(&mut self) {
        self.supplemental.clear();
    }

    /// Drops threads idle for more than the TTL; returns how many.
    pub fn cleanup_stale(&mut self, now_ms: f64) -> usize {
        self.supplemental.cleanup_stale(now_ms)
    }

    /// The threads holding supplemental names, and their oldest access.
    pub fn stats(&self, now_ms: f64) -> StoreStats {
        self.supplemental.stats(now_ms)
    }

    /// Number of threads with supplemental names.
    pub fn thread_count(&self) -> usize {
        self.supplemental.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented default ttl.
    const HOUR_MS: f64 = 3_600_000.0;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn set(names: &[&str]) -> NameSet {
        names.iter().map(|n| js(n)).collect()
    }

    fn names(set: &NameSet) -> Vec<String> {
        set.iter().map(|n| n.to_string_lossy()).collect()
    }

    fn add(store: &mut InMemoryStore, list: &[&str], thread: Option<&str>, now: f64) {
        let units: Vec<Vec<u16>> = list.iter().map(|n| u(n)).collect();
        let thread = thread.map(u);
        store.add_loaded(units.iter().map(|n| &n[..]), thread.as_deref(), now);
    }

    #[test]
    fn in_memory_threads_and_default() {
        let mut store = InMemoryStore::new(HOUR_MS);
        add(&mut store, &["b", "a", "b"], Some("t1"), 1000.0);
        add(&mut store, &["z"], None, 1000.0);
        add(&mut store, &["y"], Some(""), 1000.0); // '' || 'default'
        assert_eq!(names(&store.loaded_names(Some(&u("t1")), 2000.0)), ["b", "a"]);
        assert_eq!(names(&store.loaded_names(None, 2000.0)), ["z", "y"]);
        assert_eq!(names(&store.loaded_names(Some(&u("default")), 2000.0)), ["z", "y"]);
        // Reading creates the entry.
        assert!(store.loaded_names(Some(&u("fresh")), 2000.0).is_empty());
        assert_eq!(store.thread_count(), 3);
        // Adding nothing creates nothing.
        add(&mut store, &[], Some("t9"), 2000.0);
        assert_eq!(store.thread_count(), 3);
        // Set order: existing names keep their place, new ones append.
        add(&mut store, &["a", "c"], Some("t1"), 3000.0);
        assert_eq!(names(&store.loaded_names(Some(&u("t1")), 3000.0)), ["b", "a", "c"]);
    }

    #[test]
    fn in_memory_clear() {
        let mut store = InMemoryStore::new(HOUR_MS);
        add(&mut store, &["a"], Some("t1"), 0.0);
        add(&mut store, &["b"], None, 0.0);
        store.clear_state(Some(&u("")));
        assert_eq!(store.thread_count(), 2);
        store.clear_state(None);
        assert_eq!(store.thread_count(), 1);
        store.clear_state(Some(&u("t1")));
        assert_eq!(store.thread_count(), 0);
        add(&mut store, &["a"], Some("t1"), 0.0);
        store.clear_all();
        assert_eq!(store.thread_count(), 0);
    }

    #[test]
    fn in_memory_ttl_cleanup() {
        let mut store = InMemoryStore::new(1000.0);
        add(&mut store, &["a"], Some("old"), 0.0);
        add(&mut store, &["b"], Some("edge"), 500.0);
        add(&mut store, &["c"], Some("new"), 1200.0);
        // now - last > ttl: 1500 - 0 > 1000 yes; 1500 - 500 = 1000 no.
        assert_eq!(store.cleanup_stale(1500.0), 1);
        assert_eq!(store.thread_count(), 2);
        // Reading refreshes the TTL.
        store.loaded_names(Some(&u("edge")), 2400.0);
        assert_eq!(store.cleanup_stale(2300.0), 1); // 'new' (1200) goes: 1100 > 1000
        assert_eq!(store.cleanup_stale(3401.0), 1); // 'edge' (2400) goes: 1001 > 1000
        assert_eq!(store.thread_count(), 0);
    }

    #[test]
    fn in_memory_disabled_and_odd_ttls() {
        for ttl in [0.0, -5.0] {
            let mut store = InMemoryStore::new(ttl);
            add(&mut store, &["a"], None, 0.0);
            assert_eq!(store.cleanup_stale(1e12), 0);
            assert_eq!(store.sweep_interval_ms(), None);
        }
        // NaN: `NaN <= 0` is false but `x > NaN` never holds, so nothing goes.
        let mut store = InMemoryStore::new(f64::NAN);
        add(&mut store, &["a"], None, 0.0);
        assert_eq!(store.cleanup_stale(1e12), 0);
        assert_eq!(store.sweep_interval_ms(), None);
        // Infinity: never stale, so never swept.
        let mut store = InMemoryStore::new(f64::INFINITY);
        add(&mut store, &["a"], None, 0.0);
        assert_eq!(store.cleanup_stale(1e300), 0);
        assert_eq!(store.sweep_interval_ms(), None);
        // Periods a timer cannot hold are capped at the longest it can.
        for ttl in [2f64.powi(32), 1e300, f64::MAX] {
            assert_eq!(InMemoryStore::new(ttl).sweep_interval_ms(), Some(MAX_SWEEP_INTERVAL_MS), "{ttl}");
        }
        assert_eq!(InMemoryStore::new(2f64.powi(32) - 4.0).sweep_interval_ms(), Some(2f64.powi(31) - 2.0));
        // A huge finite ttl still expires exactly as given.
        let mut store = InMemoryStore::new(2f64.powi(32));
        add(&mut store, &["a"], None, 0.0);
        assert_eq!(store.cleanup_stale(2f64.powi(32)), 0);
        assert_eq!(store.cleanup_stale(2f64.powi(32) + 1.0), 1);
        // Periods: max(ttl / 2, 60000).
        assert_eq!(InMemoryStore::new(HOUR_MS).sweep_interval_ms(), Some(1_800_000.0));
        assert_eq!(InMemoryStore::new(1000.0).sweep_interval_ms(), Some(60_000.0));
        assert_eq!(InMemoryStore::new(150_000.0).sweep_interval_ms(), Some(75_000.0));
    }

    #[test]
    fn in_memory_stats() {
        let mut store = InMemoryStore::new(HOUR_MS);
        assert_eq!(store.stats(5.0), StoreStats { thread_count: 0, oldest_access_ms: None });
        add(&mut store, &["a"], Some("t1"), 300.0);
        add(&mut store, &["a"], Some("t2"), 100.0);
        add(&mut store, &["a"], Some("t3"), 200.0);
        assert_eq!(store.stats(400.0), StoreStats { thread_count: 3, oldest_access_ms: Some(100.0) });
        // The minimum starts from `now`: a clock that went back wins.
        assert_eq!(store.stats(50.0), StoreStats { thread_count: 3, oldest_access_ms: Some(50.0) });
    }

    #[test]
    fn context_store_without_thread_is_messages_only() {
        let mut store = ContextStore::new(HOUR_MS);
        store.add_loaded([&u("x")[..]], None, 0.0);
        store.add_loaded([&u("x")[..]], Some(&u("")), 0.0);
        assert_eq!(store.thread_count(), 0);
        assert_eq!(names(&store.loaded_names(None, Some(set(&["m"])), 0.0)), ["m"]);
        assert!(store.loaded_names(None, None, 0.0).is_empty());
    }

    #[test]
    fn context_store_merges_and_prunes() {
        let t = u("t1");
        let mut store = ContextStore::new(HOUR_MS);
        store.add_loaded([&u("b")[..], &u("a")[..], &u("c")[..]], Some(&t), 0.0);
        // Resume path (no messages): supplemental only, nothing pruned.
        assert_eq!(names(&store.loaded_names(Some(&t), None, 0.0)), ["b", "a", "c"]);
        // Messages now show 'a': it becomes message-owned and leaves the set.
        assert_eq!(names(&store.loaded_names(Some(&t), Some(set(&["m", "a"])), 0.0)), ["m", "a", "b", "c"]);
        // Once 'a' leaves the messages it is no longer loaded.
        assert_eq!(names(&store.loaded_names(Some(&t), Some(set(&["m"])), 0.0)), ["m", "b", "c"]);
        // Everything message-owned: the entry is dropped.
        assert_eq!(names(&store.loaded_names(Some(&t), Some(set(&["c", "b"])), 0.0)), ["c", "b"]);
        assert_eq!(store.thread_count(), 0);
        assert!(store.loaded_names(Some(&t), Some(NameSet::new()), 0.0).is_empty());
        // Adding nothing creates nothing.
        store.add_loaded(std::iter::empty(), Some(&t), 0.0);
        assert_eq!(store.thread_count(), 0);
    }

    #[test]
    fn context_store_continuing_a_list_prunes_as_a_whole_reading_does() {
        use super::history::Continuation;
        let t = u("t1");
        let loaded = |names: &[&str]| ToolResultFacts {
            tool_name: Some(js(crate::protocol::tool_search::meta_tools::LOAD_TOOL)),
            is_result_state: true,
            loaded: names.iter().map(|n| js(n)).collect(),
            ..Default::default()
        };
        let mut store = ContextStore::new(HOUR_MS);
        store.add_loaded([&u("b")[..], &u("s")[..]], Some(&t), 0.0);
        let first = store
            .loaded_names_continuing(Some(&t), Continuation { slot: 0, kept: 0, parts: &[loaded(&["a"])] }, 0.0)
            .unwrap();
        assert_eq!(names(&first), ["a", "b", "s"]);
        // The list grows by a result showing 'b': it becomes message-owned.
        let grown = store
            .loaded_names_continuing(Some(&t), Continuation { slot: 0, kept: 1, parts: &[loaded(&["b"])] }, 0.0)
            .unwrap();
        assert_eq!(names(&grown), ["a", "b", "s"]);
        // Cut back to its first part: 'b' de-loads with its result.
        let cut = store.loaded_names_continuing(Some(&t), Continuation { slot: 0, kept: 1, parts: &[] }, 0.0).unwrap();
        assert_eq!(names(&cut), ["a", "s"]);
        // Another slot is another list; a slot past the limit is an error.
        let other = store
            .loaded_names_continuing(None, Continuation { slot: 1, kept: 0, parts: &[loaded(&["z"])] }, 0.0)
            .unwrap();
        assert_eq!(names(&other), ["z"]);
        assert!(store
            .loaded_names_continuing(
                None,
                Continuation {
                    slot: crate::protocol::tool_search::message_facts::REMEMBERED_LISTS,
                    kept: 0,
                    parts: &[]
                },
                0.0
            )
            .is_err());
    }

    #[test]
    fn context_store_expires_idle_threads_and_can_be_cleared() {
        let (a, b, c) = (u("a"), u("b"), u("c"));
        let mut store = ContextStore::new(1000.0);
        assert_eq!(store.sweep_interval_ms(), Some(MIN_SWEEP_INTERVAL_MS));
        assert_eq!(store.stats(0.0), StoreStats { thread_count: 0, oldest_access_ms: None });
        store.add_loaded([&u("x")[..]], Some(&a), 0.0);
        store.add_loaded([&u("y")[..]], Some(&b), 500.0);
        store.add_loaded([&u("z")[..]], Some(&c), 600.0);
        assert_eq!(store.stats(700.0), StoreStats { thread_count: 3, oldest_access_ms: Some(0.0) });
        // Reading a thread with names is access; reading none creates nothing.
        assert_eq!(names(&store.loaded_names(Some(&a), None, 900.0)), ["x"]);
        assert!(store.loaded_names(Some(&u("nobody")), None, 900.0).is_empty());
        assert_eq!(store.thread_count(), 3);
        // now - last > ttl, literally: b (500) goes at 1501, c (600) stays.
        assert_eq!(store.cleanup_stale(1500.0), 0);
        assert_eq!(store.cleanup_stale(1501.0), 1);
        assert!(store.loaded_names(Some(&b), None, 1501.0).is_empty());
        store.clear_state(Some(&c));
        assert_eq!(store.stats(1501.0), StoreStats { thread_count: 1, oldest_access_ms: Some(900.0) });
        store.clear_all();
        assert_eq!(store.thread_count(), 0);
        // `None` clears the thread literally named 'default'.
        store.add_loaded([&u("x")[..]], Some(&u("default")), 0.0);
        store.clear_state(None);
        assert_eq!(store.thread_count(), 0);
        // ttl <= 0 keeps everything and schedules nothing.
        let mut kept = ContextStore::new(0.0);
        kept.add_loaded([&u("x")[..]], Some(&a), 0.0);
        assert_eq!((kept.cleanup_stale(1e15), kept.thread_count(), kept.sweep_interval_ms()), (0, 1, None));
    }
}
