//! A catalog's searchable index ([`Searchable`]), for each ranking: the
//! reference's BM25 over every entry, `'fielded'`'s BM25F, `'hybrid'`'s
//! vectors beside it; a large catalog's in two halves at once, each on a
//! thread, then joined ([`Partial`]).

use std::sync::Arc;

use crate::js::to_lower_utf16_into;
use crate::search::bm25::{Bm25Builder, Bm25Index, DocId};
use crate::search::embedding::{BuiltinModel, EmbedScratch, ToolVectors};
use crate::search::fielded::{FieldTexts, FieldedBuilder, FieldedConfig, FieldedIndex};
use crate::search::hybrid::{self, HybridConfig, VectorSource};
use crate::search::params::ParamTable;
use crate::search::span::EntrySpans;

use super::ranking::Ranking;
use super::text::CatalogText;

/// Catalogs and pool selections this large are indexed in two halves at
/// once: the halves' builders merge into the same index a single pass gives.
/// (Under the fuzzer, whose inputs are small, nearly all are, so that both
/// ways are checked against catalogs built from the text.)
pub(crate) const SPLIT_FROM_ENTRIES: usize = if cfg!(fuzzing) { 8 } else { 4096 };

/// Catalogs with fewer entries than this are built at once: a thread costs
/// more than they do.
pub(super) const BACKGROUND_INDEX_FROM_ENTRIES: usize = 256;

/// The BM25 index and the lowercased names for boosting. Document `i` is entry `i`.
pub(super) struct Searchable {
    /// The reference's index (empty for another ranking).
    pub(super) index: Bm25Index,
    /// The `'fielded'` ranking's index, when that is the ranking (or the
    /// lexical half of `'hybrid'`).
    pub(super) fielded: Option<FieldedIndex>,
    /// `'hybrid'` with the built-in model: each document's vector (zeros for
    /// one a later entry retired), or `None` when the model cannot be read.
    pub(super) vectors: Option<ToolVectors>,
    pub(super) lower_names: Vec<u16>,
    /// Per document, its lowercased name as a range of `lower_names`.
    pub(super) lower_name_ends: Vec<u32>,
}

/// What building the index needs, shareable with its thread.
pub(super) struct IndexSource {
    pub(super) text: Arc<CatalogText>,
    pub(super) entries: Arc<Vec<EntrySpans>>,
    /// Documents whose name a later entry took over.
    pub(super) retired: Vec<bool>,
    pub(super) ranking: Ranking,
    pub(super) params: Option<Arc<ParamTable>>,
}

impl IndexSource {
    pub(super) fn build(&self) -> Searchable {
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
    pub(super) fn split_point_beside_lookups(&self) -> usize {
        let count = self.entries.len();
        if count < SPLIT_FROM_ENTRIES {
            return count;
        }
        count * 5 / 12
    }

    /// The index of every entry, the entries from `middle` on indexed on a
    /// second thread, and what `meanwhile` gives, called on this thread
    /// before it indexes the entries before `middle`.
    pub(super) fn index_entries<R>(&self, middle: usize, meanwhile: impl FnOnce() -> R) -> (Partial, R) {
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
pub(in crate::search) struct Partial {
    pub(in crate::search) index: Bm25Builder,
    /// Per entry, its lowercased name, as in [`Searchable`].
    pub(in crate::search) lower_names: Vec<u16>,
    pub(in crate::search) lower_name_ends: Vec<u32>,
}

impl Partial {
    /// The searchable index, once the documents a later entry replaced retire.
    pub(super) fn finish(self, retired: &[bool]) -> Searchable {
        let Partial { mut index, lower_names, lower_name_ends } = self;
        for (doc, &retired) in retired.iter().enumerate() {
            if retired {
                index.remove(doc as DocId);
            }
        }
        Searchable { index: index.finish(), fielded: None, vectors: None, lower_names, lower_name_ends }
    }

    /// Appends the run that follows this one.
    pub(in crate::search) fn append(&mut self, next: Partial) {
        self.index.append(next.index);
        let offset = self.lower_names.len() as u32;
        self.lower_names.extend(next.lower_names);
        self.lower_name_ends.extend(next.lower_name_ends.into_iter().map(|end| end + offset));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::to_lower_utf16;
    use crate::search::catalog::tests::u;
    use crate::search::catalog::Catalog;

    impl Catalog {
        /// What the catalog's index is built from, for tests that build it apart.
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
