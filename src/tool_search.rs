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
//! reads at every use: a tool added to it, swapped in or deleted after
//! construction is found (or not) as it is now, while the BM25 index and the
//! descriptions stay as they were at construction, in the reference too. The
//! catalog's tables say what the record held then; over such a *live*
//! catalog (see [`StepCatalog::live`]) each resolution is put to the host as
//! an [`Ask::Resolve`]: it answers with the tool the record gives now (the
//! one found, when it still stands), and whether the hook allows it. A host
//! without a hook may instead trust the tables ([`VerifyAfter`]) and have
//! the binding check the record afterwards, running the operation again with
//! questions should anything differ. The injected catalog lists a
//! [`LiveRecord`]: the record's keys and ids as they are now. `load_tool`'s
//! suggestions read only its keys ([`LiveKeys`]), as the reference's
//! `Object.keys`, and look up each key that matches as `load_tool` looks up
//! a name: a tool's `id` is read only where the reference reads it.
//!
//! What JavaScript hands over is read here too: the options
//! ([`options::Options::from_given`]), the request's thread and the
//! meta-tools' inputs ([`request`]), and what it found in a tools record and
//! could not use ([`refusal::refuse_record_value`]). The codes, layouts and
//! names both sides share are the [`protocol`](crate::protocol::tool_search)'s.

pub mod ahead;
pub mod messages;
pub mod operation;
pub mod options;
pub mod refusal;
pub mod request;

use std::cell::RefCell;
use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;

use hashbrown::HashTable;

use crate::js::{array_index, JsString};
use crate::search::hash_units;
use crate::search::suggestion_matcher;
use crate::search::{
    embedding::ToolVectors, Catalog, CatalogError, EntrySpans, HybridConfig, IdKey, ParamTable, Pattern, PoolEntry,
    PoolError, PoolSlot, Ranking, SearchHit, SearchWalk, Slot, ToolPool, VectorSource,
};
use crate::stores::history::ContinueError;
use crate::stores::{activated_names_from_messages, ContextStore, InMemoryStore, NameSet, StoreStats, ToolResultFacts};

pub use options::{Options, Storage, Syntax};

use ahead::{Ahead, Decision};

use crate::protocol::tool_search as protocol;
use protocol::is_meta_tool;
use protocol::meta_tools::{LOAD_TOOL, SEARCH_TOOLS};

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
        protocol::PHASES[self as usize]
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

/// A tool as the host knows it: `i` for the entry `i` of the catalog's
/// record (the constructor's tools, or a step's merged record of them and
/// its resolved tools), and beyond those whatever tools the host adds, such
/// as the tools of a [`LiveRecord`] or a tool the caller put in the record
/// since. Never negative.
pub type ToolRef = i32;

/// How a name is looked up in a tools record, as the reference looks it up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// `findToolForDynamicName` without a hook: `tools[name] ?? findToolById(name)`.
    KeyFirst,
    /// `findToolForDynamicName` with a hook: `findToolById(name) ?? tools[name]`.
    IdFirst,
    /// `findToolById(name)`: the first tool, in key order, whose `id` is `name`.
    IdOnly,
}

impl Lookup {
    pub const ALL: [Lookup; 3] = [Lookup::KeyFirst, Lookup::IdFirst, Lookup::IdOnly];
}

/// What a catalog's tables say a name resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The tool under the record key that is the name.
    ByKey(ToolRef),
    /// The first tool whose `id` is the name.
    ById(ToolRef),
    /// No tool has the name as its `id` (so looked up by id, nothing), but
    /// this one is indexed under it, its key, for lack of an id: the tool
    /// now under that key may have taken it since.
    Unnamed(ToolRef),
    /// Nothing: the name, for a host that looks again.
    Missing(JsString),
}

impl Found {
    /// The tool the tables point at, if any.
    pub fn tool(&self) -> Option<ToolRef> {
        match *self {
            Found::ByKey(tool) | Found::ById(tool) | Found::Unnamed(tool) => Some(tool),
            Found::Missing(_) => None,
        }
    }

    /// The tool the tables resolve the name to, if any.
    pub fn resolved(&self) -> Option<ToolRef> {
        match *self {
            Found::ByKey(tool) | Found::ById(tool) => Some(tool),
            Found::Unnamed(_) | Found::Missing(_) => None,
        }
    }
}

/// A question for the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Whether the hook allows this tool. Asked only when there is a hook.
    Tool(ToolRef),
    /// Which tool the step's record gives for a name now (the caller's
    /// record when `live`, else the step's copy, whose tools' ids are read
    /// now), where the catalog's tables say `found`, and whether the hook
    /// (if any) allows it. A record that gives no tool does not allow: the
    /// reference skips a tool it does not find exactly as one the hook
    /// denies.
    Resolve { lookup: Lookup, found: Found, live: bool },
}

/// The host's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub verdict: Verdict,
    /// For [`Ask::Resolve`], the tool the record gives when it is not the one
    /// the tables found (or they found none).
    pub tool: Option<ToolRef>,
}

impl Answer {
    pub const ALLOWED: Answer = Answer { verdict: Verdict::Allowed, tool: None };
    pub const DENIED: Answer = Answer { verdict: Verdict::Denied, tool: None };

    pub fn verdict(verdict: Verdict) -> Answer {
        Answer { verdict, tool: None }
    }
}

/// The host: the request-aware filter hook, and the caller's tools record.
pub trait ToolFilter {
    /// Answers `ask`, in `phase`.
    fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer>;

    /// The caller's tools record's keys as they are now (nothing else of
    /// it read), for the suggestions; `None` to go by the catalog's tables.
    fn live_keys(&self) -> impl Future<Output = Option<LiveKeys>> {
        std::future::ready(None)
    }

    /// Whether the operation awaits as the reference does (see
    /// [`operation`]): it then asks about every tool it finds, hook or not.
    fn awaits(&self) -> bool {
        false
    }

    /// The name of the tool the last [`Ask::Resolve`] of a listing was
    /// answered with, when it is not what the tables say: `Some(None)` for
    /// no id (listed by its key), `Some(Some(id))`. Read after the hook
    /// answered, as the reference reads `tool.id || key` for the line.
    fn take_name(&self) -> Option<Option<JsString>> {
        None
    }

    /// Where the reference awaits a value that is no promise: the host
    /// awaits once, when the operation [`awaits`](Self::awaits).
    fn tick(&self) -> impl Future<Output = ()> {
        std::future::ready(())
    }

    /// How many questions may be out at once (see [`ahead`]): 1, one at a
    /// time in order, unless the host says otherwise.
    fn concurrency(&self) -> usize {
        1
    }
}

/// No hook, and the catalog's tables are the record: everything they find
/// is allowed, immediately.
pub struct NoFilter;

impl ToolFilter for NoFilter {
    fn check(&self, ask: Ask, _phase: Phase) -> impl Future<Output = Answer> {
        std::future::ready(trusted(&ask))
    }
}

/// What trusting the tables answers.
fn trusted(ask: &Ask) -> Answer {
    match ask {
        Ask::Tool(_) => Answer::ALLOWED,
        Ask::Resolve { found, .. } if found.resolved().is_some() => Answer::ALLOWED,
        Ask::Resolve { .. } => Answer::DENIED,
    }
}

/// No hook: the catalog's tables are trusted as by [`NoFilter`], and each
/// resolution is written down for the binding to check against the caller's
/// record afterwards (it runs the operation again with questions if any
/// resolution no longer holds, which is safe as long as the operation
/// changed nothing: see [`ToolSearch::asks_as_it_goes`]).
#[derive(Default)]
pub struct VerifyAfter {
    resolutions: RefCell<Vec<Ask>>,
}

impl VerifyAfter {
    /// The resolutions made (each an [`Ask::Resolve`]), in order.
    pub fn into_resolutions(self) -> Vec<Ask> {
        self.resolutions.into_inner()
    }
}

impl ToolFilter for VerifyAfter {
    fn check(&self, ask: Ask, _phase: Phase) -> impl Future<Output = Answer> {
        let answer = trusted(&ask);
        if let Ask::Resolve { .. } = ask {
            self.resolutions.borrow_mut().push(ask);
        }
        std::future::ready(answer)
    }
}

/// The caller's tools record as read at one moment: its keys and ids (no
/// descriptions: those of the catalog's index stand, as in the reference),
/// its entry `i` being the host's tool `base + i`.
pub struct LiveRecord {
    pub catalog: Catalog,
    pub base: ToolRef,
}

impl LiveRecord {
    pub fn new(text: Vec<u16>, entries: Vec<EntrySpans>, base: ToolRef) -> Result<LiveRecord, CatalogError> {
        ToolRef::try_from(entries.len()).ok().and_then(|len| base.checked_add(len)).ok_or(CatalogError::TooLarge)?;
        Ok(LiveRecord { catalog: Catalog::unindexed(text, entries)?, base })
    }

    fn tool(&self, entry: usize) -> ToolRef {
        // `new` checked that every entry's tool fits.
        self.base + entry as ToolRef
    }
}

/// The caller's tools record's own enumerable keys, in `Object.keys` order,
/// as read at one moment: only the keys, as the reference's suggestions read
/// them before looking any one up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveKeys(pub Vec<JsString>);

impl LiveKeys {
    /// The keys end to end in `text`, each `lengths[i]` units long; `None`
    /// when the lengths do not add up to the text.
    pub fn from_lengths(text: &[u16], lengths: &[i32]) -> Option<LiveKeys> {
        let mut keys = Vec::with_capacity(lengths.len());
        let mut at = 0usize;
        for &length in lengths {
            let end = at.checked_add(usize::try_from(length).ok()?)?;
            keys.push(JsString::from(text.get(at..end)?));
            at = end;
        }
        (at == text.len()).then_some(LiveKeys(keys))
    }
}

/// What the tables of a listed record (the caller's, `live`, else the
/// catalog's own) say its `key` resolves to, as a name looked up with a hook
/// (id first), and the entry found.
fn listed(catalog: &StepCatalog, live: Option<&LiveRecord>, key: &[u16]) -> (Found, Option<usize>) {
    let record = live.map_or(&*catalog.catalog, |live| &live.catalog);
    let tool = |entry| live.map_or_else(|| catalog.source(entry), |live| live.tool(entry));
    if let Some(entry) = record.find_by_id(key) {
        return (Found::ById(tool(entry)), Some(entry));
    }
    match record.find_by_key(key) {
        Some(entry) => (Found::ByKey(tool(entry)), Some(entry)),
        None => (Found::Missing(JsString::from(key)), None),
    }
}

/// What `catalog`'s tables say `name` resolves to, its entries' tools
/// numbered by `tool`.
fn find_in(catalog: &Catalog, name: &[u16], lookup: Lookup, tool: impl Fn(usize) -> ToolRef) -> Found {
    let by_key = || catalog.find_by_key(name).map(|entry| Found::ByKey(tool(entry)));
    let by_id = || catalog.find_by_id(name).map(|entry| Found::ById(tool(entry)));
    let found = match lookup {
        Lookup::KeyFirst => by_key().or_else(by_id),
        Lookup::IdFirst => by_id().or_else(by_key),
        Lookup::IdOnly => by_id(),
    };
    found.unwrap_or_else(|| Found::Missing(JsString::from(name)))
}

enum Store {
    InMemory(InMemoryStore),
    Context(ContextStore),
}

/// One tool record entry as the binding read it: `key`, `tool.id` when it is
/// a string (`''` included: it is found by id, though indexed under the key),
/// and `tool.description || ''`.
pub struct ToolEntry<'a> {
    pub key: &'a [u16],
    pub id: Option<&'a [u16]>,
    pub description: &'a [u16],
}

/// One of a step's tools as kept in the processor's [`ToolPool`]: its slot
/// (`None`: a meta-tool's key that holds no tool), and its record key
/// (`None`: the tool's id).
#[derive(Clone, Copy, Debug)]
pub struct PooledTool<'a> {
    pub slot: Option<Slot>,
    pub key: Option<&'a [u16]>,
}

/// A tool to analyse into the processor's [`ToolPool`]: its slot when it
/// holds one (its analysis is replaced), else `None` (the pool gives it
/// one), `tool.id` when it is a string, and `tool.description || ''`.
#[derive(Clone, Copy, Debug)]
pub struct PoolTool<'a> {
    pub slot: Option<Slot>,
    pub id: Option<&'a [u16]>,
    pub description: &'a [u16],
}

/// A step's tools as the binding read them against the processor's
/// [`ToolPool`] (see [`ToolSearch::pool_step_catalog`]).
pub struct PoolStep<'a> {
    /// The tools to analyse first: new to the pool, or changed since.
    pub added: &'a [PoolTool<'a>],
    /// Their parameters (one list per added tool), for a ranking that reads them.
    pub parameters: Option<&'a ParamTable>,
    /// The slots of tools collected since the last step.
    pub released: &'a [i32],
    /// The record's tools, then the step's: where each is, and its key
    /// (`None`: the tool's id).
    pub rows: &'a [(PoolSlot, Option<&'a [u16]>)],
    /// How many of `rows` are the record's.
    pub record_count: usize,
}

/// What a step changed in the pool, for the binding to follow: the slots
/// its new tools were given, in order, and the slots of tools it let go of
/// (see [`retention`](protocol::retention)).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PoolChanges {
    pub added: Vec<Slot>,
    pub forgotten: Vec<Slot>,
}

/// A key as [`spread`] merges it: its hash (`hash_units`), its value as an
/// array index, and whether it is a meta-tool's name.
#[derive(Clone, Copy)]
struct SpreadKey {
    hash: u64,
    array_index: Option<u32>,
    meta: bool,
}

impl SpreadKey {
    fn of(key: &[u16]) -> SpreadKey {
        SpreadKey { hash: hash_units(key), array_index: array_index(key), meta: is_meta_tool(key) }
    }

    /// A key that is a pooled tool's id, from what the pool keeps of it: its
    /// text (`text`) is read only if its hash is a meta-tool name's.
    fn of_id<'k>(id: IdKey, text: impl FnOnce() -> Result<&'k [u16], PoolError>) -> Result<SpreadKey, PoolError> {
        let [search, load] =
            *META_TOOL_HASHES.get_or_init(|| [SEARCH_TOOLS, LOAD_TOOL].map(|name| hash_units(&utf16(name))));
        let meta = (id.hash == search || id.hash == load) && is_meta_tool(text()?);
        Ok(SpreadKey { hash: id.hash, array_index: id.array_index, meta })
    }
}

/// `hash_units` of the meta-tools' names.
static META_TOOL_HASHES: std::sync::OnceLock<[u64; 2]> = std::sync::OnceLock::new();

fn utf16(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// `{ ...staticTools, ...resolved }`, `staticTools` being the record as it
/// is now (the step's tools that are meta-tools left out): the merged tools
/// (record tool `i` is tool `i`, resolved tool `i` is tool `record.len() +
/// i`), in key order. A resolved key replaces a record key in place, new
/// keys are appended, and array-index keys come first in ascending order, as
/// in any JavaScript object. The keys of each list are distinct, as an
/// object's are (a key repeated within a list is kept twice, and the catalog
/// takes the later). The resolved keys come as [`SpreadKey`]s, their text
/// (`resolved_text`) read only to tell one from a record key of the same hash.
fn spread<'a, E: From<CatalogError>>(
    record: &[&'a [u16]],
    resolved: &[SpreadKey],
    resolved_text: impl Fn(usize) -> Result<&'a [u16], E>,
) -> Result<Vec<ToolRef>, E> {
    let tool_ref = |i: usize| ToolRef::try_from(i).map_err(|_| E::from(CatalogError::TooLarge));
    // Only the record's keys are looked up (a record is small, a step's
    // tools may be many): each resolved key's hash is looked up once.
    let mut record_keys: HashTable<u32> = HashTable::with_capacity(record.len());
    let mut order: Vec<(Option<u32>, ToolRef)> = Vec::with_capacity(record.len() + resolved.len());
    let mut record_texts: Vec<&[u16]> = Vec::with_capacity(record.len());
    for (i, &key) in record.iter().enumerate() {
        let hash = hash_units(key);
        match record_keys.find(hash, |&at| record_texts[at as usize] == key) {
            Some(&at) => order[at as usize].1 = tool_ref(i)?,
            None => {
                record_keys.insert_unique(hash, order.len() as u32, |&at| hash_units(record_texts[at as usize]));
                order.push((array_index(key), tool_ref(i)?));
                record_texts.push(key);
            }
        }
    }
    for (i, key) in resolved.iter().enumerate() {
        if key.meta {
            continue;
        }
        let tool = tool_ref(record.len() + i)?;
        let mut failed = None;
        let found = record_keys.find(key.hash, |&at| match resolved_text(i) {
            Ok(text) => record_texts[at as usize] == text,
            Err(error) => {
                failed = Some(error);
                false
            }
        });
        if let Some(error) = failed {
            return Err(error);
        }
        match found {
            Some(&at) => order[at as usize].1 = tool,
            None => order.push((key.array_index, tool)),
        }
    }
    if order.iter().any(|(index, _)| index.is_some()) {
        // Stable: keys that are no array index keep their insertion order.
        order.sort_by_key(|&(index, _)| index.map_or((1, 0), |index| (0, index)));
    }
    Ok(order.into_iter().map(|(_, tool)| tool).collect())
}

/// The catalog a step searches, and where its entries' tools live.
pub struct StepCatalog {
    pub catalog: Arc<Catalog>,
    /// For each catalog entry, its tool; `None` for the static catalog, whose
    /// entry `i` is the constructor's tool `i`.
    pub sources: Option<Vec<ToolRef>>,
    /// The step's own tools that stay in the prompt, as indexes into the
    /// resolved tools; `None` means all of them.
    pub visible: Option<Vec<u32>>,
    /// Whether names resolve in the caller's record as it is when they are
    /// looked up (the constructor's record, which the reference keeps), so
    /// that the tables are only what it held at construction. A step's merged
    /// record is a copy made for the step, which its tables describe exactly.
    pub live: bool,
}

impl StepCatalog {
    fn new(catalog: Arc<Catalog>, sources: Option<Vec<ToolRef>>, visible: Option<Vec<u32>>, live: bool) -> StepCatalog {
        StepCatalog { catalog, sources, visible, live }
    }

    pub fn source(&self, entry: usize) -> ToolRef {
        match &self.sources {
            Some(sources) => sources[entry],
            None => entry as ToolRef,
        }
    }

    /// What the tables say `name` resolves to.
    pub fn find(&self, name: &[u16], lookup: Lookup) -> Found {
        find_in(&self.catalog, name, lookup, |entry| self.source(entry))
    }
}

/// A step catalog that its holder may let go of ahead of the steps that
/// search it, and make again from the same tools: the binding's objects are
/// freed only once the event loop turns, which a caller that makes steps in
/// a loop may not let it do.
pub struct CatalogCell(Mutex<Option<Arc<StepCatalog>>>);

impl CatalogCell {
    pub fn new(catalog: Arc<StepCatalog>) -> CatalogCell {
        CatalogCell(Mutex::new(Some(catalog)))
    }

    /// The catalog, unless it was let go of.
    pub fn get(&self) -> Option<Arc<StepCatalog>> {
        self.0.lock().clone()
    }

    /// Lets go of the catalog; a call under way keeps its own.
    pub fn let_go(&self) {
        self.0.lock().take();
    }

    /// The catalog again, made from the same tools.
    pub fn restore(&self, catalog: StepCatalog) {
        *self.0.lock() = Some(Arc::new(catalog));
    }
}

/// The processor's state: its options, the static catalog and the store.
pub struct ToolSearch {
    options: Options,
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
    pub fn options(&self) -> &Options {
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
        // name no entry carries as its id goes to the host too, as the tool
        // now under its key may have taken it (see `next_to_resolve`).
        let mut ahead = Ahead::new(filter.concurrency());
        loop {
            let next = ahead
                .next(|| {
                    let pending = walk.next_ahead_to_resolve(catalog)?;
                    let tool = step.catalog.source(pending.entry);
                    let found = if pending.by_id { Found::ById(tool) } else { Found::Unnamed(tool) };
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
    /// Each record key, in `Object.keys` order, resolves to a tool as
    /// `load_tool` resolves a name (key first; id first with a filter hook),
    /// which the hook may hide (phase `'search'`). A line shows the tool's
    /// `id || key` and the description indexed under that name, truncated as
    /// in search results. The keys are those of the caller's record as it
    /// is now (`live`), when it is no longer the one the catalog was made
    /// from (its descriptions still come from the catalog's index, as the
    /// reference's do); else the catalog's own. With a hook, which may change
    /// the record while it is asked, each key is looked up when it is
    /// listed, and its line named after the hook answered (see
    /// [`ToolFilter::take_name`]), as the reference does. Without one, and
    /// without `live`, the message depends on the catalog alone, so a caller
    /// may keep it for as long as it keeps the catalog.
    pub async fn catalog_message(
        &self,
        catalog: &StepCatalog,
        live: Option<&LiveRecord>,
        filter: &impl ToolFilter,
    ) -> Option<JsString> {
        if !self.options.inject_catalog {
            return None;
        }
        let index = &catalog.catalog;
        let record = live.map_or(&**index, |live| &live.catalog);
        let has_filter = self.has_filter();
        let mut lines = Vec::new();
        // Where the reference lists the keys of a record other than the
        // catalog's tables (see `operation::reads`).
        let listing_live = live.is_some() || catalog.live;
        let mut ahead = Ahead::new(filter.concurrency());
        let mut entries = 0..record.entry_count();
        loop {
            let next = ahead
                .next(|| loop {
                    let entry = entries.next()?;
                    let key = record.key(entry);
                    if !has_filter {
                        let Some(tool) = record.find_for_dynamic_name(key, false) else { continue };
                        let id = record.id(tool).map(JsString::from);
                        return Some((key, Decision::Now(Some(id))));
                    }
                    let (found, entry) = listed(catalog, live, key);
                    let tables = entry.and_then(|entry| record.id(entry)).map(JsString::from);
                    let admission = self.admission(filter, listing_live, found, Lookup::IdFirst, Phase::Search);
                    let decision = match admission {
                        Decision::Now(tool) => Decision::Now(tool.map(|_| tables)),
                        Decision::Asking(asking) => Decision::Asking(async move {
                            let allowed = asking.await.is_some();
                            // `tool.id || key`, read after the hook answered
                            // (in the same poll, so before any other answer
                            // is taken): the id the tables hold for the tool
                            // found, unless the host says other.
                            let id = match filter.take_name() {
                                Some(id) => id,
                                None => tables,
                            };
                            allowed.then_some(id)
                        }),
                    };
                    return Some((key, decision));
                })
                .await;
            let Some((key, listed_as)) = next else { break };
            let Some(id) = listed_as else { continue };
            let name = id.filter(|id| !id.is_empty()).unwrap_or_else(|| JsString::from(key));
            // The description is the one indexed under that name, which a
            // later tool of the same name may have replaced.
            let description =
                index.find_doc(name.units()).map_or(&[][..], |doc| index.description(index.doc_entry(doc)));
            messages::push_catalog_line(&mut lines, name.units(), description);
        }
        (!lines.is_empty()).then(|| messages::catalog(self.options.auto_load, self.options.syntax, &lines))
    }

    /// Keys that look like a name that was not found (of the caller's record
    /// as it is now, when the catalog is live and the host gives its keys).
    /// Without a hook, every match (the message shows three), and nothing
    /// but the keys is read; with one, the first three allowed, each key
    /// looked up when it is asked about as `load_tool` looks up a name (id
    /// first), as the reference does (the hook may change the record): a
    /// tool is read only for a key that matches, up to the third allowed.
    /// Awaited at its end, as the reference's, when the host
    /// [`awaits`](ToolFilter::awaits).
    async fn suggestions(&self, step: &Step, tool_name: &[u16], filter: &impl ToolFilter) -> Vec<JsString> {
        let live = if step.catalog.live { filter.live_keys().await } else { None };
        let mut matches = suggestion_matcher(tool_name);
        let candidates: Vec<JsString> = match live {
            Some(LiveKeys(keys)) => keys.into_iter().filter(|key| matches(key.units())).collect(),
            None => {
                let record = &step.catalog.catalog;
                (0..record.entry_count())
                    .map(|entry| record.key(entry))
                    .filter(|key| matches(key))
                    .map(JsString::from)
                    .collect()
            }
        };
        let mut allowed = Vec::new();
        if !self.has_filter() {
            allowed = candidates;
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
    /// in `phase`: decided at once, or by asking the host. Where the tables
    /// may not be the answer (see [`operation::reads`]) the host resolves
    /// the name as it is looked up now (in the caller's record when `live`,
    /// else in the step's copy); else the hook alone is asked, if there is
    /// one or the host awaits as the reference does.
    fn admission<'f>(
        &self,
        filter: &'f impl ToolFilter,
        live: bool,
        found: Found,
        lookup: Lookup,
        phase: Phase,
    ) -> Decision<Option<ToolRef>, impl Future<Output = Option<ToolRef>> + 'f> {
        let (ask, fallback, resolves) = if !operation::reads(lookup, &found, live).is_empty() {
            let tables = found.tool();
            (Ask::Resolve { lookup, found, live }, tables, true)
        } else {
            match found.resolved() {
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
mod concurrency_tests;
#[cfg(test)]
mod tests;
