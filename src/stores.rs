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
//! Sets keep insertion order because the processor returns loaded tools in
//! set order. Time is passed in as `now_ms` (the binding's `Date.now()`), so
//! JS fake timers drive the TTL exactly as they drive the reference.

pub mod facts;

use indexmap::{IndexMap, IndexSet};

use crate::js::JsString;

pub use facts::{activated_names_from_messages, ToolResultFacts};

/// An insertion-ordered set of tool names, like a JS `Set<string>`.
pub type NameSet = IndexSet<JsString>;

/// The reference's default TTL: one hour.
pub const DEFAULT_TTL_MS: f64 = 3_600_000.0;
/// The shortest sweep period, whatever the TTL.
pub const MIN_SWEEP_INTERVAL_MS: f64 = 60_000.0;

/// The thread of requests without one, and the one `clearState()` clears.
pub const DEFAULT_THREAD: &str = "default";

fn default_thread() -> JsString {
    JsString::from(DEFAULT_THREAD)
}

/// A JS thread id is "present" when it is a non-empty string (`threadId || ...`).
fn real_thread(thread: Option<&[u16]>) -> Option<&[u16]> {
    thread.filter(|t| !t.is_empty())
}

struct ThreadState {
    tools: NameSet,
    last_accessed_ms: f64,
}

/// Counters for monitoring, as `getStateStats()` reports them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoreStats {
    pub thread_count: usize,
    /// The least recent access time, or `None` (JS `null`) with no threads.
    pub oldest_access_ms: Option<f64>,
}

/// The in-memory store: thread id -> loaded names, expiring after `ttl_ms`
/// of inactivity.
pub struct InMemoryStore {
    ttl_ms: f64,
    threads: IndexMap<JsString, ThreadState>,
}

impl InMemoryStore {
    /// `ttl_ms` is the option as given (`options.ttl ?? 3600000`); NaN and
    /// infinities are kept and compared exactly as JS would.
    pub fn new(ttl_ms: f64) -> InMemoryStore {
        InMemoryStore { ttl_ms, threads: IndexMap::new() }
    }

    pub fn ttl_ms(&self) -> f64 {
        self.ttl_ms
    }

    /// How often to call [`cleanup_stale`](Self::cleanup_stale):
    /// `max(ttl / 2, 60000)` when `ttl > 0`, else never. An infinite TTL gives
    /// an infinite period; Node's `setInterval` would turn that into 1 ms.
    pub fn sweep_interval_ms(&self) -> Option<f64> {
        // JS `Math.max` would give NaN for a NaN ttl, but `NaN > 0` is false.
        (self.ttl_ms > 0.0).then(|| (self.ttl_ms / 2.0).max(MIN_SWEEP_INTERVAL_MS))
    }

    /// Fetches (creating if needed) a thread's state and marks it accessed.
    fn touch(&mut self, thread: Option<&[u16]>, now_ms: f64) -> &mut ThreadState {
        let key = real_thread(thread).map_or_else(default_thread, JsString::from);
        let state =
            self.threads.entry(key).or_insert_with(|| ThreadState { tools: NameSet::new(), last_accessed_ms: now_ms });
        state.last_accessed_ms = now_ms;
        state
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
        let state = self.touch(thread, now_ms);
        for name in names {
            if !state.tools.contains(name) {
                state.tools.insert(JsString::from(name));
            }
        }
    }

    /// Forgets one thread. `None` means `'default'`; any other id, `''`
    /// included, is taken literally, as `clearState(threadId = 'default')`.
    pub fn clear_state(&mut self, thread: Option<&[u16]>) {
        match thread {
            Some(id) => self.threads.shift_remove(id),
            None => self.threads.shift_remove(&default_thread()),
        };
    }

    /// Forgets every thread.
    pub fn clear_all(&mut self) {
        self.threads.clear();
    }

    /// Drops threads idle for more than the TTL; returns how many. Does
    /// nothing when `ttl <= 0`.
    pub fn cleanup_stale(&mut self, now_ms: f64) -> usize {
        if self.ttl_ms <= 0.0 {
            return 0;
        }
        let ttl = self.ttl_ms;
        let before = self.threads.len();
        // Literally `now - lastAccessed > ttl`: with a NaN on either side
        // nothing is stale, which `<=` would get backwards.
        let is_stale = |state: &ThreadState| now_ms - state.last_accessed_ms > ttl;
        self.threads.retain(|_, state| !is_stale(state));
        before - self.threads.len()
    }

    /// Thread count and the oldest access time (never later than `now_ms`,
    /// where the reference starts its minimum).
    pub fn stats(&self, now_ms: f64) -> StoreStats {
        if self.threads.is_empty() {
            return StoreStats { thread_count: 0, oldest_access_ms: None };
        }
        let mut oldest = now_ms;
        for state in self.threads.values() {
            if state.last_accessed_ms < oldest {
                oldest = state.last_accessed_ms;
            }
        }
        StoreStats { thread_count: self.threads.len(), oldest_access_ms: Some(oldest) }
    }

    /// Number of threads with state.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }
}

impl Default for InMemoryStore {
    fn default() -> InMemoryStore {
        InMemoryStore::new(DEFAULT_TTL_MS)
    }
}

/// The context store's same-process memory: names activated on a real thread
/// that the messages may not show yet.
#[derive(Default)]
pub struct ContextStore {
    supplemental: IndexMap<JsString, NameSet>,
}

impl ContextStore {
    pub fn new() -> ContextStore {
        ContextStore::default()
    }

    /// The loaded names for a step.
    ///
    /// `from_messages` is [`activated_names_from_messages`] over the step's
    /// messages, or `None` when there are no step args (the resume path).
    /// Without a thread the answer is just the messages' names. With one,
    /// supplemental names the messages now show are handed over to the
    /// messages (pruned, so they de-load with them), empty entries are
    /// dropped, and the answer is the messages' names followed by the
    /// remaining supplemental ones.
    pub fn loaded_names(&mut self, thread: Option<&[u16]>, from_messages: Option<NameSet>) -> NameSet {
        let messages_available = from_messages.is_some();
        let mut loaded = from_messages.unwrap_or_default();
        let Some(thread) = real_thread(thread) else {
            return loaded;
        };
        let Some(supplemental) = self.supplemental.get_mut(thread) else {
            return loaded;
        };
        if supplemental.is_empty() {
            self.supplemental.swap_remove(thread);
            return loaded;
        }
        if messages_available {
            supplemental.retain(|name| !loaded.contains(name));
            if supplemental.is_empty() {
                self.supplemental.swap_remove(thread);
                return loaded;
            }
        }
        for name in supplemental.iter() {
            if !loaded.contains(name) {
                loaded.insert(name.clone());
            }
        }
        loaded
    }

    /// Remembers names activated on a real thread. Without names or without a
    /// thread (anonymous requests must not share state) this does nothing.
    pub fn add_loaded<'n>(&mut self, names: impl IntoIterator<Item = &'n [u16]>, thread: Option<&[u16]>) {
        let mut names = names.into_iter().peekable();
        let Some(thread) = real_thread(thread) else {
            return;
        };
        if names.peek().is_none() {
            return;
        }
        let set = self.supplemental.entry(JsString::from(thread)).or_default();
        for name in names {
            if !set.contains(name) {
                set.insert(JsString::from(name));
            }
        }
    }

    /// Number of threads with supplemental names.
    pub fn thread_count(&self) -> usize {
        self.supplemental.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut store = InMemoryStore::new(DEFAULT_TTL_MS);
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
        let mut store = InMemoryStore::new(DEFAULT_TTL_MS);
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
        // Infinity: never stale; period max(Infinity / 2, 60000).
        let mut store = InMemoryStore::new(f64::INFINITY);
        add(&mut store, &["a"], None, 0.0);
        assert_eq!(store.cleanup_stale(1e300), 0);
        assert_eq!(store.sweep_interval_ms(), Some(f64::INFINITY));
        // Periods: max(ttl / 2, 60000).
        assert_eq!(InMemoryStore::new(DEFAULT_TTL_MS).sweep_interval_ms(), Some(1_800_000.0));
        assert_eq!(InMemoryStore::new(1000.0).sweep_interval_ms(), Some(60_000.0));
        assert_eq!(InMemoryStore::new(150_000.0).sweep_interval_ms(), Some(75_000.0));
    }

    #[test]
    fn in_memory_stats() {
        let mut store = InMemoryStore::new(DEFAULT_TTL_MS);
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
        let mut store = ContextStore::new();
        store.add_loaded([&u("x")[..]], None);
        store.add_loaded([&u("x")[..]], Some(&u("")));
        assert_eq!(store.thread_count(), 0);
        assert_eq!(names(&store.loaded_names(None, Some(set(&["m"])))), ["m"]);
        assert!(store.loaded_names(None, None).is_empty());
    }

    #[test]
    fn context_store_merges_and_prunes() {
        let t = u("t1");
        let mut store = ContextStore::new();
        store.add_loaded([&u("b")[..], &u("a")[..], &u("c")[..]], Some(&t));
        // Resume path (no messages): supplemental only, nothing pruned.
        assert_eq!(names(&store.loaded_names(Some(&t), None)), ["b", "a", "c"]);
        // Messages now show 'a': it becomes message-owned and leaves the set.
        assert_eq!(names(&store.loaded_names(Some(&t), Some(set(&["m", "a"])))), ["m", "a", "b", "c"]);
        // Once 'a' leaves the messages it is no longer loaded.
        assert_eq!(names(&store.loaded_names(Some(&t), Some(set(&["m"])))), ["m", "b", "c"]);
        // Everything message-owned: the entry is dropped.
        assert_eq!(names(&store.loaded_names(Some(&t), Some(set(&["c", "b"])))), ["c", "b"]);
        assert_eq!(store.thread_count(), 0);
        assert!(store.loaded_names(Some(&t), Some(NameSet::new())).is_empty());
        // Adding nothing creates nothing.
        store.add_loaded(std::iter::empty(), Some(&t));
        assert_eq!(store.thread_count(), 0);
    }
}
