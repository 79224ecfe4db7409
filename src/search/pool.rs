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

use std::fmt;
use std::sync::Arc;

use crate::js::{array_index, to_lower_utf16_into};

use super::bm25::{Bm25Builder, TermDict};
use super::catalog::{Catalog, CatalogError, CatalogText, Partial, Ranking, IN_SHARED, SPLIT_FROM_ENTRIES};
use super::hash::hash_units;
use super::params::ParamTable;
use super::span::{EntrySpans, Span};
use super::tokenize::for_each_token;

/// A tool's number in a [`ToolPool`].
pub type Slot = u32;

/// A vocabulary this much larger than its tools' terms is rebuilt (with at
/// least this many terms to spare, so small pools never are).
const COMPACT_SPARE_TERMS: usize = 4096;

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

/// One tool as analysed, in few allocations: a pool's tools are read in
/// the order of each selection, and each allocation is a cache miss then.
struct PoolTool {
    /// `tool.id` (when it is a string: `''` included, the name is then the
    /// key), the description, then (for the reference's ranking, with a
    /// non-empty id) the id lowercased. Shared with the catalogs made of it.
    text: Arc<[u16]>,
    /// `tool.id`'s length, or `None` when it is no string.
    id_len: Option<u32>,
    description_len: u32,
    /// For the reference's ranking: the document's distinct terms with their
    /// counts, `[term, count, ...]`: its name's and description's when the
    /// name is the id, its description's alone when the name is the key (of
    /// each selection).
    terms: Vec<u32>,
    /// Its parameters, for a ranking that reads them or a pool that keeps
    /// them (one entry).
    parameters: Option<ParamTable>,
}

impl PoolTool {
    fn id(&self) -> Option<&[u16]> {
        self.id_len.map(|len| &self.text[..len as usize])
    }

    /// Whether the name is the id (`id || key`), which is then in `terms`.
    fn named_by_id(&self) -> bool {
        self.id_len.is_some_and(|len| len > 0)
    }

    /// The id lowercased, when it is the name.
    fn lower_id(&self) -> &[u16] {
        &self.text[(self.id_len.unwrap_or(0) + self.description_len) as usize..]
    }

    /// The terms' numbers in `terms` (every other number).
    fn term_numbers(&mut self) -> impl Iterator<Item = &mut u32> {
        self.terms.iter_mut().step_by(2)
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

    /// Puts a tool new to the pool in a slot of its choosing (the last one
    /// emptied, else the next), and gives the slot: the only way a slot is
    /// filled. The arguments are [`analyse`](Self::analyse)'s.
    pub fn add<'p>(
        &mut self,
        id: Option<&[u16]>,
        description: &[u16],
        parameters: Option<impl IntoIterator<Item = (&'p [u16], &'p [u16])>>,
    ) -> Result<Slot, PoolError> {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => Slot::try_from(self.tools.len()).map_err(|_| CatalogError::TooLarge)?,
        };
        self.fill(slot, id, description, parameters);
        Ok(slot)
    }

    /// Analyses the tool in `slot` again, as it is now (it changed since):
    /// its analysis is replaced. Only a slot holding a tool can be: the
    /// pool alone chooses where a tool goes ([`add`](Self::add)). `id` is
    /// `tool.id` when it is a string, `description` `tool.description ||
    /// ''`, and `parameters` the tool's, for a ranking that reads them or a
    /// pool that keeps them (ignored otherwise).
    pub fn analyse<'p>(
        &mut self,
        slot: Slot,
        id: Option<&[u16]>,
        description: &[u16],
        parameters: Option<impl IntoIterator<Item = (&'p [u16], &'p [u16])>>,
    ) -> Result<(), PoolError> {
        pool_tool(&self.tools, slot)?;
        self.fill(slot, id, description, parameters);
        Ok(())
    }

    /// Puts the tool's analysis in `slot`: one [`add`](Self::add) chose (an
    /// emptied one, or the next), or one [`analyse`](Self::analyse) found
    /// holding a tool.
    fn fill<'p>(
        &mut self,
        slot: Slot,
        id: Option<&[u16]>,
        description: &[u16],
        parameters: Option<impl IntoIterator<Item = (&'p [u16], &'p [u16])>>,
    ) {
        let at = slot as usize;
        debug_assert!(at <= self.tools.len(), "slot {slot} is past the next");
        let mut tool = PoolTool {
            text: Arc::from([]),
            id_len: id.map(|id| id.len() as u32),
            description_len: description.len() as u32,
            terms: Vec::new(),
            parameters: None,
        };
        if self.keeps_parameters {
            let mut table = ParamTable::new();
            table.push(parameters.into_iter().flatten());
            tool.parameters = Some(table);
        }
        if !self.ranking.reads_parameters() {
            // The reference indexes `"<name> <description>"` lowercased; the
            // space separates, so the two are tokenized apart. Counted here
            // as pairs, later flattened into `terms`.
            let ToolPool { terms, lowered, lower_id, numbering: Numbering { local, met, counts }, .. } = self;
            counts.clear();
            let mut count = |token: &[u16]| count_term(local, met, counts, terms.intern(token), 1);
            if tool.named_by_id() {
                lower_id.clear();
                to_lower_utf16_into(id.unwrap_or_default(), lower_id);
                for_each_token(lower_id, &mut count);
            }
            lowered.clear();
            to_lower_utf16_into(description, lowered);
            for_each_token(lowered, &mut count);
            reset_local(local, met);
            tool.terms = counts.iter().flat_map(|&(term, n)| [term, n]).collect();
        }
        // One allocation of the exact length: the chained slices' lengths are known.
        tool.text = id.unwrap_or_default().iter().chain(description).chain(&self.lower_id).copied().collect();
        self.lower_id.clear();
        if at == self.tools.len() {
            self.tools.push(None);
            self.id_keys.push(None);
            self.read_by.push(0);
        }
        self.id_keys[at] = id.map(IdKey::of);
        if self.tools[at].replace(tool).is_none() {
            self.filled += 1;
        }
    }

    /// Empties `slot`: its tool is gone.
    pub fn release(&mut self, slot: Slot) -> Result<(), PoolError> {
        match self.tools.get_mut(slot as usize) {
            Some(tool @ Some(_)) => {
                *tool = None;
                self.id_keys[slot as usize] = None;
                self.filled -= 1;
                self.free.push(slot);
            }
            Some(None) => return Err(PoolError::EmptySlot(slot)),
            None => return Err(PoolError::SlotOutOfRange(slot)),
        }
        Ok(())
    }

    /// Notes that a selection read the tools in `slots`.
    pub fn note_selection(&mut self, slots: impl IntoIterator<Item = Slot>) {
        self.selections += 1;
        for slot in slots {
            if let Some(read_by) = self.read_by.get_mut(slot as usize) {
                *read_by = self.selections;
            }
        }
    }

    /// Empties the slots whose tools none of the last `kept` selections
    /// read, and gives them.
    pub fn sweep(&mut self, kept: u32) -> Vec<Slot> {
        let keep_from = self.selections.saturating_sub(kept) + 1;
        let unread: Vec<Slot> = (0..self.tools.len())
            .filter(|&at| self.tools[at].is_some() && self.read_by[at] < keep_from)
            .map(|at| at as Slot)
            .collect();
        for &slot in &unread {
            // Each holds a tool, just checked.
            let _ = self.release(slot);
        }
        unread
    }

    /// The catalog of a selection of the pool's tools, in record order (the
    /// entries `Catalog::new` would take, with each tool's id and description
    /// as analysed): the same catalog, searching the same, as one built from
    /// the text. A large selection is laid out in two halves at once, each
    /// into an index of its own, the second then appended to the first (as a
    /// large catalog's build does).
    pub fn catalog(&mut self, selection: &[PoolEntry<'_>]) -> Result<Catalog, PoolError> {
        if self.terms.len() > self.compact_above {
            self.compact();
        }
        self.intern_key_names(selection);
        let split = !self.ranking.reads_parameters() && selection.len() >= SPLIT_FROM_ENTRIES;
        let ToolPool { ranking, keeps_parameters, tools, id_keys, terms, numbering, second_numbering, .. } = self;
        let pool = PoolView { ranking: *ranking, keeps_parameters: *keeps_parameters, tools, id_keys, terms };
        let layout = if split {
            let (head, tail) = selection.split_at(selection.len() / 2);
            let (head_layout, tail_layout) = std::thread::scope(|scope| {
                let tail_thread = std::thread::Builder::new()
                    .name("tool-pool-layout".into())
                    .spawn_scoped(scope, || pool.lay_out(tail, second_numbering));
                let head_layout = pool.lay_out(head, numbering);
                (head_layout, tail_thread.map(|thread| thread.join()))
            });
            let mut layout = head_layout?;
            match tail_layout {
                Ok(Ok(tail_layout)) => layout.append(tail_layout?),
                // No second thread, or it failed: lay out the rest here, and
                // start its numbering afresh (a failed one may not be clean).
                _ => {
                    *second_numbering = Numbering::default();
                    layout.append(pool.lay_out(tail, numbering)?);
                }
            }
            layout
        } else {
            pool.lay_out(selection, numbering)?
        };
        let Layout { own, shared, entries, id_hashes, params, analysed } = layout;
        let text = CatalogText::with_shared(own, shared, id_hashes);
        Ok(Catalog::from_analysis(text, entries, *ranking, params, analysed)?)
    }

    /// Puts the tokens of the keys that name their tools (tools without an
    /// id of their own) in the vocabulary, so that laying out a selection
    /// only reads it.
    fn intern_key_names(&mut self, selection: &[PoolEntry<'_>]) {
        if self.ranking.reads_parameters() {
            return;
        }
        for entry in selection {
            // A slot without a tool is reported by the layout, in order.
            let (Some(key), Some(Some(tool))) = (entry.key, self.tools.get(entry.slot as usize)) else {
                continue;
            };
            if tool.named_by_id() {
                continue;
            }
            self.lowered.clear();
            to_lower_utf16_into(key, &mut self.lowered);
            let ToolPool { terms, lowered, .. } = self;
            for_each_token(lowered, |token| {
                terms.intern(token);
            });
        }
    }

    /// Rebuilds the vocabulary from the terms the pool's tools use, and
    /// renumbers them, once it has grown past twice that (and past a quarter
    /// of their tokens, so that a rebuild, which reads every tool's tokens,
    /// is paid for by the new terms since the last).
    pub fn compact(&mut self) {
        let mut kept = TermDict::default();
        let mut renumber = vec![u32::MAX; self.terms.len()];
        let mut tokens = 0usize;
        for tool in self.tools.iter_mut().flatten() {
            for term in tool.term_numbers() {
                let new = &mut renumber[*term as usize];
                if *new == u32::MAX {
                    *new = kept.intern(self.terms.term(*term).0);
                }
                *term = *new;
                tokens += 1;
            }
        }
        self.terms = kept;
        let live = self.terms.len();
        self.compact_above = live + live.max(tokens / 4) + COMPACT_SPARE_TERMS;
        // Renumbered: every term starts unmet again, in both numberings.
        self.numbering.local = vec![u32::MAX; live];
        self.second_numbering.local = vec![u32::MAX; live];
    }
}

/// The tool in `slot`, or why there is none.
fn pool_tool(tools: &[Option<PoolTool>], slot: Slot) -> Result<&PoolTool, PoolError> {
    match tools.get(slot as usize) {
        Some(Some(tool)) => Ok(tool),
        Some(None) => Err(PoolError::EmptySlot(slot)),
        None => Err(PoolError::SlotOutOfRange(slot)),
    }
}

/// Where an index numbers the vocabulary's terms while a selection is laid
/// out into it: per vocabulary term its number there (`u32::MAX`: not met
/// yet; all `u32::MAX` in between), the terms given one (to reset), and a
/// document's counts.
#[derive(Default)]
struct Numbering {
    local: Vec<u32>,
    met: Vec<u32>,
    counts: Vec<(u32, u32)>,
}

/// What laying out selections reads of a pool, shareable between threads.
#[derive(Clone, Copy)]
struct PoolView<'p> {
    ranking: Ranking,
    keeps_parameters: bool,
    tools: &'p [Option<PoolTool>],
    id_keys: &'p [Option<IdKey>],
    terms: &'p TermDict,
}

/// A run of a selection laid out: its part of the catalog's text and entries
/// and, for the reference's ranking, of its index.
struct Layout {
    /// Keys that are not their tool's id.
    own: Vec<u16>,
    shared: Vec<Arc<[u16]>>,
    entries: Vec<EntrySpans>,
    id_hashes: Vec<u64>,
    params: Option<ParamTable>,
    analysed: Option<Partial>,
}

impl Layout {
    /// Appends the run that follows this one (a ranking that reads
    /// parameters is not split; a pool that keeps them for a pattern is).
    fn append(&mut self, next: Layout) {
        let offset = self.own.len() as u32;
        self.own.extend_from_slice(&next.own);
        self.entries.extend(next.entries.into_iter().map(|mut entry| {
            if entry.key.start & IN_SHARED == 0 {
                entry.key = Span::new(entry.key.start + offset, entry.key.end + offset);
            }
            entry
        }));
        self.shared.extend(next.shared);
        self.id_hashes.extend(next.id_hashes);
        if let (Some(params), Some(next)) = (&mut self.params, next.params) {
            params.append(next);
        }
        if let (Some(analysed), Some(next)) = (&mut self.analysed, next.analysed) {
            analysed.append(next);
        }
    }
}

impl PoolView<'_> {
    /// Lays out `selection` (key names already in the vocabulary, see
    /// [`ToolPool::intern_key_names`]) into a catalog's parts, numbering
    /// terms with `numbering`, which it leaves clean.
    fn lay_out(self, selection: &[PoolEntry<'_>], numbering: &mut Numbering) -> Result<Layout, PoolError> {
        let PoolView { ranking, keeps_parameters, tools, id_keys, terms } = self;
        let reads_parameters = ranking.reads_parameters();
        let (mut keys_len, mut lower_names_len, mut tokens) = (0, 0, 0);
        for entry in selection {
            if let Some(Some(tool)) = tools.get(entry.slot as usize) {
                keys_len += entry.key.map_or(0, <[u16]>::len);
                lower_names_len +=
                    if tool.named_by_id() { tool.lower_id().len() } else { entry.key.map_or(0, <[u16]>::len) };
                tokens += tool.terms.len() / 2;
            }
        }
        let mut layout = Layout {
            own: Vec::with_capacity(keys_len),
            shared: Vec::with_capacity(selection.len()),
            entries: Vec::with_capacity(selection.len()),
            id_hashes: Vec::with_capacity(selection.len()),
            params: keeps_parameters.then(ParamTable::new),
            analysed: (!reads_parameters).then(|| {
                // No more distinct terms than tokens, nor than the vocabulary has
                // (key names are in it too): room for them at once, not by doubling.
                let distinct = tokens.min(terms.len());
                Partial {
                    index: Bm25Builder::with_capacity(selection.len(), 0)
                        .reserve_postings(tokens)
                        .reserve_terms(distinct, terms.text_len() / terms.len().max(1) * distinct),
                    lower_names: Vec::with_capacity(lower_names_len),
                    lower_name_ends: Vec::with_capacity(selection.len()),
                }
            }),
        };
        let Layout { own, shared, entries, id_hashes, params, analysed } = &mut layout;
        let Numbering { local, met, counts } = numbering;
        // Whatever happens, the numbering is left clean for the next selection.
        let result = (|| {
            for (at, entry) in selection.iter().enumerate() {
                prefetch_ahead(tools, selection, at);
                id_hashes.push(id_keys.get(entry.slot as usize).copied().flatten().map_or(0, |id| id.hash));
                let tool = pool_tool(tools, entry.slot)?;
                let id_span = tool.id_len.map(|len| in_shared(0, len));
                let id_end = tool.id_len.unwrap_or(0);
                let description = in_shared(id_end, id_end + tool.description_len);
                let key = match entry.key {
                    Some(key) => {
                        let start = own.len() as u32;
                        own.extend_from_slice(key);
                        entries.push(EntrySpans { key: Span::new(start, own.len() as u32), id: id_span, description });
                        key
                    }
                    None => {
                        let id_span = id_span.ok_or(PoolError::NoIdForKey(entry.slot))?;
                        entries.push(EntrySpans { key: id_span, id: Some(id_span), description });
                        tool.id().unwrap_or_default()
                    }
                };
                shared.push(tool.text.clone());
                if let Some(params) = params {
                    params.push(tool.parameters.iter().flat_map(|p| p.entry(0)));
                }
                let Some(Partial { index, lower_names, lower_name_ends }) = analysed else {
                    continue;
                };
                // The document, as numbers of this selection's index.
                let pairs = tool.terms.chunks_exact(2).map(|pair| (pair[0], pair[1]));
                counts.clear();
                if tool.named_by_id() {
                    lower_names.extend_from_slice(tool.lower_id());
                    for (term, n) in pairs {
                        counts.push((index_term(index, terms, local, met, term), n));
                    }
                    index.add_distinct_counts(counts);
                } else {
                    // Named by its key: a name of this selection's, its
                    // tokens put in the vocabulary beforehand.
                    let start = lower_names.len();
                    to_lower_utf16_into(key, lower_names);
                    for_each_token(&lower_names[start..], |token| {
                        if let Some(term) = terms.get(token) {
                            counts.push((index_term(index, terms, local, met, term), 1));
                        }
                    });
                    for (term, n) in pairs {
                        counts.push((index_term(index, terms, local, met, term), n));
                    }
                    index.add_counts(counts.iter().copied());
                }
                lower_name_ends.push(lower_names.len() as u32);
            }
            Ok(())
        })();
        reset_local(local, met);
        result.map(|()| layout)
    }
}

/// A span of a tool's shared text (see `CatalogText`).
fn in_shared(start: u32, end: u32) -> Span {
    Span::new(start | IN_SHARED, end | IN_SHARED)
}

/// How many tools ahead of the one being read [`prefetch_ahead`] asks for
/// a tool's text and terms; twice as far, for where the tool itself is.
const PREFETCH_DISTANCE: usize = 8;

/// Asks the processor to load what the selection's tools `at +`
/// [`PREFETCH_DISTANCE`] (their text and terms) and twice as far (the slot
/// itself) will need. A selection reads the pool in its own, random order,
/// and each tool's data is a cache miss; asked for early, the misses overlap
/// rather than come one after another.
fn prefetch_ahead(tools: &[Option<PoolTool>], selection: &[PoolEntry<'_>], at: usize) {
    if let Some(far) = selection.get(at + 2 * PREFETCH_DISTANCE).and_then(|entry| tools.get(entry.slot as usize)) {
        prefetch(far);
    }
    let near = selection.get(at + PREFETCH_DISTANCE).and_then(|entry| tools.get(entry.slot as usize));
    if let Some(Some(tool)) = near {
        // The text's start (its id, and the shared count just before it)
        // and its lowercased id; the description is not read.
        prefetch(tool.text.as_ptr());
        prefetch_all(tool.lower_id());
        prefetch_all(&tool.terms);
    }
}

/// Prefetches the cache lines `items` spans.
fn prefetch_all<T>(items: &[T]) {
    const LINE: usize = 64;
    let bytes = std::mem::size_of_val(items);
    let start = items.as_ptr().cast::<u8>();
    for offset in (0..bytes).step_by(LINE) {
        prefetch(start.wrapping_add(offset));
    }
}

/// A hint that `address` will be read soon (nothing where the processor
/// offers no such hint).
#[inline(always)]
fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    // SAFETY: a prefetch only hints the cache: it reads nothing the program
    // sees and faults on no address, valid or not.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// The number in `index` of the vocabulary's `term`, given it there the
/// first time (`local` and `met` as in [`Numbering::local`]).
fn index_term(index: &mut Bm25Builder, terms: &TermDict, local: &mut Vec<u32>, met: &mut Vec<u32>, term: u32) -> u32 {
    if local.len() <= term as usize {
        local.resize(terms.len().max(term as usize + 1), u32::MAX);
    }
    let number = &mut local[term as usize];
    if *number == u32::MAX {
        // The vocabulary's terms are distinct texts: met the first time, the
        // text is new to this index.
        let (text, hash) = terms.term(term);
        *number = index.intern_new_hashed(text, hash);
        met.push(term);
    }
    *number
}

/// Counts `count` more of `term` in `counts` (distinct terms in order of
/// first occurrence), `local` saying where each term already is (see
/// [`Numbering::local`], reset with [`reset_local`]).
fn count_term(local: &mut Vec<u32>, met: &mut Vec<u32>, counts: &mut Vec<(u32, u32)>, term: u32, count: u32) {
    if local.len() <= term as usize {
        local.resize(term as usize + 1, u32::MAX);
    }
    let at = &mut local[term as usize];
    if *at == u32::MAX {
        *at = counts.len() as u32;
        met.push(term);
        counts.push((term, count));
    } else {
        counts[*at as usize].1 += count;
    }
}

fn reset_local(local: &mut [u32], met: &mut Vec<u32>) {
    for term in met.drain(..) {
        local[term as usize] = u32::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Candidate, Pattern, SearchOptions};
    use crate::test_rng::Rng;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    /// A tool as the tests hold it: key, id, description, parameters.
    #[derive(Clone)]
    struct Tool {
        key: Vec<u16>,
        id: Option<Vec<u16>>,
        description: Vec<u16>,
        parameters: Vec<(Vec<u16>, Vec<u16>)>,
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

    fn text(rng: &mut Rng, most: u64) -> Vec<u16> {
        let mut out = String::new();
        for _ in 0..rng.next() % (most + 1) {
            out.push_str(WORDS[(rng.next() % WORDS.len() as u64) as usize]);
            out.push(if rng.next().is_multiple_of(4) { '.' } else { ' ' });
        }
        u(&out)
    }

    /// Tools whose names repeat, some keyed by their id, some without one,
    /// some with an empty id (named by their key), some keyed by an array index.
    fn tools(rng: &mut Rng, count: usize) -> Vec<Tool> {
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
    fn analyse(pool: &mut ToolPool, slot: Slot, tool: &Tool) {
        let parameters = tool.parameters.iter().map(|(n, d)| (&n[..], &d[..]));
        pool.analyse(slot, tool.id.as_deref(), &tool.description, Some(parameters)).unwrap();
    }

    /// Puts `tool` in the slot the pool gives it, and gives the slot.
    fn add(pool: &mut ToolPool, tool: &Tool) -> Slot {
        let parameters = tool.parameters.iter().map(|(n, d)| (&n[..], &d[..]));
        pool.add(tool.id.as_deref(), &tool.description, Some(parameters)).unwrap()
    }

    /// A pool holding `tools`, tool `i` in slot `i`.
    fn pool_of(tools: &[Tool], ranking: Ranking) -> ToolPool {
        fill(ToolPool::new(ranking), tools)
    }

    /// `pool`, empty, with `tools` added: tool `i` in slot `i`.
    fn fill(mut pool: ToolPool, tools: &[Tool]) -> ToolPool {
        for (i, tool) in tools.iter().enumerate() {
            assert_eq!(add(&mut pool, tool), i as Slot);
        }
        pool
    }

    /// The catalog `Catalog::new` makes of the tools (keys must be distinct).
    fn from_text(tools: &[&Tool], ranking: Ranking) -> Catalog {
        from_text_keeping(tools, ranking, false)
    }

    /// [`from_text`], keeping the tools' parameters (`keep`) whatever the ranking.
    fn from_text_keeping(tools: &[&Tool], ranking: Ranking, keep: bool) -> Catalog {
        let mut builder = Catalog::builder();
        builder.ranking(ranking).keep_parameters(keep);
        for tool in tools {
            let parameters = tool.parameters.iter().map(|(n, d)| (&n[..], &d[..]));
            builder.push_with_parameters(&tool.key, tool.id.as_deref(), &tool.description, parameters);
        }
        builder.build().unwrap()
    }

    fn from_pool(pool: &mut ToolPool, tools: &[(Slot, &Tool)]) -> Catalog {
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

    fn candidates(catalog: &Catalog, query: &str) -> Vec<(u32, u64)> {
        catalog.rank(&u(query), 1e9).iter().map(|c: &Candidate| (c.doc, c.score.to_bits())).collect()
    }

    /// The two catalogs answer every lookup and query alike, bit for bit.
    fn assert_same(pooled: &Catalog, built: &Catalog, label: &str) {
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
    fn distinct_keys(picked: Vec<(Slot, &Tool)>) -> Vec<(Slot, &Tool)> {
        let mut out: Vec<(Slot, &Tool)> = Vec::new();
        for (slot, tool) in picked {
            out.retain(|(_, t)| t.key != tool.key);
            out.push((slot, tool));
        }
        out
    }

    /// About nine tools in ten of `all` (tool `i` in slot `i`), in a random
    /// order, with distinct keys.
    fn random_selection<'t>(rng: &mut Rng, all: &'t [Tool]) -> Vec<(Slot, &'t Tool)> {
        let mut picked: Vec<_> =
            all.iter().enumerate().filter(|_| rng.next() % 10 < 9).map(|(i, t)| (i as Slot, t)).collect();
        for i in (1..picked.len()).rev() {
            picked.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        distinct_keys(picked)
    }

    #[test]
    fn random_selections_search_as_catalogs_built_from_their_text() {
        for ranking in Ranking::ALL {
            let mut rng = Rng::new(5);
            let all = tools(&mut rng, 300);
            let mut pool = pool_of(&all, ranking);
            assert_eq!(pool.len(), all.len());
            for round in 0..12 {
                let picked = random_selection(&mut rng, &all);
                let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
                let label = format!("{} round {round}", ranking.name());
                assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, ranking), &label);
            }
        }
    }

    #[test]
    fn a_pool_keeping_parameters_lays_them_out_with_the_reference_analysis_whole_or_in_halves() {
        let mut rng = Rng::new(17);
        let all = tools(&mut rng, 2 * SPLIT_FROM_ENTRIES + 1000);
        let mut pool = fill(ToolPool::new(Ranking::Reference).keeping_parameters(), &all);
        assert!(pool.keeps_parameters() && !ToolPool::new(Ranking::Reference).keeps_parameters());
        for (round, share) in [(0, 1), (1, 10)] {
            let picked: Vec<_> = random_selection(&mut rng, &all).into_iter().step_by(share).collect();
            assert_eq!(picked.len() >= SPLIT_FROM_ENTRIES, round == 0, "split in the first round only");
            let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
            let built = from_text_keeping(&tools, Ranking::Reference, true);
            assert!((0..built.entry_count()).any(|entry| built.parameters(entry).next().is_some()));
            assert_same(&from_pool(&mut pool, &picked), &built, &format!("kept, round {round}"));
        }
    }

    #[test]
    fn a_large_selection_indexed_on_its_thread_searches_the_same() {
        let mut rng = Rng::new(9);
        let all = tools(&mut rng, 3000);
        let mut pool = pool_of(&all, Ranking::Reference);
        let picked = distinct_keys(all.iter().enumerate().map(|(i, t)| (i as Slot, t)).collect());
        let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
        assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, Ranking::Reference), "3000 tools");
    }

    #[test]
    fn a_selection_laid_out_in_halves_searches_as_one_built_from_its_text() {
        let mut rng = Rng::new(13);
        let all = tools(&mut rng, 2 * SPLIT_FROM_ENTRIES + 1000);
        let mut pool = pool_of(&all, Ranking::Reference);
        for round in 0..3 {
            let picked = random_selection(&mut rng, &all);
            assert!(picked.len() >= SPLIT_FROM_ENTRIES, "the selection is split");
            let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
            assert_same(
                &from_pool(&mut pool, &picked),
                &from_text(&tools, Ranking::Reference),
                &format!("round {round}"),
            );
        }
    }

    #[test]
    fn a_changed_tool_analysed_again_into_its_slot_is_searched_as_it_is_now() {
        let mut pool = ToolPool::new(Ranking::Reference);
        let mut weather =
            Tool { key: u("weather"), id: Some(u("weather")), description: u("Current weather"), parameters: vec![] };
        let email = Tool { key: u("mail"), id: Some(u("send")), description: u("Send an email"), parameters: vec![] };
        assert_eq!([add(&mut pool, &weather), add(&mut pool, &email)], [0, 1]);
        let before = from_pool(&mut pool, &[(0, &weather), (1, &email)]);
        assert_eq!(before.rank(&u("current"), 10.0).len(), 1);
        weather.description = u("Stock quotes");
        weather.id = Some(u("stocks"));
        analyse(&mut pool, 0, &weather);
        assert_eq!(pool.len(), 2);
        let after = from_pool(&mut pool, &[(0, &weather), (1, &email)]);
        assert_same(&after, &from_text(&[&weather, &email], Ranking::Reference), "changed");
        assert!(after.rank(&u("current"), 10.0).is_empty());
        assert_eq!(after.rank(&u("quotes"), 10.0).len(), 1);
        // A catalog made before keeps what it was made of.
        assert_eq!(before.rank(&u("current"), 10.0).len(), 1);
        assert_eq!(before.description(0), &u("Current weather")[..]);
    }

    #[test]
    fn slots_are_released_and_filled_again() {
        let mut rng = Rng::new(3);
        let all = tools(&mut rng, 40);
        let mut pool = pool_of(&all, Ranking::Reference);
        for slot in (0..40).step_by(2) {
            pool.release(slot).unwrap();
        }
        assert_eq!((pool.len(), pool.slot_count()), (20, 40));
        assert!(!pool.holds(0) && pool.holds(1));
        assert_eq!(pool.release(0), Err(PoolError::EmptySlot(0)));
        assert_eq!(pool.release(40), Err(PoolError::SlotOutOfRange(40)));
        let selection = [PoolEntry { slot: 0, key: Some(&[]) }];
        assert!(matches!(pool.catalog(&selection), Err(PoolError::EmptySlot(0))));
        // Only a slot holding a tool is analysed again: the pool alone fills
        // slots, emptied or new.
        let none = None::<[(&[u16], &[u16]); 0]>;
        assert_eq!(pool.analyse(0, None, &[], none), Err(PoolError::EmptySlot(0)));
        assert_eq!(pool.analyse(40, None, &[], none), Err(PoolError::SlotOutOfRange(40)));
        assert_eq!((pool.len(), pool.slot_count(), pool.free_count()), (20, 40, 20));
        // Emptied slots take other tools, the last emptied first; the
        // released ones are not found.
        let others = tools(&mut Rng::new(4), 20);
        let mut picked = Vec::new();
        for (i, tool) in others.iter().enumerate() {
            let slot = add(&mut pool, tool);
            assert_eq!(slot, 38 - 2 * i as Slot);
            picked.push((slot, tool));
            picked.push((slot + 1, &all[slot as usize + 1]));
        }
        assert_eq!((pool.len(), pool.slot_count()), (40, 40));
        let picked = distinct_keys(picked);
        let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
        assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, Ranking::Reference), "refilled");
        // A tool keyed by its id needs one.
        let no_id = Tool { key: u("k"), id: None, description: vec![], parameters: vec![] };
        assert_eq!(add(&mut pool, &no_id), 40);
        assert!(matches!(pool.catalog(&[PoolEntry { slot: 40, key: None }]), Err(PoolError::NoIdForKey(40))));
    }

    #[test]
    fn new_tools_fill_emptied_slots_first_and_unread_tools_are_swept() {
        let all = tools(&mut Rng::new(21), 6);
        let mut pool = ToolPool::new(Ranking::Reference);
        let slots: Vec<Slot> = all[..4].iter().map(|tool| add(&mut pool, tool)).collect();
        assert_eq!(slots, [0, 1, 2, 3]);
        pool.release(1).unwrap();
        pool.release(2).unwrap();
        assert_eq!((pool.len(), pool.slot_count(), pool.free_count()), (2, 4, 2));
        // The last emptied first, then the next new slot.
        assert_eq!([add(&mut pool, &all[4]), add(&mut pool, &all[5]), add(&mut pool, &all[0])], [2, 1, 4]);
        assert_eq!((pool.len(), pool.slot_count(), pool.free_count()), (5, 5, 0));
        // An emptied slot is filled by the pool, not by number.
        pool.release(3).unwrap();
        let none = None::<[(&[u16], &[u16]); 0]>;
        assert_eq!(pool.analyse(3, None, &[], none), Err(PoolError::EmptySlot(3)));
        assert_eq!((add(&mut pool, &all[3]), pool.free_count()), (3, 0));
        // Selections 1 to 3 read slots 0, 1 and 2; keeping the last two, the
        // tools only the first read (0) and those none read (3, 4) go.
        pool.note_selection([0, 1]);
        pool.note_selection([1]);
        pool.note_selection([2, 1]);
        assert_eq!(pool.sweep(2), [0, 3, 4]);
        assert_eq!((pool.len(), pool.free_count()), (2, 3));
        assert_eq!(pool.sweep(2), Vec::<Slot>::new());
    }

    #[test]
    fn the_vocabulary_is_rebuilt_from_the_tools_alive_and_searches_the_same() {
        let mut pool = ToolPool::new(Ranking::Reference);
        let mut rng = Rng::new(12);
        // Tools come and go, each with words of its own: without rebuilds the
        // vocabulary would keep every word ever seen.
        let mut alive: Vec<Tool> = Vec::new();
        for round in 0..60u32 {
            let made: Vec<Tool> = (0..50)
                .map(|i| Tool {
                    key: u(&format!("k{i}")),
                    id: Some(u(&format!("tool_{round}_{i}"))),
                    description: u(&format!("word{round}x{i} other{} weather {}", rng.next() % 1000, round * 50 + i)),
                    parameters: vec![],
                })
                .collect();
            for (slot, tool) in made.iter().enumerate() {
                if round > 0 {
                    pool.release(slot as Slot).unwrap();
                }
                // The slot just emptied, or the next.
                assert_eq!(add(&mut pool, tool), slot as Slot);
            }
            alive = made;
            let picked: Vec<(Slot, &Tool)> = alive.iter().enumerate().map(|(i, t)| (i as Slot, t)).collect();
            let catalog = from_pool(&mut pool, &picked);
            if round % 10 == 0 {
                let tools: Vec<&Tool> = alive.iter().collect();
                assert_same(&catalog, &from_text(&tools, Ranking::Reference), "rebuilt");
            }
        }
        assert_eq!(pool.len(), 50);
        // 60 rounds of 50 tools brought about 9,000 terms; the rebuilds keep
        // the vocabulary to what is alive plus the spare.
        assert!(pool.term_count() < 400 + 2 * COMPACT_SPARE_TERMS, "{}", pool.term_count());
        let tools: Vec<&Tool> = alive.iter().collect();
        let picked: Vec<(Slot, &Tool)> = alive.iter().enumerate().map(|(i, t)| (i as Slot, t)).collect();
        assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, Ranking::Reference), "last");
    }
}
