//! Tool search: the tokenizer, the BM25 index, the catalog and the ranking
//! behind `search_tools`, with the reference's results bit for bit.
//!
//! That is [`Ranking::Reference`], the default. [`Ranking::Fielded`]
//! (`search: { ranking: 'fielded' }`) ranks differently, for better results
//! on real questions: BM25F over names, descriptions and parameters, with
//! identifier splitting, stems, prefixes and CJK n-grams (see [`fielded`] and
//! [`Analyzer`]). Everything around the ranking (lookups, the walk, the
//! filter hook, formatting) is the same for both.
//!
//! Strings are JavaScript strings (UTF-16 units, see [`crate::js`]); numbers
//! coming from options are JS numbers (`f64`), so NaN, fractions and
//! infinities behave as they do in the reference.
//!
//! # API
//!
//! Building (linear in the catalog's text; the BM25 index of a large catalog
//! is built on its own thread, and the first search waits for it):
//! - [`Catalog::new`]`(text, Vec<`[`EntrySpans`]`>) -> Result<Catalog, `[`CatalogError`]`>`:
//!   one UTF-16 buffer plus, per record entry in `Object.keys` order, the
//!   [`Span`]s of its key, optional `id` (`''` included), and description.
//! - [`Catalog::with_ranking`]`(text, entries, `[`Ranking`]`, Option<`[`ParamTable`]`>)`:
//!   another ranking, with the entries' parameters for one that reads them.
//! - [`Catalog::builder`]`()` -> [`CatalogBuilder`] with `push` / `push_str` /
//!   `push_with_parameters` / `ranking` / `build`.
//! - [`table::read_table`]`(text_len, &[i32]) -> Result<Vec<EntrySpans>, `[`table::TableError`]`>`:
//!   the spans of a tool table as JavaScript writes it.
//!
//! Lookups (entry indices are positions in record order):
//! - `len()` (distinct indexed names), `is_empty()`, `entry_count()`.
//! - `key(entry)`, `id(entry)`, `name(entry)` (`id || key`), `description(entry)`.
//! - `find_by_id(name)`, `find_by_key(name)`,
//!   `find_for_dynamic_name(name, has_filter)`, `find_doc(name)`,
//!   `suggestion_candidates(tool_name)` (and [`suggestion_matcher`] for keys
//!   read apart from a catalog).
//! - `doc_name(doc)`, `doc_entry(doc)`, `doc_lower_name(doc)`.
//!
//! Searching:
//! - [`Catalog::rank`]`(query, limit) -> Vec<`[`Candidate`]`>`: boosted, sorted.
//! - [`SearchWalk`]: `new(catalog, query, &`[`SearchOptions`]`)`,
//!   `next_pending(catalog) -> Option<`[`Pending`]`>`, `resolve(allowed)`,
//!   `finish(catalog) -> Vec<`[`SearchHit`]`>`; for a filter hook in between.
//! - [`Catalog::search`]`(query, &SearchOptions) -> Vec<SearchHit>`: no hook.
//!
//! Reusing tools' analyses across catalogs ([`pool`]):
//! - [`ToolPool::new`]`(Ranking)`, `add(id, description, parameters) -> Slot`,
//!   `analyse(slot, id, description, parameters)` (again, a held slot), `release(slot)`,
//!   `note_selection(slots)`, `sweep(kept) -> Vec<Slot>`,
//!   `catalog(&[`[`PoolEntry`]`]) -> Result<Catalog, `[`PoolError`]`>`.
//! - [`truncate_description`], [`tokenize()`], [`Bm25Builder`] / [`Bm25Index`] for the pieces.

mod analyze;
mod bm25;
mod candidate;
mod catalog;
pub mod embedding;
pub mod fielded;
pub mod hybrid;
mod params;
pub mod pattern;
pub mod pool;
mod rank;
mod span;
pub mod table;
mod tokenize;

pub use analyze::{Analyzer, AnalyzerConfig, Term, TermKind};
pub(crate) use bm25::hash_units;
pub use bm25::{idf, term_score, Bm25Builder, Bm25Index, DocId, Scored, B, K1};
pub use catalog::{suggestion_matcher, Catalog, CatalogBuilder, CatalogError, Ranking};
pub use embedding::BuiltinModel;
pub use fielded::{FieldedConfig, FieldedIndex};
pub use hybrid::{HybridConfig, VectorSource};
pub use params::ParamTable;
pub use pattern::{Pattern, PatternError, PatternTexts};
pub use pool::{IdKey, PoolEntry, PoolError, PoolSlot, Slot, ToolPool};
pub use rank::{
    truncate_description, Candidate, Pending, SearchHit, SearchOptions, SearchWalk, EXACT_NAME_BOOST,
    MAX_DESCRIPTION_LEN, PARTIAL_NAME_BOOST, TRUNCATED_DESCRIPTION_LEN,
};
pub use span::{EntrySpans, Span};
pub use tokenize::{for_each_token, is_separator, tokenize, MIN_TOKEN_LEN};

#[cfg(test)]
mod tests;
