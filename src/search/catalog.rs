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
//!
//! In its children: the rankings ([`Ranking`], `ranking`), the text
//! (`text`), what is built from the entries (`lookups`, and `index`:
//! the searchable index) and the builder ([`CatalogBuilder`], `builder`).

mod builder;
mod index;
mod lookups;
mod ranking;
mod text;

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::js::{contains_units, to_lower_utf16, to_lower_utf16_into};

use super::bm25::{Bm25Index, DocId};
use super::embedding::ToolVectors;
use super::fielded::FieldedIndex;
use super::hash::hash_units;
use super::hybrid::{self, HybridConfig, VectorSource};
use super::params::ParamTable;
use super::pattern::PatternTexts;
use super::span::{EntrySpans, Span};
pub use builder::CatalogBuilder;
pub(super) use index::Partial;
pub(crate) use index::SPLIT_FROM_ENTRIES;
use index::{Searchable, BACKGROUND_INDEX_FROM_ENTRIES};
use lookups::{Built, Lookups, Source};
pub use ranking::Ranking;
pub(super) use text::{CatalogText, IN_SHARED};

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

/// A catalog's parts as a [`super::pool::ToolPool`] lays them out, for
/// [`Catalog::from_analysis`]: its text and entries, its tools' parameters,
/// and the reference's index made from the tokens the pool keeps.
pub(super) struct CatalogParts {
    pub(super) text: CatalogText,
    pub(super) entries: Vec<EntrySpans>,
    pub(super) params: Option<ParamTable>,
    pub(super) analysed: Option<Partial>,
}

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

struct BuildCell {
    ready: OnceLock<Built>,
    building: Mutex<Option<JoinHandle<Built>>>,
}

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
        Catalog::index_analysed(Source { text, entries, ranking, params, analysed: None }, true)
    }

    /// A catalog whose reference index was made from its entries' tokens as
    /// kept by a [`super::pool::ToolPool`] (`parts.analysed`, one document
    /// per entry, for the reference's ranking), rather than from its text:
    /// only the lookups remain to build and the replaced documents to retire.
    /// `parts.text` and `parts.entries` are what [`Catalog::new`] takes,
    /// checked here.
    pub(super) fn from_analysis(parts: CatalogParts, ranking: Ranking) -> Result<Catalog, CatalogError> {
        let CatalogParts { text, entries, params, analysed } = parts;
        Catalog::check_text(&text, &entries)?;
        let analysed = analysed.filter(|a| ranking == Ranking::Reference && a.lower_name_ends.len() == entries.len());
        // What is left is cheap: done here rather than on a thread, whose
        // start (and, on a busy machine, its turn) costs more. Without an
        // analysis (another ranking) the index is built as for `new`.
        let background = analysed.is_none();
        let source = Source {
            text: Arc::new(text),
            entries: Arc::new(entries),
            ranking,
            params: params.map(Arc::new),
            analysed,
        };
        Ok(Catalog::index_analysed(source, background))
    }

    /// A catalog of `source`'s entries, its index built at once, or on a
    /// thread when `background` and the catalog is large.
    fn index_analysed(source: Source, background: bool) -> Catalog {
        let built = BuildCell { ready: OnceLock::new(), building: Mutex::new(None) };
        let catalog = Catalog {
            text: source.text.clone(),
            entries: source.entries.clone(),
            params: source.params.clone(),
            ranking: source.ranking,
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

    pub(super) fn u(s: &str) -> Vec<u16> {
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
            CatalogParts {
                text: CatalogText::with_shared(u(own), shared, id_hashes),
                entries,
                params: None,
                analysed: None,
            },
            Ranking::Reference,
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
}
