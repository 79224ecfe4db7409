//! The catalog a step searches ([`StepCatalog`]) and how it is made: the
//! tools as the binding read them ([`ToolEntry`], and against the
//! processor's [`ToolPool`](crate::search::ToolPool) [`PoolStep`]), the merge of a record with a
//! step's resolved tools (`spread`), what the catalog's tables say a name
//! resolves to ([`StepCatalog::find`]), and the cell that lets a step's
//! catalog go and takes it back ([`CatalogCell`]).

use std::sync::Arc;

use parking_lot::Mutex;

use hashbrown::HashTable;

use crate::js::{array_index, JsString};
use crate::search::hash_units;
use crate::search::{Catalog, CatalogError, IdKey, ParamTable, PoolError, PoolSlot, Slot};

use super::hook::{Found, Lookup, ToolRef};

use crate::protocol::tool_search as protocol;
use protocol::is_meta_tool;
use protocol::meta_tools::{LOAD_TOOL, SEARCH_TOOLS};

/// What the catalog's tables say its `key` resolves to, as a name looked up
/// with a hook (id first), and the entry found.
pub(super) fn listed(catalog: &StepCatalog, key: &[u16]) -> (Found, Option<usize>) {
    let record = &*catalog.catalog;
    if let Some(entry) = record.find_by_id(key) {
        return (Found::ById(catalog.source(entry)), Some(entry));
    }
    match record.find_by_key(key) {
        Some(entry) => (Found::ByKey(catalog.source(entry)), Some(entry)),
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

/// One tool record entry as the binding read it: `key`, `tool.id` when it is
/// a string (`''` included: it is found by id, though indexed under the key),
/// and `tool.description || ''`.
pub struct ToolEntry<'a> {
    pub key: &'a [u16],
    pub id: Option<&'a [u16]>,
    pub description: &'a [u16],
}

/// One of a step's tools as kept in the processor's [`ToolPool`](crate::search::ToolPool): its slot
/// (`None`: a meta-tool's key that holds no tool), and its record key
/// (`None`: the tool's id).
#[derive(Clone, Copy, Debug)]
pub struct PooledTool<'a> {
    pub slot: Option<Slot>,
    pub key: Option<&'a [u16]>,
}

/// A tool to analyse into the processor's [`ToolPool`](crate::search::ToolPool): its slot when it
/// holds one (its analysis is replaced), else `None` (the pool gives it
/// one), `tool.id` when it is a string, and `tool.description || ''`.
#[derive(Clone, Copy, Debug)]
pub struct PoolTool<'a> {
    pub slot: Option<Slot>,
    pub id: Option<&'a [u16]>,
    pub description: &'a [u16],
}

/// A step's tools as the binding read them against the processor's
/// [`ToolPool`](crate::search::ToolPool) (see [`ToolSearch::pool_step_catalog`](super::ToolSearch::pool_step_catalog)).
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
pub(super) struct SpreadKey {
    pub(super) hash: u64,
    pub(super) array_index: Option<u32>,
    pub(super) meta: bool,
}

impl SpreadKey {
    pub(super) fn of(key: &[u16]) -> SpreadKey {
        SpreadKey { hash: hash_units(key), array_index: array_index(key), meta: is_meta_tool(key) }
    }

    /// A key that is a pooled tool's id, from what the pool keeps of it: its
    /// text (`text`) is read only if its hash is a meta-tool name's.
    pub(super) fn of_id<'k>(
        id: IdKey,
        text: impl FnOnce() -> Result<&'k [u16], PoolError>,
    ) -> Result<SpreadKey, PoolError> {
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
pub(super) fn spread<'a, E: From<CatalogError>>(
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
    pub(super) fn new(
        catalog: Arc<Catalog>,
        sources: Option<Vec<ToolRef>>,
        visible: Option<Vec<u32>>,
        live: bool,
    ) -> StepCatalog {
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
