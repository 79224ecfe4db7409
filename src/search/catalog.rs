//! A searchable set of tools: the record's entries plus their BM25 index.
//!
//! The binding hands over a whole tools record at once: every string in one
//! UTF-16 buffer and, per entry in `Object.keys` order, the spans of its key,
//! its `id` (when it is a string; `''` indexes under the key) and its
//! description. The catalog keeps that buffer and answers the lookups the
//! processor makes by name.
//!
//! Each entry is indexed under its name, `id || key`, as the document
//! `"<name> <description>"`. Two entries with the same name are one document:
//! the later one replaces the earlier, exactly as the reference's repeated
//! `index.add(name, ...)` and `descriptions.set(name, ...)` do.
//!
//! With [`Ranking::Fielded`] the catalog builds a [`FieldedIndex`] over the
//! same documents instead (name, description and the entries' parameters as
//! separate fields); lookups and duplicate names work the same way.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use hashbrown::HashTable;

use crate::js::{contains_units, to_lower_utf16, to_lower_utf16_into};

use super::bm25::{Bm25Builder, Bm25Index, DocId};
use super::embedding::{BuiltinModel, EmbedScratch, ToolVectors};
use super::fielded::{FieldTexts, FieldedBuilder, FieldedConfig, FieldedIndex};
use super::hash::hash_units;
use super::hybrid::{self, HybridConfig, VectorSource};
use super::params::ParamTable;
use super::pattern::PatternTexts;
use super::span::{EntrySpans, Span};
use crate::protocol::tool_search::{self as protocol, defaults};

/// Catalogs and pool selections this large are indexed in two halves at
/// once: the halves' builders merge into the same index a single pass gives.
/// (Under the fuzzer, whose inputs are small, nearly all are, so that both
/// ways are checked against catalogs built from the text.)
pub(crate) const SPLIT_FROM_ENTRIES: usize = if cfg!(fuzzing) { 8 } else { 4096 };

/// How a catalog ranks `search_tools` results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Ranking {
    /// The reference's: BM25 over `"<name> <description>"`, plus name boosts.
    #[default]
    Reference,
    /// BM25F over name, description and parameters, with identifier
    /// splitting and stemming (see [`super::fielded`]).
    Fielded(FieldedConfig),
    /// `'fielded'` plus the semantic similarity of question and tool (see
    /// [`super::hybrid`]).
    Hybrid(HybridConfig),
}

impl Ranking {
    /// The `'fielded'` ranking as shipped.
    pub const FIELDED: Ranking = Ranking::Fielded(FieldedConfig::DEFAULT);

    /// The `'hybrid'` ranking as shipped, with the built-in model.
    pub const HYBRID: Ranking = Ranking::Hybrid(HybridConfig::DEFAULT);

    /// The rankings `search.ranking` names, the default first.
    pub const ALL: [Ranking; 3] = [Ranking::Reference, Ranking::FIELDED, Ranking::HYBRID];

    /// The `search.ranking` value that selects it (any [`FieldedConfig`] is
    /// `'fielded'`, any [`HybridConfig`] `'hybrid'`: only the shipped ones
    /// can be selected, and the vectors' source by `search.embedder`).
    pub fn name(self) -> &'static str {
        match self {
            Ranking::Reference => protocol::RANKINGS[0],
            Ranking::Fielded(_) => protocol::RANKINGS[1],
            Ranking::Hybrid(_) => protocol::RANKINGS[2],
        }
    }

    /// The lexical ranking's settings, for a ranking that ranks as
    /// `'fielded'` does (alone or with vectors).
    pub fn fielded(self) -> Option<FieldedConfig> {
        match self {
            Ranking::Reference => None,
            Ranking::Fielded(config) => Some(config),
            Ranking::Hybrid(config) => Some(config.fielded),
        }
    }

    /// The same ranking, its vectors from `source` (for `'hybrid'`).
    pub fn with_vectors(self, source: VectorSource) -> Ranking {
        match self {
            Ranking::Hybrid(config) => Ranking::Hybrid(HybridConfig { vectors: source, ..config }),
            other => other,
        }
    }

    /// The documented default ([`defaults::RANKING`]).
    pub fn default_ranking() -> Ranking {
        Ranking::ALL.into_iter().find(|ranking| ranking.name() == defaults::RANKING).expect("the default is a ranking")
    }

    /// The ranking a `search.ranking` value names, if any.
    pub fn from_name(name: &[u16]) -> Option<Ranking> {
        Ranking::ALL.into_iter().find(|ranking| name.iter().copied().eq(ranking.name().encode_utf16()))
    }

    /// Whether this ranking reads tools' parameters (so JavaScript should
    /// read them from the tools' input schemas and send them).
    pub fn reads_parameters(self) -> bool {
        self.fielded().is_some()
    }
}

/// Why a catalog could not be built from the given spans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatalogError {
    /// A span ends before it starts or runs past the text.
    BadSpan { entry: usize, span: Span, text_len: usize },
    /// Shared text for a number of entries other than the catalog's.
    SharedTextCount { entries: usize, shared: usize },
    /// More entries or text than 32-bit indices address (own text: 31-bit,
    /// see `IN_SHARED`).
    TooLarge,
    /// A parameter table whose entry count is not the catalog's.
    ParameterCount { entries: usize, parameter_entries: usize },
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::BadSpan { entry, span, text_len } => write!(
                f,
                "catalog entry {entry}: span {}..{} is not within text of length {text_len}",
                span.start, span.end
            ),
            CatalogError::SharedTextCount { entries, shared } => {
                write!(f, "shared text for {shared} of {entries} catalog entries")
            }
            CatalogError::TooLarge => f.write_str("catalog too large for 32-bit offsets"),
            CatalogError::ParameterCount { entries, parameter_entries } => {
                write!(f, "{parameter_entries} parameter lists for {entries} catalog entries")
            }
        }
    }
}

impl std::error::Error for CatalogError {}

/// A searchable set of tools.
///
/// Its lookups (by key, by id, by name) and its BM25 index are only needed
/// once something is looked up or searched: for a large catalog they are
/// built on a thread of its own while the caller goes on (a step with no
/// loaded tools never waits), and the first use waits for them.
pub struct Catalog {
    text: Arc<CatalogText>,
    entries: Arc<Vec<EntrySpans>>,
    /// The entries' parameters, for a ranking that reads them.
    params: Option<Arc<ParamTable>>,
    ranking: Ranking,
    built: BuildCell,
    /// For `'hybrid'` with vectors made elsewhere: one per document, once
    /// they are in ([`set_tool_vectors`](Catalog::set_tool_vectors)).
    given_vectors: OnceLock<ToolVectors>,
    /// The texts a `search_tools` pattern is matched against, made at the
    /// first such search.
    pattern_texts: OnceLock<PatternTexts>,
}

/// A catalog's strings: its own buffer and, for a catalog made from a
/// [`super::pool::ToolPool`], each entry's tool text as the pool keeps it,
/// shared rather than copied (a step catalog of thousands of pooled tools
/// would otherwise copy megabytes of descriptions, and keep them for as long
/// as the step lives).
pub(super) struct CatalogText {
    own: Vec<u16>,
    /// Per entry, its tool's text in the pool; empty when no span is in
    /// shared text.
    shared: Vec<Arc<[u16]>>,
    /// Per entry with shared text, the hash of its id (`hash_units`), as the
    /// pool keeps it: the lookups then read no shared text to hash it.
    id_hashes: Vec<u64>,
}

/// A span whose start and end carry this bit is within its entry's shared
/// text (see [`CatalogText`]), at the offsets without it. Own text is
/// shorter than this, so no span of it has the bit.
pub(super) const IN_SHARED: u32 = 1 << 31;

impl CatalogText {
    /// Text of its own only.
    fn own(own: Vec<u16>) -> CatalogText {
        CatalogText { own, shared: Vec::new(), id_hashes: Vec::new() }
    }

    /// Text of its own (keys that are not their tool's id) and each entry's
    /// shared tool text, with the hash of each entry's id (`hash_units` of
    /// its id, 0 for an entry without one).
    pub(super) fn with_shared(own: Vec<u16>, shared: Vec<Arc<[u16]>>, id_hashes: Vec<u64>) -> CatalogText {
        CatalogText { own, shared, id_hashes }
    }

    /// The text of `entry`'s `span` (checked by [`Catalog::check_text`]).
    #[inline]
    fn get(&self, entry: usize, span: Span) -> &[u16] {
        if span.start & IN_SHARED != 0 {
            &self.shared[entry][(span.start & !IN_SHARED) as usize..(span.end & !IN_SHARED) as usize]
        } else {
            &self.own[span.range()]
        }
    }

    /// Units of text in all, own and shared (shared text counted once per entry).
    fn len(&self) -> usize {
        self.own.len() + self.shared.iter().map(|text| text.len()).sum::<usize>()
    }
}

/// Everything built from the entries.
struct Built {
    lookups: Lookups,
    searchable: Searchable,
}

struct Lookups {
    /// Entry index by record key.
    by_key: HashTable<u32>,
    /// First entry (record order) by real `id`.
    by_id: HashTable<u32>,
    /// Live document by indexed name.
    by_name: HashTable<DocId>,
    /// Documents whose name a later entry took over.
    retired: Vec<bool>,
}

/// The BM25 index and the lowercased names for boosting. Document `i` is entry `i`.
struct Searchable {
    /// The reference's index (empty for another ranking).
    index: Bm25Index,
    /// The `'fielded'` ranking's index, when that is the ranking (or the
    /// lexical half of `'hybrid'`).
    fielded: Option<FieldedIndex>,
    /// `'hybrid'` with the built-in model: each document's vector (zeros for
    /// one a later entry retired), or `None` when the model cannot be read.
    vectors: Option<ToolVectors>,
    lower_names: Vec<u16>,
    /// Per document, its lowercased name as a range of `lower_names`.
    lower_name_ends: Vec<u32>,
}

struct BuildCell {
    ready: OnceLock<Built>,
    building: Mutex<Option<JoinHandle<Built>>>,
}

/// Catalogs with fewer entries than this are built at once: a thread costs
/// more than they do.
const BACKGROUND_INDEX_FROM_ENTRIES: usize = 256;

impl Catalog {
    /// Builds the catalog and its index from entries in record order.
    pub fn new(text: impl Into<Vec<u16>>, entries: Vec<EntrySpans>) -> Result<Catalog, CatalogError> {
        // Kept as vectors behind `Arc`s: turning megabytes into `Arc<[u16]>`
        // would copy them.
        Catalog::with_ranking(text, entries, Ranking::Reference, None)
    }

    /// [`Catalog::new`] with another ranking, and the entries' parameters for
    /// a ranking that reads them (one list per entry, in the same order).
    pub fn with_ranking(
        text: impl Into<Vec<u16>>,
        entries: Vec<EntrySpans>,
        ranking: Ranking,
        params: Option<ParamTable>,
    ) -> Result<Catalog, CatalogError> {
        let text: Vec<u16> = text.into();
        Catalog::check_table(text.len(), &entries)?;
        if let Some(params) = &params {
            if params.len() != entries.len() {
                return Err(CatalogError::ParameterCount { entries: entries.len(), parameter_entries: params.len() });
            }
        }
        Ok(Catalog::index_entries(Arc::new(CatalogText::own(text)), Arc::new(entries), ranking, params.map(Arc::new)))
    }

    /// Checks what [`Catalog::new`] refuses: spans outside the text, and
    /// catalogs too large for 32-bit indices.
    pub fn check_table(text_len: usize, entries: &[EntrySpans]) -> Result<(), CatalogError> {
        // Own text stays below `IN_SHARED`, so that no span of it has the bit.
        if text_len >= IN_SHARED as usize || u32::try_from(entries.len()).is_err() {
            return Err(CatalogError::TooLarge);
        }
        for (i, entry) in entries.iter().enumerate() {
            for span in [Some(entry.key), entry.id, Some(entry.description)].into_iter().flatten() {
                if span.start > span.end || span.end as usize > text_len {
                    return Err(CatalogError::BadSpan { entry: i, span, text_len });
                }
            }
        }
        Ok(())
    }

    /// [`check_table`](Self::check_table) for text that may be shared: a
    /// span with the [`IN_SHARED`] bit must lie within its entry's shared
    /// text, any other within the catalog's own.
    fn check_text(text: &CatalogText, entries: &[EntrySpans]) -> Result<(), CatalogError> {
        if text.shared.is_empty() {
            return Catalog::check_table(text.own.len(), entries);
        }
        if text.own.len() >= IN_SHARED as usize || u32::try_from(entries.len()).is_err() {
            return Err(CatalogError::TooLarge);
        }
        if text.shared.len() != entries.len() || text.id_hashes.len() != entries.len() {
            return Err(CatalogError::SharedTextCount { entries: entries.len(), shared: text.shared.len() });
        }
        for (i, entry) in entries.iter().enumerate() {
            for span in [Some(entry.key), entry.id, Some(entry.description)].into_iter().flatten() {
                let (shared, start, end) =
                    (span.start & IN_SHARED != 0, span.start & !IN_SHARED, span.end & !IN_SHARED);
                let text_len = if shared { text.shared[i].len() } else { text.own.len() };
                if shared != (span.end & IN_SHARED != 0) || start > end || end as usize > text_len {
                    return Err(CatalogError::BadSpan { entry: i, span, text_len });
                }
            }
        }
        Ok(())
    }

    /// Starts a catalog from individual strings (tests, small catalogs).
    pub fn builder() -> CatalogBuilder {
        CatalogBuilder::default()
    }

    /// Builds the lookups and the index: at once for a small catalog, on a
    /// thread for a large one.
    fn index_entries(
        text: Arc<CatalogText>,
        entries: Arc<Vec<EntrySpans>>,
        ranking: Ranking,
        params: Option<Arc<ParamTable>>,
    ) -> Catalog {
        Catalog::index_analysed(text, entries, ranking, params, None, true)
    }

    /// A catalog whose reference index was made from its entries' tokens as
    /// kept by a [`super::pool::ToolPool`] (`analysed`, one document per
    /// entry, for the reference's ranking), rather than from its text: only
    /// the lookups remain to build and the replaced documents to retire.
    /// `text` and `entries` are what [`Catalog::new`] takes, checked here.
    pub(super) fn from_analysis(
        text: CatalogText,
        entries: Vec<EntrySpans>,
        ranking: Ranking,
        params: Option<ParamTable>,
        analysed: Option<Partial>,
    ) -> Result<Catalog, CatalogError> {
        Catalog::check_text(&text, &entries)?;
        let analysed = analysed.filter(|a| ranking == Ranking::Reference && a.lower_name_ends.len() == entries.len());
        // What is left is cheap: done here rather than on a thread, whose
        // start (and, on a busy machine, its turn) costs more. Without an
        // analysis (another ranking) the index is built as for `new`.
        let background = analysed.is_none();
        Ok(Catalog::index_analysed(
            Arc::new(text),
            Arc::new(entries),
            ranking,
            params.map(Arc::new),
            analysed,
            background,
        ))
    }

    fn index_analysed(
        text: Arc<CatalogText>,
        entries: Arc<Vec<EntrySpans>>,
        ranking: Ranking,
        params: Option<Arc<ParamTable>>,
        analysed: Option<Partial>,
        background: bool,
    ) -> Catalog {
        let built = BuildCell { ready: OnceLock::new(), building: Mutex::new(None) };
        let source = Source { text: text.clone(), entries: entries.clone(), ranking, params: params.clone(), analysed };
        let catalog = Catalog {
            text,
            entries,
            params,
            ranking,
            built,
            given_vectors: OnceLock::new(),
            pattern_texts: OnceLock::new(),
        };
        if !(background && catalog.entries.len() >= BACKGROUND_INDEX_FROM_ENTRIES) {
            let _ = catalog.built.ready.set(source.build());
            return catalog;
        }
        match std::thread::Builder::new().name("tool-search-index".into()).spawn(move || source.build()) {
            Ok(handle) => *catalog.built.building.lock() = Some(handle),
            // No thread to be had: build here.
            Err(_) => {
                let _ = catalog.built.ready.set(catalog.source().build());
            }
        }
        catalog
    }

    /// Number of indexed documents, i.e. distinct names (the reference's
    /// `index.size`, which is the search limit when a filter is set).
    pub fn len(&self) -> usize {
        self.lookups().by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lookups().by_name.is_empty()
    }

    /// Number of record entries.
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// The record key of an entry.
    pub fn key(&self, entry: usize) -> &[u16] {
        self.text.get(entry, self.entries[entry].key)
    }

    /// The real `id` of an entry, if it has one (`''` included).
    pub fn id(&self, entry: usize) -> Option<&[u16]> {
        self.entries[entry].id.map(|span| self.text.get(entry, span))
    }

    /// The name an entry is indexed under: `id || key`.
    pub fn name(&self, entry: usize) -> &[u16] {
        self.text.get(entry, self.entries[entry].name())
    }

    /// The description of an entry (`''` when it had none).
    pub fn description(&self, entry: usize) -> &[u16] {
        self.text.get(entry, self.entries[entry].description)
    }

    /// How this catalog ranks.
    pub fn ranking(&self) -> Ranking {
        self.ranking
    }

    /// The parameters of an entry, `(name, description)`, when the catalog
    /// was given them.
    pub fn parameters(&self, entry: usize) -> impl Iterator<Item = (&[u16], &[u16])> + '_ {
        self.params.iter().flat_map(move |params| params.entry(entry))
    }

    /// What a `search_tools` pattern is matched against: the live
    /// documents' names, descriptions and parameters (those the catalog was
    /// given), made the first time they are asked for.
    pub fn pattern_texts(&self) -> &PatternTexts {
        self.pattern_texts.get_or_init(|| {
            let mut texts = PatternTexts::default();
            for entry in 0..self.entry_count() {
                let doc = entry as DocId;
                // A name a later entry took over is no document.
                if self.find_doc(self.name(entry)) == Some(doc) {
                    texts.push_doc(doc, self.name(entry), self.description(entry), self.parameters(entry));
                }
            }
            texts
        })
    }

    /// The first entry, in record order, whose real `id` is `name`
    /// (`Object.values(tools).find(t => t.id === name)`). An id-less entry is
    /// never found this way, although it is indexed under its key.
    pub fn find_by_id(&self, name: &[u16]) -> Option<usize> {
        self.lookups().by_id.find(hash_units(name), |&e| self.id(e as usize) == Some(name)).map(|&e| e as usize)
    }

    /// The entry whose record key is `name` (own keys only).
    pub fn find_by_key(&self, name: &[u16]) -> Option<usize> {
        self.lookups().by_key.find(hash_units(name), |&e| self.key(e as usize) == name).map(|&e| e as usize)
    }

    /// How the processor resolves a name the model typed: by key first, then
    /// by id; with a filter hook configured, by id first, then by key.
    pub fn find_for_dynamic_name(&self, name: &[u16], has_filter: bool) -> Option<usize> {
        if has_filter {
            self.find_by_id(name).or_else(|| self.find_by_key(name))
        } else {
            self.find_by_key(name).or_else(|| self.find_by_id(name))
        }
    }

    /// The live document indexed under `name`.
    pub fn find_doc(&self, name: &[u16]) -> Option<DocId> {
        self.lookups().by_name.find(hash_units(name), |&d| self.doc_name(d) == name).copied()
    }

    /// Record keys (as entry indices, in record order) that look like
    /// `tool_name`: either contains the other, case-insensitively. The
    /// reference offers these as "Did you mean" suggestions.
    pub fn suggestion_candidates(&self, tool_name: &[u16]) -> Vec<usize> {
        let mut matches = suggestion_matcher(tool_name);
        (0..self.entries.len()).filter(|&e| matches(self.key(e))).collect()
    }

    /// The name a document is indexed under.
    pub fn doc_name(&self, doc: DocId) -> &[u16] {
        self.name(self.doc_entry(doc))
    }

    /// The entry a document was built from (the last one with its name).
    pub fn doc_entry(&self, doc: DocId) -> usize {
        doc as usize
    }

    /// The lowercased name of a document.
    pub fn doc_lower_name(&self, doc: DocId) -> &[u16] {
        let searchable = self.searchable();
        let start = if doc == 0 { 0 } else { searchable.lower_name_ends[doc as usize - 1] };
        &searchable.lower_names[start as usize..searchable.lower_name_ends[doc as usize] as usize]
    }

    /// The BM25 index, waiting for its thread the first time if need be.
    pub(crate) fn index(&self) -> &Bm25Index {
        &self.searchable().index
    }

    fn searchable(&self) -> &Searchable {
        &self.built().searchable
    }

    fn lookups(&self) -> &Lookups {
        &self.built().lookups
    }

    /// What was built, waiting for its thread the first time if need be.
    fn built(&self) -> &Built {
        if let Some(built) = self.built.ready.get() {
            return built;
        }
        let mut building = self.built.building.lock();
        if let Some(handle) = building.take() {
            // The build only reads checked spans; should it panic all the
            // same, build again here rather than unwind into the host.
            let built = handle.join().unwrap_or_else(|_| self.source().build());
            let _ = self.built.ready.set(built);
        }
        drop(building);
        self.built.ready.get_or_init(|| self.source().build())
    }

    fn source(&self) -> Source {
        Source {
            text: self.text.clone(),
            entries: self.entries.clone(),
            ranking: self.ranking,
            params: self.params.clone(),
            analysed: None,
        }
    }

    /// The `'fielded'` index, when that is this catalog's ranking (or the
    /// lexical half of its `'hybrid'` ranking).
    pub(crate) fn fielded_index(&self) -> Option<&FieldedIndex> {
        self.searchable().fielded.as_ref()
    }

    /// The documents' vectors, for `'hybrid'`: the built-in model's, or
    /// those given once they are in.
    pub(crate) fn tool_vectors(&self) -> Option<&ToolVectors> {
        self.searchable().vectors.as_ref().or_else(|| self.given_vectors.get())
    }

    /// The text an entry's vector is made from ([`hybrid::tool_text`]): for
    /// an embedding model of the user's to embed.
    pub fn tool_text(&self, entry: usize) -> String {
        let parameters = self.parameters(entry);
        hybrid::tool_text(self.name(entry), self.description(entry), parameters)
    }

    /// Sets the entries' vectors (one per entry, in record order, each
    /// scaled to unit length here; an entry without one, zeros), for a
    /// `'hybrid'` catalog whose vectors are made elsewhere. The first set
    /// stays; `false` if there was one, or this catalog takes none.
    pub fn set_tool_vectors(&self, mut vectors: ToolVectors) -> bool {
        let takes = matches!(self.ranking, Ranking::Hybrid(HybridConfig { vectors: VectorSource::Given, .. }));
        if !takes || vectors.len() != self.entries.len() {
            return false;
        }
        // A document a later entry retired is never found by its vector.
        let retired = &self.lookups().retired;
        for (doc, _) in retired.iter().enumerate().filter(|(_, &r)| r) {
            vectors.clear(doc);
        }
        self.given_vectors.set(vectors).is_ok()
    }

    /// What the catalog's index is built from, for tests that build it apart.
    #[cfg(test)]
    fn index_source(&self) -> IndexSource {
        IndexSource {
            text: self.text.clone(),
            entries: self.entries.clone(),
            retired: self.lookups().retired.clone(),
            ranking: self.ranking,
            params: self.params.clone(),
        }
    }
}

/// The entries to build from, shareable with the building thread.
struct Source {
    text: Arc<CatalogText>,
    entries: Arc<Vec<EntrySpans>>,
    ranking: Ranking,
    params: Option<Arc<ParamTable>>,
    /// The reference's index of every entry, already made from tokens kept
    /// from an earlier analysis (see [`Catalog::from_analysis`]), only to be
    /// finished.
    analysed: Option<Partial>,
}

impl Source {
    fn build(mut self) -> Built {
        if let Some(analysed) = self.analysed.take() {
            let lookups = self.lookups();
            return Built { searchable: analysed.finish(&lookups.retired), lookups };
        }
        let mut index = IndexSource {
            text: self.text.clone(),
            entries: self.entries.clone(),
            retired: Vec::new(),
            ranking: self.ranking,
            params: self.params.clone(),
        };
        if self.ranking == Ranking::Reference {
            // The documents retire only once indexed, so the lookups (which
            // say which retire) are made meanwhile: the first search waits
            // for the longer of the two, not for both.
            let (partial, lookups) = index.index_entries(index.split_point_beside_lookups(), || self.lookups());
            return Built { searchable: partial.finish(&lookups.retired), lookups };
        }
        // The `'fielded'` builder leaves retired documents out as it goes.
        let lookups = self.lookups();
        index.retired = lookups.retired.clone();
        Built { lookups, searchable: index.build() }
    }

    fn lookups(&self) -> Lookups {
        let (text, entries) = (&self.text, &self.entries);
        let count = entries.len();
        let mut by_key: HashTable<u32> = HashTable::with_capacity(count);
        let mut by_id: HashTable<u32> = HashTable::with_capacity(count);
        let mut by_name: HashTable<DocId> = HashTable::with_capacity(count);
        // Each entry adds one document, so document `i` is entry `i`; a name
        // added again retires its earlier document.
        let mut retired = vec![false; count];
        for entry in 0..count as u32 {
            let spans = entries[entry as usize];
            let key_of = |e: &u32| text.get(*e as usize, entries[*e as usize].key);
            let id_of = |e: &u32| entries[*e as usize].id.map_or(&[][..], |span| text.get(*e as usize, span));
            let name_of = |d: &DocId| text.get(*d as usize, entries[*d as usize].name());

            // Each text is hashed once: most tools are keyed by their id, so
            // key, id and name are usually one text and one hash.
            let key = text.get(entry as usize, spans.key);
            let id_hash = |id: &[u16]| text.id_hashes.get(entry as usize).copied().unwrap_or_else(|| hash_units(id));
            let key_hash = match spans.id {
                Some(span) if span == spans.key => id_hash(key),
                _ => hash_units(key),
            };
            let id = spans.id.map(|span| {
                let id = text.get(entry as usize, span);
                (id, if span == spans.key || id == key { key_hash } else { id_hash(id) })
            });

            // Record keys are unique in a JS object; should a caller repeat
            // one anyway, the later entry wins, like a repeated assignment.
            match by_key.find_mut(key_hash, |e| key_of(e) == key) {
                Some(existing) => *existing = entry,
                None => {
                    by_key.insert_unique(key_hash, entry, |e| hash_units(key_of(e)));
                }
            }

            if let Some((id, id_hash)) = id {
                if by_id.find(id_hash, |e| id_of(e) == id).is_none() {
                    by_id.insert_unique(id_hash, entry, |e| hash_units(id_of(e)));
                }
            }

            // The name is the id, unless that is absent or empty.
            let (name, name_hash) = id.filter(|(id, _)| !id.is_empty()).unwrap_or((key, key_hash));
            match by_name.find_mut(name_hash, |d| name_of(d) == name) {
                Some(existing) => {
                    // Same name again: the old document leaves the index and
                    // this one goes to the end of every insertion order.
                    retired[*existing as usize] = true;
                    *existing = entry;
                }
                None => {
                    by_name.insert_unique(name_hash, entry, |d| hash_units(name_of(d)));
                }
            }
        }

        Lookups { by_key, by_id, by_name, retired }
    }
}

/// What building the index needs, shareable with its thread.
struct IndexSource {
    text: Arc<CatalogText>,
    entries: Arc<Vec<EntrySpans>>,
    /// Documents whose name a later entry took over.
    retired: Vec<bool>,
    ranking: Ranking,
    params: Option<Arc<ParamTable>>,
}

impl IndexSource {
    fn build(&self) -> Searchable {
        let split = self.entries.len() >= SPLIT_FROM_ENTRIES;
        match self.ranking {
            Ranking::Reference => self.build_split(split),
            Ranking::Fielded(config) => self.build_fielded(config, split),
            Ranking::Hybrid(config) => self.build_hybrid(config, split),
        }
    }

    /// The `'fielded'` index and, with the built-in model, every live
    /// document's vector, made beside it on a second thread for a large
    /// catalog (embedding costs about as much as indexing).
    fn build_hybrid(&self, config: HybridConfig, split: bool) -> Searchable {
        let builtin = BuiltinModel::current().filter(|_| config.vectors == VectorSource::BuiltIn);
        let Some(builtin) = builtin else {
            return self.build_fielded(config.fielded, split);
        };
        let count = self.entries.len();
        let weight = config.parameter_weight;
        if count < BACKGROUND_INDEX_FROM_ENTRIES {
            let mut searchable = self.build_fielded(config.fielded, false);
            searchable.vectors = self.embed_entries(&builtin, weight, 0..count);
            return searchable;
        }
        // Embedding costs about as much as indexing: a catalog split for its
        // index is embedded in two halves too, each on a thread of its own.
        let middle = if split { count / 2 } else { count };
        let (mut searchable, vectors) = std::thread::scope(|scope| {
            let halves = [0..middle, middle..count].map(|range| {
                let fallback = range.clone();
                let thread =
                    std::thread::Builder::new().spawn_scoped(scope, || self.embed_entries(&builtin, weight, range));
                (thread, fallback)
            });
            let searchable = self.build_fielded(config.fielded, split);
            let mut vectors: Option<ToolVectors> = None;
            for (thread, range) in halves {
                let half = match thread.map(|handle| handle.join()) {
                    Ok(Ok(half)) => half,
                    // No thread to be had, or it failed: embed here.
                    _ => self.embed_entries(&builtin, weight, range),
                };
                vectors = match (vectors, half) {
                    (None, half) => half,
                    (Some(mut first), Some(second)) => {
                        first.append(second);
                        Some(first)
                    }
                    (Some(_), None) => None,
                };
            }
            (searchable, vectors)
        });
        searchable.vectors = vectors;
        searchable
    }

    /// The vectors of the live documents of `entries` (in order) from the
    /// built-in model, each of its name and description and its parameters
    /// (at `parameter_weight`: [`hybrid::tool_text_parts`]); `None` when it
    /// cannot be read (the catalog then ranks as `'fielded'`).
    fn embed_entries(
        &self,
        builtin: &BuiltinModel,
        parameter_weight: f32,
        entries: std::ops::Range<usize>,
    ) -> Option<ToolVectors> {
        let model = builtin.get().ok()?;
        let first = entries.start;
        let mut vectors = ToolVectors::zeros(model.dimensions(), entries.len());
        let mut scratch = EmbedScratch::default();
        for entry in entries {
            if !self.retired[entry] {
                let spans = &self.entries[entry];
                let parameters = self.params.iter().flat_map(|params| params.entry(entry));
                let (text, parameters) = hybrid::tool_text_parts(
                    self.text.get(entry, spans.name()),
                    self.text.get(entry, spans.description),
                    parameters,
                );
                let fields = [(&text[..], 1.0), (&parameters[..], parameter_weight)];
                builtin.embed_into(model, &fields, &mut vectors, entry - first, &mut scratch);
            }
        }
        Some(vectors)
    }

    /// The `'fielded'` index (in two halves at once for a large catalog, as
    /// for the reference), and the lowercased names as for the reference.
    fn build_fielded(&self, config: FieldedConfig, split: bool) -> Searchable {
        let count = self.entries.len();
        let mut lower_names = Vec::new();
        let mut lower_name_ends = Vec::with_capacity(count);
        for (entry, spans) in self.entries.iter().enumerate() {
            to_lower_utf16_into(self.text.get(entry, spans.name()), &mut lower_names);
            lower_name_ends.push(lower_names.len() as u32);
        }
        let (mut first, second) = if split {
            let middle = count / 2;
            std::thread::scope(|scope| {
                let second =
                    std::thread::Builder::new().spawn_scoped(scope, || self.build_fielded_range(config, middle..count));
                let first = self.build_fielded_range(config, 0..middle);
                match second.map(|handle| handle.join()) {
                    Ok(Ok(second)) => (first, Some(second)),
                    _ => (first, None),
                }
            })
        } else {
            (self.build_fielded_range(config, 0..count), None)
        };
        match second {
            Some(second) => first.append(second),
            None if first.len() < count => {
                let rest = self.build_fielded_range(config, first.len()..count);
                first.append(rest);
            }
            None => {}
        }
        Searchable {
            index: Bm25Index::default(),
            fielded: Some(first.finish()),
            vectors: None,
            lower_names,
            lower_name_ends,
        }
    }

    fn build_fielded_range(&self, config: FieldedConfig, entries: std::ops::Range<usize>) -> FieldedBuilder {
        let mut builder = FieldedBuilder::new(config);
        let mut parameters: Vec<(&[u16], &[u16])> = Vec::new();
        for entry in entries {
            let spans = &self.entries[entry];
            parameters.clear();
            if let Some(params) = &self.params {
                parameters.extend(params.entry(entry));
            }
            let fields = FieldTexts {
                name: self.text.get(entry, spans.name()),
                description: self.text.get(entry, spans.description),
                parameters: &parameters,
            };
            builder.add(&fields, !self.retired[entry]);
        }
        builder
    }

    /// Indexes every entry as `"<name> <description>"`, lowercased, then
    /// retires the replaced documents (which leaves the same index as
    /// retiring each as it is replaced: retired documents only drop out).
    fn build_split(&self, split: bool) -> Searchable {
        let middle = if split { self.entries.len() / 2 } else { self.entries.len() };
        let (partial, ()) = self.index_entries(middle, || ());
        partial.finish(&self.retired)
    }

    /// Where to split a large catalog's entries when this thread also makes
    /// the lookups: it takes fewer entries, by about what the lookups cost
    /// (measured: about a sixth of indexing as many entries), so that both
    /// threads end together. Small catalogs are not split.
    fn split_point_beside_lookups(&self) -> usize {
        let count = self.entries.len();
        if count < SPLIT_FROM_ENTRIES {
            return count;
        }
        count * 5 / 12
    }

    /// The index of every entry, the entries from `middle` on indexed on a
    /// second thread, and what `meanwhile` gives, called on this thread
    /// before it indexes the entries before `middle`.
    fn index_entries<R>(&self, middle: usize, meanwhile: impl FnOnce() -> R) -> (Partial, R) {
        let count = self.entries.len();
        let middle = middle.min(count);
        let (mut first, second, meant) = if middle < count {
            std::thread::scope(|scope| {
                let second = std::thread::Builder::new().spawn_scoped(scope, || self.build_range(middle..count));
                let meant = meanwhile();
                let first = self.build_range(0..middle);
                match second.map(|handle| handle.join()) {
                    Ok(Ok(second)) => (first, Some(second), meant),
                    // No second thread, or it failed: index the rest here.
                    _ => (first, None, meant),
                }
            })
        } else {
            let meant = meanwhile();
            (self.build_range(0..count), None, meant)
        };
        match second {
            Some(second) => first.append(second),
            None if first.lower_name_ends.len() < count => {
                let rest = self.build_range(first.lower_name_ends.len()..count);
                first.append(rest);
            }
            None => {}
        }
        (first, meant)
    }

    fn build_range(&self, entries: std::ops::Range<usize>) -> Partial {
        let mut index =
            Bm25Builder::with_capacity(entries.len(), self.text.len() * entries.len() / self.entries.len().max(1));
        let first = entries.start;
        let mut lower_names = Vec::new();
        let mut lower_name_ends = Vec::with_capacity(entries.len());
        let mut lower_description = Vec::new();
        for (entry, spans) in self.entries[entries].iter().enumerate() {
            let entry = first + entry;
            let start = lower_names.len();
            to_lower_utf16_into(self.text.get(entry, spans.name()), &mut lower_names);
            lower_name_ends.push(lower_names.len() as u32);
            lower_description.clear();
            to_lower_utf16_into(self.text.get(entry, spans.description), &mut lower_description);
            index.add(&[&lower_names[start..], &lower_description]);
        }
        Partial { index, lower_names, lower_name_ends }
    }
}

/// The index of a run of entries, before the replaced documents retire.
pub(super) struct Partial {
    pub(super) index: Bm25Builder,
    /// Per entry, its lowercased name, as in [`Searchable`].
    pub(super) lower_names: Vec<u16>,
    pub(super) lower_name_ends: Vec<u32>,
}

impl Partial {
    /// The searchable index, once the documents a later entry replaced retire.
    fn finish(self, retired: &[bool]) -> Searchable {
        let Partial { mut index, lower_names, lower_name_ends } = self;
        for (doc, &retired) in retired.iter().enumerate() {
            if retired {
                index.remove(doc as DocId);
            }
        }
        Searchable { index: index.finish(), fielded: None, vectors: None, lower_names, lower_name_ends }
    }

    /// Appends the run that follows this one.
    pub(super) fn append(&mut self, next: Partial) {
        self.index.append(next.index);
        let offset = self.lower_names.len() as u32;
        self.lower_names.extend(next.lower_names);
        self.lower_name_ends.extend(next.lower_name_ends.into_iter().map(|end| end + offset));
    }
}

/// Collects entries one string at a time into a single buffer.
#[derive(Default)]
pub struct CatalogBuilder {
    pub(super) text: Vec<u16>,
    pub(super) entries: Vec<EntrySpans>,
    /// The entries' parameters, from the first entry pushed with some.
    params: Option<ParamTable>,
    ranking: Ranking,
    /// Whether the catalog keeps the parameters whatever its ranking.
    keeps_parameters: bool,
}

impl CatalogBuilder {
    /// Appends an entry: record key, `tool.id` (if a non-empty string) and
    /// `tool.description || ''`.
    pub fn push(&mut self, key: &[u16], id: Option<&[u16]>, description: &[u16]) -> &mut Self {
        let key = self.append(key);
        let id = id.map(|id| self.append(id));
        let description = self.append(description);
        self.entries.push(EntrySpans { key, id, description });
        if let Some(params) = &mut self.params {
            params.push([]);
        }
        self
    }

    /// [`push`](Self::push), with the tool's parameters as `(name, description)`.
    pub fn push_with_parameters<'p>(
        &mut self,
        key: &[u16],
        id: Option<&[u16]>,
        description: &[u16],
        parameters: impl IntoIterator<Item = (&'p [u16], &'p [u16])>,
    ) -> &mut Self {
        let key = self.append(key);
        let id = id.map(|id| self.append(id));
        let description = self.append(description);
        self.entries.push(EntrySpans { key, id, description });
        let earlier = self.entries.len() - 1;
        self.params
            .get_or_insert_with(|| {
                let mut params = ParamTable::new();
                for _ in 0..earlier {
                    params.push([]);
                }
                params
            })
            .push(parameters);
        self
    }

    /// Room for `text_len` more units of text and `entries` more entries.
    pub fn reserve(&mut self, text_len: usize, entries: usize) -> &mut Self {
        self.text.reserve(text_len);
        self.entries.reserve(entries);
        self
    }

    /// The ranking the catalog will use (the reference's unless set).
    pub fn ranking(&mut self, ranking: Ranking) -> &mut Self {
        self.ranking = ranking;
        self
    }

    /// Keeps the entries' parameters even when the ranking does not read
    /// them (for a `search_tools` pattern, which is matched against them).
    pub fn keep_parameters(&mut self, keep: bool) -> &mut Self {
        self.keeps_parameters = keep;
        self
    }

    /// [`push`](Self::push) with Rust strings.
    pub fn push_str(&mut self, key: &str, id: Option<&str>, description: &str) -> &mut Self {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        self.push(&units(key), id.map(units).as_deref(), &units(description))
    }

    fn append(&mut self, units: &[u16]) -> Span {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(units);
        Span::new(start, self.text.len() as u32)
    }

    pub fn build(self) -> Result<Catalog, CatalogError> {
        let params = self.params.filter(|_| self.ranking.reads_parameters() || self.keeps_parameters);
        Catalog::with_ranking(self.text, self.entries, self.ranking, params)
    }

    /// The text and spans, for [`Catalog::new`] elsewhere.
    pub fn into_parts(self) -> (Vec<u16>, Vec<EntrySpans>) {
        (self.text, self.entries)
    }
}

/// Whether a record key looks like `tool_name`, as the reference's
/// suggestions decide: either contains the other, case-insensitively.
pub fn suggestion_matcher(tool_name: &[u16]) -> impl FnMut(&[u16]) -> bool {
    let wanted = to_lower_utf16(tool_name);
    let mut lower = Vec::new();
    move |key| {
        lower.clear();
        to_lower_utf16_into(key, &mut lower);
        contains_units(&lower, &wanted) || contains_units(&wanted, &lower)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn catalog(entries: &[(&str, Option<&str>, &str)]) -> Catalog {
        let mut builder = Catalog::builder();
        for &(key, id, description) in entries {
            builder.push_str(key, id, description);
        }
        builder.build().unwrap()
    }

    #[test]
    fn lookups_by_key_and_id() {
        let c = catalog(&[
            ("weatherKey", Some("get-weather"), "Weather"),
            ("noId", None, "No id here"),
            ("second", Some("get-weather"), "Also weather"),
            ("get-weather", Some("other"), "Key that equals an id"),
        ]);
        assert_eq!(c.entry_count(), 4);
        assert_eq!(c.find_by_id(&u("get-weather")), Some(0));
        assert_eq!(c.find_by_id(&u("noId")), None);
        assert_eq!(c.find_by_key(&u("noId")), Some(1));
        assert_eq!(c.find_by_key(&u("get-weather")), Some(3));
        assert_eq!(c.find_by_key(&u("missing")), None);
        // Without a filter the key wins; with one the id does.
        assert_eq!(c.find_for_dynamic_name(&u("get-weather"), false), Some(3));
        assert_eq!(c.find_for_dynamic_name(&u("get-weather"), true), Some(0));
        assert_eq!(c.find_for_dynamic_name(&u("noId"), true), Some(1));
        assert_eq!(c.find_for_dynamic_name(&u("other"), false), Some(3));
    }

    #[test]
    fn duplicate_names_are_one_document_with_the_last_description() {
        let c = catalog(&[("a", Some("dup"), "first"), ("b", None, "plain"), ("c", Some("dup"), "second")]);
        // Names: dup, b, dup => two documents.
        assert_eq!(c.len(), 2);
        // Results show the description of the last entry under a name.
        let description = |name: &str| c.find_doc(&u(name)).map(|d| c.description(c.doc_entry(d)).to_vec());
        assert_eq!(description("dup"), Some(u("second")));
        assert_eq!(description("b"), Some(u("plain")));
        assert_eq!(description("a"), None);
        let doc = c.find_doc(&u("dup")).unwrap();
        assert_eq!(c.doc_entry(doc), 2);
        // find_by_id still returns the first entry carrying the id.
        assert_eq!(c.find_by_id(&u("dup")), Some(0));
    }

    #[test]
    fn empty_id_indexes_under_the_key_but_is_still_an_id() {
        let mut builder = Catalog::builder();
        builder.push(&u("k"), Some(&[]), &u("desc"));
        builder.push(&u("j"), None, &u("desc"));
        let c = builder.build().unwrap();
        assert_eq!(c.id(0), Some(&[][..]));
        assert_eq!(c.name(0), &u("k")[..]);
        // `Object.values(tools).find(t => t.id === '')` finds it.
        assert_eq!(c.find_by_id(&[]), Some(0));
        assert_eq!(c.find_doc(&u("k")), Some(0));
    }

    #[test]
    fn suggestions_match_either_way_case_insensitively() {
        let c = catalog(&[
            ("getWeather", None, ""),
            ("weather", None, ""),
            ("sendEmail", None, ""),
            ("WEATHERFORECASTX", None, ""),
        ]);
        // 'weather' contains... no; 'getweather'.includes('weather') yes.
        assert_eq!(c.suggestion_candidates(&u("Weather")), vec![0, 1, 3]);
        // The typed name contains the key: 'getweathernow'.includes('getweather').
        assert_eq!(c.suggestion_candidates(&u("getWeatherNow")), vec![0, 1]);
        // An empty name is contained in every key.
        assert_eq!(c.suggestion_candidates(&[]), vec![0, 1, 2, 3]);
    }

    #[test]
    fn bad_spans_are_rejected() {
        let text: Vec<u16> = u("abc");
        let bad = EntrySpans { key: Span::new(0, 4), id: None, description: Span::new(0, 0) };
        assert!(matches!(Catalog::new(text.clone(), vec![bad]), Err(CatalogError::BadSpan { entry: 0, .. })));
        let reversed = EntrySpans { key: Span::new(2, 1), id: None, description: Span::new(0, 0) };
        assert!(Catalog::new(text, vec![reversed]).is_err());
    }

    /// A span of an entry's shared text.
    fn shared(start: u32, end: u32) -> Span {
        Span::new(start | IN_SHARED, end | IN_SHARED)
    }

    fn from_shared(own: &str, shared: &[&str], entries: Vec<EntrySpans>) -> Result<Catalog, CatalogError> {
        let shared: Vec<Arc<[u16]>> = shared.iter().map(|text| Arc::from(u(text))).collect();
        let id_hashes = entries
            .iter()
            .zip(&shared)
            .map(|(e, text)| {
                e.id.map_or(0, |id| hash_units(&text[(id.start & !IN_SHARED) as usize..(id.end & !IN_SHARED) as usize]))
            })
            .collect();
        Catalog::from_analysis(
            CatalogText::with_shared(u(own), shared, id_hashes),
            entries,
            Ranking::Reference,
            None,
            None,
        )
    }

    #[test]
    fn shared_text_reads_as_the_same_text_copied() {
        // Entry 0 keyed by its id, entry 1 by a key of the catalog's own.
        let entries = vec![
            EntrySpans { key: shared(0, 7), id: Some(shared(0, 7)), description: shared(7, 22) },
            EntrySpans { key: Span::new(0, 4), id: Some(shared(0, 4)), description: shared(4, 17) },
        ];
        let pooled = from_shared("mail", &["weatherCurrent weather", "sendSend an email"], entries).unwrap();
        let copied =
            catalog(&[("weather", Some("weather"), "Current weather"), ("mail", Some("send"), "Send an email")]);
        for entry in 0..2 {
            assert_eq!(pooled.key(entry), copied.key(entry));
            assert_eq!(pooled.id(entry), copied.id(entry));
            assert_eq!(pooled.name(entry), copied.name(entry));
            assert_eq!(pooled.description(entry), copied.description(entry));
        }
        assert_eq!(pooled.find_by_key(&u("mail")), Some(1));
        assert_eq!(pooled.find_by_id(&u("send")), Some(1));
        assert_eq!(pooled.find_doc(&u("weather")), copied.find_doc(&u("weather")));
        let options = crate::search::SearchOptions::default();
        assert_eq!(pooled.search(&u("email weather"), &options), copied.search(&u("email weather"), &options));
    }

    #[test]
    fn bad_shared_spans_are_rejected() {
        let entry = |key, description| EntrySpans { key, id: None, description };
        // Past the entry's shared text (its own, not another entry's).
        let past = vec![entry(shared(0, 5), shared(0, 0)), entry(shared(0, 2), shared(0, 0))];
        assert!(matches!(from_shared("", &["ab", "abcdef"], past), Err(CatalogError::BadSpan { entry: 0, .. })));
        let reversed = vec![entry(shared(2, 1), shared(0, 0))];
        assert!(matches!(from_shared("", &["ab"], reversed), Err(CatalogError::BadSpan { entry: 0, .. })));
        // One end shared, the other not.
        let mixed = vec![entry(Span::new(IN_SHARED, 1), shared(0, 0))];
        assert!(matches!(from_shared("abc", &["ab"], mixed), Err(CatalogError::BadSpan { entry: 0, .. })));
        // Shared text for another number of entries.
        let two = vec![entry(shared(0, 1), shared(0, 0)), entry(shared(0, 1), shared(0, 0))];
        assert_eq!(from_shared("", &["ab"], two).err(), Some(CatalogError::SharedTextCount { entries: 2, shared: 1 }));
        // A shared span in a catalog without shared text is past its own.
        let text = u("abc");
        let stray = EntrySpans { key: shared(0, 1), id: None, description: Span::new(0, 0) };
        assert!(matches!(Catalog::new(text, vec![stray]), Err(CatalogError::BadSpan { entry: 0, .. })));
    }

    #[test]
    fn a_fielded_index_built_in_halves_ranks_like_one_built_in_one_pass() {
        let mut rng = crate::test_rng::Rng::new(11);
        let words =
            ["weather", "Email", "getForecast", "send_message", "db", "query", "İstanbul", "ツール", "x", "reports"];
        let mut builder = Catalog::builder();
        builder.ranking(Ranking::FIELDED);
        for i in 0..5000 {
            let mut text = |n: u64| {
                let mut s = String::new();
                for _ in 0..(rng.next() % n) {
                    s.push_str(words[(rng.next() % 10) as usize]);
                    s.push(' ');
                }
                s
            };
            let (description, param) = (u(&text(12)), u(&text(4)));
            let id = format!("tool_{}", rng.next() % 4000);
            builder.push_with_parameters(
                &u(&format!("key{i}")),
                Some(&u(&id)),
                &description,
                [(&u("p")[..], &param[..])],
            );
        }
        let catalog = builder.build().unwrap();
        let source = catalog.index_source();
        let Ranking::Fielded(config) = catalog.ranking() else { unreachable!() };
        let (halves, whole) = (source.build_fielded(config, true), source.build_fielded(config, false));
        let (halves, whole) = (halves.fielded.unwrap(), whole.fielded.unwrap());
        assert_eq!(halves.len(), whole.len());
        for query in ["weather email", "forecast messages", "tool_17 db db", "ツール report x", "i̇stanbul send query"]
        {
            let (a, b) = (halves.search(&u(query), 1e9), whole.search(&u(query), 1e9));
            assert!(!a.is_empty(), "{query}");
            assert_eq!(a, b, "{query}");
        }
    }

    #[test]
    fn a_hybrid_catalog_embedded_in_halves_has_the_vectors_of_one_pass() {
        BuiltinModel::locate(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/models/potion-base-8m/potion-base-8m.m2v"
        )));
        let mut rng = crate::test_rng::Rng::new(5);
        let words = ["weather", "Email", "getForecast", "send_message", "psychologist", "sort", "ツール", "numbers"];
        let mut builder = Catalog::builder();
        builder.ranking(Ranking::HYBRID);
        for i in 0..4200 {
            let mut description = String::new();
            for _ in 0..(rng.next() % 8) {
                description.push_str(words[(rng.next() % 8) as usize]);
                description.push(' ');
            }
            let id = format!("tool_{}", rng.next() % 3000);
            builder.push_with_parameters(&u(&format!("key{i}")), Some(&u(&id)), &u(&description), []);
        }
        let catalog = builder.build().unwrap();
        let source = catalog.index_source();
        let (halves, whole) =
            (source.build_hybrid(HybridConfig::DEFAULT, true), source.build_hybrid(HybridConfig::DEFAULT, false));
        let (halves, whole) = (halves.vectors.unwrap(), whole.vectors.unwrap());
        assert_eq!(halves.len(), 4200);
        assert_eq!(halves, whole);
        // Retired documents have no vector.
        let retired = source.retired.iter().position(|&r| r).unwrap();
        assert_eq!(halves.quantized(retired), (&[0i8; 256][..], 0.0));
        assert!(!catalog.rank(&u("a psychologist"), 10.0).is_empty());
    }

    #[test]
    fn an_index_built_in_halves_scores_like_one_built_in_one_pass() {
        let mut rng = crate::test_rng::Rng::new(7);
        let words = ["weather", "email", "Σigma", "İstanbul", "db", "query", "send", "x", "report", "ツール"];
        let mut builder = Catalog::builder();
        for i in 0..5000 {
            let mut description = String::new();
            for _ in 0..(rng.next() % 12) {
                description.push_str(words[(rng.next() % 10) as usize]);
                description.push(' ');
            }
            // Repeated names retire earlier documents, in both halves and across them.
            let id = format!("tool_{}", rng.next() % 4000);
            builder.push_str(&format!("key{i}"), Some(&id), &description);
        }
        let catalog = builder.build().unwrap();
        let source = catalog.index_source();
        let (halves, whole) = (source.build_split(true), source.build_split(false));
        assert_eq!(halves.lower_names, whole.lower_names);
        assert_eq!(halves.lower_name_ends, whole.lower_name_ends);
        assert_eq!(halves.index.len(), whole.index.len());
        for query in ["weather email", "σigma", "tool_17 db db", "ツール report x", "i̇stanbul send query"] {
            let lowered = to_lower_utf16(&u(query));
            let mut terms: Vec<&[u16]> = Vec::new();
            crate::search::for_each_token(&lowered, |t| terms.push(t));
            let (a, b) = (halves.index.score(terms.iter().copied()), whole.index.score(terms.iter().copied()));
            // The catalog's own: split unevenly, its lookups made meanwhile.
            let own = catalog.index().score(terms.iter().copied());
            assert_eq!(a.len(), b.len(), "{query}");
            assert_eq!(own.len(), b.len(), "{query}");
            for ((x, y), z) in a.iter().zip(&b).zip(&own) {
                assert_eq!((x.doc, x.score.to_bits()), (y.doc, y.score.to_bits()), "{query}");
                assert_eq!((z.doc, z.score.to_bits()), (y.doc, y.score.to_bits()), "{query}");
            }
            assert!(!a.is_empty(), "{query}");
        }
    }
}
