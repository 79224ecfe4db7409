//! Tools analysed once and searched in many catalogs.
//!
//! A server that resolves tools per request hands each step a different
//! selection drawn from the same tools. Rather than reading and tokenizing
//! every tool again for each selection, each tool the binding has read is
//! analysed once into a numbered *slot* of a [`ToolPool`]: its id and
//! description, its parameters for a ranking that reads them, and for the
//! reference's ranking its name's and description's tokens, as numbers in
//! the pool's vocabulary.
//! A selection is then a list of slots (and keys), and its catalog is made
//! from what the slots keep ([`ToolPool::catalog`]): the text is shared
//! with the catalog, not copied (a tool analysed again gets new text; a
//! catalog made before keeps the old), and
//! the BM25 index is laid out from the kept token numbers without
//! tokenizing, lowercasing or hashing any text but the few keys that serve as
//! names. Document frequencies, the average length and replaced names depend
//! on the selection, so each selection still has an index of its own; it is
//! the same index, bit for bit, as one built from the text.
//!
//! The 'fielded' ranking keeps the texts and parameters only: its analysis
//! (stems, prefixes, identifier pieces) is made again for each selection,
//! from text already in Rust. A pool [`keeping_parameters`](ToolPool::keeping_parameters)
//! (for a `search_tools` pattern, matched against them) keeps them whatever
//! its ranking, beside the reference's analysis.
//!
//! The pool numbers the slots: a tool new to it goes into an emptied slot,
//! else the next ([`ToolPool::add`], the only way a slot is filled); a tool
//! that changed is analysed again into its own ([`ToolPool::analyse`]); a
//! slot is emptied once its tool is gone ([`ToolPool::release`]), so the
//! pool holds only tools still alive, in no more slots than were ever alive
//! at once. It also notes which selections read which slots, so that tools
//! no recent selection read can be let go of ([`ToolPool::sweep`]) when the
//! binding cannot learn soon enough that they are gone (when it sweeps is
//! the protocol's `retention`, applied by `ToolSearch::pool_step_catalog`).
//! Its vocabulary keeps the terms of tools since released until it has
//! grown well past what its tools use, then is rebuilt from them
//! ([`ToolPool::compact`]): memory stays proportional to the tools in the
//! pool, and each rebuild is paid for by the new terms that grew it.
//!
//! The division with the binding: Rust cannot hold JavaScript's tool
//! objects, so the binding keeps which tool object holds which slot (a
//! `WeakMap` by tool, an array by slot) and learns when one is collected (a
//! `FinalizationRegistry`); it hands back only slots the pool gave, those of
//! tools collected, to release, and those of tools that changed, to analyse
//! again. Everything else about slots is decided here, in the step's one
//! call: which slot each new tool takes, and which tools are let go of; the
//! binding applies the answer to its map, and changes nothing before it.
//!
//! In its children: a tool as kept (`tool`), a slot's life (`slots`),
//! the vocabulary (`vocabulary`), a selection's catalog (`layout`) and
//! the cache hints laying one out (`prefetch`).

mod layout;
mod prefetch;
mod slots;
mod tool;
mod vocabulary;

use std::fmt;

use crate::js::array_index;

use super::bm25::TermDict;
use super::catalog::{CatalogError, Ranking};
use super::hash::hash_units;
use tool::{pool_tool, PoolTool};
use vocabulary::{Numbering, COMPACT_SPARE_TERMS};

/// A tool's number in a [`ToolPool`].
pub type Slot = u32;

/// One tool of a selection: its slot, and its record key, or `None` when the
/// key is the tool's id (most tools are keyed by their id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolEntry<'a> {
    pub slot: Slot,
    pub key: Option<&'a [u16]>,
}

/// Where the binding found one of a selection's tools in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolSlot {
    /// In this slot, analysed before (and maybe again in this step).
    Held(Slot),
    /// New to the pool, analysed in this step: in the slot the next of the
    /// step's new tools is given.
    New,
    /// A meta-tool's key among the step's tools, which holds no tool.
    NoTool,
}

/// What a selection needs of a tool's id to merge it as a key (see
/// [`ToolPool::id_key`]): kept beside the tools, a few bytes a slot, so that
/// thousands of tools keyed by their ids merge without reading the tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdKey {
    /// `hash_units` of the id.
    pub hash: u64,
    /// The id's value as an array index, when it is one.
    pub array_index: Option<u32>,
}

impl IdKey {
    pub fn of(id: &[u16]) -> IdKey {
        IdKey { hash: hash_units(id), array_index: array_index(id) }
    }
}

/// What a pool refuses: the binding hands back only slots the pool gave it,
/// and a wrong one is a bug there, reported, never a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolError {
    /// A slot past the end of the pool (only the next one may be filled).
    SlotOutOfRange(Slot),
    /// A slot that holds no tool.
    EmptySlot(Slot),
    /// A tool keyed by its id that has none.
    NoIdForKey(Slot),
    /// A record key, or a step key other than a meta-tool's, without a tool.
    NoTool,
    Catalog(CatalogError),
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolError::SlotOutOfRange(slot) => write!(f, "tool pool: slot {slot} is past the end"),
            PoolError::EmptySlot(slot) => write!(f, "tool pool: slot {slot} holds no tool"),
            PoolError::NoIdForKey(slot) => write!(f, "tool pool: the tool in slot {slot} has no id to be keyed by"),
            PoolError::NoTool => f.write_str("tool pool: a key other than a meta-tool's without a tool"),
            PoolError::Catalog(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for PoolError {}

impl From<CatalogError> for PoolError {
    fn from(error: CatalogError) -> PoolError {
        PoolError::Catalog(error)
    }
}

/// Tools analysed once, by slot (see the module's documentation).
pub struct ToolPool {
    ranking: Ranking,
    /// Whether the tools' parameters are kept (see [`keeps_parameters`](Self::keeps_parameters)).
    keeps_parameters: bool,
    tools: Vec<Option<PoolTool>>,
    /// Per slot, its tool's [`IdKey`] (`None`: no tool, or no id).
    id_keys: Vec<Option<IdKey>>,
    filled: usize,
    /// Emptied slots, to fill first (the last emptied first).
    free: Vec<Slot>,
    /// Per slot, the number of the last selection that read it.
    read_by: Vec<u32>,
    /// How many selections were noted ([`note_selection`](Self::note_selection)).
    selections: u32,
    terms: TermDict,
    /// The vocabulary size above which it is rebuilt.
    compact_above: usize,
    /// Where a tool's terms are counted when it is analysed, and a
    /// selection's (first half's) index numbers terms.
    numbering: Numbering,
    /// Where the second half of a split selection's index numbers terms.
    second_numbering: Numbering,
    /// Scratch for a tool's tokens.
    lowered: Vec<u16>,
    /// Scratch for a tool's id lowercased, when it is the name.
    lower_id: Vec<u16>,
}

impl ToolPool {
    /// An empty pool for catalogs that rank with `ranking`.
    pub fn new(ranking: Ranking) -> ToolPool {
        ToolPool {
            ranking,
            keeps_parameters: ranking.reads_parameters(),
            tools: Vec::new(),
            id_keys: Vec::new(),
            filled: 0,
            free: Vec::new(),
            read_by: Vec::new(),
            selections: 0,
            terms: TermDict::default(),
            compact_above: COMPACT_SPARE_TERMS,
            numbering: Numbering::default(),
            second_numbering: Numbering::default(),
            lowered: Vec::new(),
            lower_id: Vec::new(),
        }
    }

    /// This pool, keeping the tools' parameters whatever its ranking (for a
    /// `search_tools` pattern, matched against them).
    pub fn keeping_parameters(mut self) -> ToolPool {
        self.keeps_parameters = true;
        self
    }

    /// Whether the tools' parameters are kept, and laid out with the catalogs.
    pub fn keeps_parameters(&self) -> bool {
        self.keeps_parameters
    }

    /// Number of slots holding a tool.
    pub fn len(&self) -> usize {
        self.filled
    }

    pub fn is_empty(&self) -> bool {
        self.filled == 0
    }

    /// Number of slots, filled or not: the next slot to fill.
    pub fn slot_count(&self) -> usize {
        self.tools.len()
    }

    /// Number of emptied slots, which tools new to the pool fill first.
    pub fn free_count(&self) -> usize {
        self.free.len()
    }

    /// Number of terms in the vocabulary.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Whether `slot` holds a tool.
    pub fn holds(&self, slot: Slot) -> bool {
        matches!(self.tools.get(slot as usize), Some(Some(_)))
    }

    /// The id of the tool in `slot`, which is also its key: a
    /// [`PoolEntry`] without a key.
    pub fn id_as_key(&self, slot: Slot) -> Result<&[u16], PoolError> {
        pool_tool(&self.tools, slot)?.id().ok_or(PoolError::NoIdForKey(slot))
    }

    /// [`id_as_key`](Self::id_as_key) as what merging it as a key needs.
    pub fn id_key(&self, slot: Slot) -> Result<IdKey, PoolError> {
        match self.id_keys.get(slot as usize) {
            Some(Some(id)) => Ok(*id),
            _ => self.id_as_key(slot).map(IdKey::of),
        }
    }
}

/// What the children's tests share: tools made at random, pools and
/// catalogs of them, and the check that a pooled catalog answers as one
/// built from its text does (`assert_same`).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Candidate, Catalog, Pattern, SearchOptions};
    use crate::test_rng::Rng;

    pub(super) fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// A tool as the tests hold it: key, id, description, parameters.
    #[derive(Clone)]
    pub(super) struct Tool {
        pub(super) key: Vec<u16>,
        pub(super) id: Option<Vec<u16>>,
        pub(super) description: Vec<u16>,
        pub(super) parameters: Vec<(Vec<u16>, Vec<u16>)>,
    }

    const WORDS: &[&str] = &[
        "weather",
        "Weather",
        "GET_WEATHER",
        "forecast",
        "send-email",
        "email",
        "db",
        "x",
        "İstanbul",
        "ΟΔΟΣ",
        "Σ",
        "straße",
        "getCurrentWeather",
        "ツール",
        "query",
        "records",
        "search_tools",
        "a/b",
        "0",
        "12",
    ];

    pub(super) fn text(rng: &mut Rng, most: u64) -> Vec<u16> {
        let mut out = String::new();
        for _ in 0..rng.next() % (most + 1) {
            out.push_str(WORDS[(rng.next() % WORDS.len() as u64) as usize]);
            out.push(if rng.next().is_multiple_of(4) { '.' } else { ' ' });
        }
        u(&out)
    }

    /// Tools whose names repeat, some keyed by their id, some without one,
    /// some with an empty id (named by their key), some keyed by an array index.
    pub(super) fn tools(rng: &mut Rng, count: usize) -> Vec<Tool> {
        (0..count)
            .map(|i| {
                let id = match rng.next() % 6 {
                    0 => None,
                    1 => Some(Vec::new()),
                    _ => Some(u(&format!("tool_{}", rng.next() % (count as u64)))),
                };
                let key = match (&id, rng.next() % 5) {
                    (Some(id), 0..=2) if !id.is_empty() => id.clone(),
                    (_, 3) => u(&format!("{}", rng.next() % 50)),
                    _ => u(&format!("key {} {}", i, WORDS[i % WORDS.len()])),
                };
                let parameters = (0..rng.next() % 3).map(|_| (text(rng, 2), text(rng, 5))).collect();
                Tool { key, id, description: text(rng, 12), parameters }
            })
            .collect()
    }

    /// Analyses `tool` again into `slot`, which holds one.
    pub(super) fn analyse(pool: &mut ToolPool, slot: Slot, tool: &Tool) {
        let parameters = tool.parameters.iter().map(|(n, d)| (&n[..], &d[..]));
        pool.analyse(slot, tool.id.as_deref(), &tool.description, Some(parameters)).unwrap();
    }

    /// Puts `tool` in the slot the pool gives it, and gives the slot.
    pub(super) fn add(pool: &mut ToolPool, tool: &Tool) -> Slot {
        let parameters = tool.parameters.iter().map(|(n, d)| (&n[..], &d[..]));
        pool.add(tool.id.as_deref(), &tool.description, Some(parameters)).unwrap()
    }

    /// A pool holding `tools`, tool `i` in slot `i`.
    pub(super) fn pool_of(tools: &[Tool], ranking: Ranking) -> ToolPool {
        fill(ToolPool::new(ranking), tools)
    }

    /// `pool`, empty, with `tools` added: tool `i` in slot `i`.
    pub(super) fn fill(mut pool: ToolPool, tools: &[Tool]) -> ToolPool {
        for (i, tool) in tools.iter().enumerate() {
            assert_eq!(add(&mut pool, tool), i as Slot);
        }
        pool
    }

    /// The catalog `Catalog::new` makes of the tools (keys must be distinct).
    pub(super) fn from_text(tools: &[&Tool], ranking: Ranking) -> Catalog {
        from_text_keeping(tools, ranking, false)
    }

    /// [`from_text`], keeping the tools' parameters (`keep`) whatever the ranking.
    pub(super) fn from_text_keeping(tools: &[&Tool], ranking: Ranking, keep: bool) -> Catalog {
        let mut builder = Catalog::builder();
        builder.ranking(ranking).keep_parameters(keep);
        for tool in tools {
            let parameters = tool.parameters.iter().map(|(n, d)| (&n[..], &d[..]));
            builder.push_with_parameters(&tool.key, tool.id.as_deref(), &tool.description, parameters);
        }
        builder.build().unwrap()
    }

    pub(super) fn from_pool(pool: &mut ToolPool, tools: &[(Slot, &Tool)]) -> Catalog {
        let selection: Vec<PoolEntry<'_>> = tools
            .iter()
            .map(|&(slot, tool)| PoolEntry {
                slot,
                // Keyed by its id: the pool gives the key.
                key: (tool.id.as_deref() != Some(&tool.key[..])).then_some(&tool.key[..]),
            })
            .collect();
        pool.catalog(&selection).unwrap()
    }

    pub(super) fn candidates(catalog: &Catalog, query: &str) -> Vec<(u32, u64)> {
        catalog.rank(&u(query), 1e9).iter().map(|c: &Candidate| (c.doc, c.score.to_bits())).collect()
    }

    /// The two catalogs answer every lookup and query alike, bit for bit.
    pub(super) fn assert_same(pooled: &Catalog, built: &Catalog, label: &str) {
        assert_eq!(pooled.entry_count(), built.entry_count(), "{label}");
        assert_eq!(pooled.len(), built.len(), "{label}");
        for entry in 0..built.entry_count() {
            for name in [built.key(entry), built.name(entry)] {
                assert_eq!(pooled.find_by_key(name), built.find_by_key(name), "{label}");
                assert_eq!(pooled.find_by_id(name), built.find_by_id(name), "{label}");
                assert_eq!(pooled.find_doc(name), built.find_doc(name), "{label}");
            }
            assert_eq!(pooled.description(entry), built.description(entry), "{label}");
            assert!(pooled.parameters(entry).eq(built.parameters(entry)), "{label}: parameters of {entry}");
        }
        for pattern in ["weather|tool_3", "^key", "ΟΔΟΣ", "(?-i)Weather$", ""] {
            let pattern = Pattern::new(&u(pattern)).unwrap();
            assert_eq!(
                pooled.pattern_texts().candidates(&pattern),
                built.pattern_texts().candidates(&pattern),
                "{label}: {pattern:?}"
            );
        }
        let options = SearchOptions { top_k: 1e9, ..SearchOptions::default() };
        for query in
            ["weather", "get weather forecast", "İstanbul ΟΔΟΣ σ", "tool_3 db", "ツール", "12 0", "email.records"]
        {
            assert_eq!(candidates(pooled, query), candidates(built, query), "{label}: {query}");
            assert_eq!(pooled.search(&u(query), &options), built.search(&u(query), &options), "{label}: {query}");
        }
    }

    /// Distinct keys, the later tool winning, as in a JavaScript object.
    pub(super) fn distinct_keys(picked: Vec<(Slot, &Tool)>) -> Vec<(Slot, &Tool)> {
        let mut out: Vec<(Slot, &Tool)> = Vec::new();
        for (slot, tool) in picked {
            out.retain(|(_, t)| t.key != tool.key);
            out.push((slot, tool));
        }
        out
    }

    /// About nine tools in ten of `all` (tool `i` in slot `i`), in a random
    /// order, with distinct keys.
    pub(super) fn random_selection<'t>(rng: &mut Rng, all: &'t [Tool]) -> Vec<(Slot, &'t Tool)> {
        let mut picked: Vec<_> =
            all.iter().enumerate().filter(|_| rng.next() % 10 < 9).map(|(i, t)| (i as Slot, t)).collect();
        for i in (1..picked.len()).rev() {
            picked.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        distinct_keys(picked)
    }
}
