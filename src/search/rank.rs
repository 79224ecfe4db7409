//! Turning a query into `search_tools` results.
//!
//! Three stages, as in the reference's `searchTools`:
//! 1. [`Catalog::rank`]: BM25 hits, stably sorted by score and cut to a
//!    limit, then boosted when the tool's name matches a query term (+5 for
//!    equal, else +2 for containing) and stably sorted again.
//! 2. A walk over those candidates that drops `score <= minScore` and names
//!    no entry carries as its `id`, asks the filter hook (if any) about the
//!    rest, and stops after `topK` acceptances. [`SearchWalk`] exposes it one
//!    step at a time so the binding can await an async hook between steps;
//!    [`Catalog::search`] runs it with every candidate allowed.
//! 3. Formatting: scores rounded to cents, long descriptions truncated.

use std::cmp::Ordering;

use crate::js::{contains_units, js_slice_bounds, round_score, to_lower_utf16, JsString};

use super::bm25::DocId;
use super::catalog::{Catalog, Ranking};
use super::fielded::FieldedIndex;
use super::hybrid::{self, QueryVector, VectorSource};
use super::tokenize::for_each_token;
use super::BuiltinModel;

/// Descriptions longer than this many UTF-16 units are truncated.
pub const MAX_DESCRIPTION_LEN: usize = 150;
/// How many units a truncated description keeps before `"..."`.
pub const TRUNCATED_DESCRIPTION_LEN: usize = 147;

/// Added when the lowercased name equals a query term.
pub const EXACT_NAME_BOOST: f64 = 5.0;
/// Added when the lowercased name contains a query term (and is not equal).
pub const PARTIAL_NAME_BOOST: f64 = 2.0;

pub use super::candidate::Candidate;

/// The processor's `search` settings, as JS numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// `search.topK` (default 5).
    pub top_k: f64,
    /// `search.minScore` (default 0).
    pub min_score: f64,
    /// Whether a `filter` hook is configured.
    pub has_filter: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { top_k: 5.0, min_score: 0.0, has_filter: false }
    }
}

impl SearchOptions {
    /// How many BM25 hits to rank: `topK * 2`, or every document when a
    /// filter may reject some (so denied tools cannot crowd out allowed ones).
    pub fn bm25_limit(&self, catalog: &Catalog) -> f64 {
        if self.has_filter {
            catalog.len() as f64
        } else {
            self.top_k * 2.0
        }
    }
}

/// One `search_tools` result.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    pub doc: DocId,
    /// The indexed name (`id || key`).
    pub name: JsString,
    /// The description, truncated to 147 units + `"..."` when over 150.
    pub description: JsString,
    /// `Math.round(score * 100) / 100`.
    pub score: f64,
}

/// A candidate that passed `minScore` and resolves to an entry by id: the
/// point where the filter hook is asked (phase `'search'`) about `entry`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pending {
    pub doc: DocId,
    /// `findToolById(name)`: the entry whose tool goes to the hook.
    pub entry: usize,
    pub score: f64,
}

impl Catalog {
    /// BM25 hits for `query` (limit applied with `Array.prototype.slice`
    /// semantics, so any JS number works), boosted by name matches and
    /// stably sorted by score, highest first.
    pub fn rank(&self, query: &[u16], limit: f64) -> Vec<Candidate> {
        self.rank_with_vector(query, None, limit)
    }

    /// [`rank`](Self::rank), with the question's vector for a `'hybrid'`
    /// catalog whose vectors are made elsewhere (ignored by the others).
    pub fn rank_with_vector(&self, query: &[u16], query_vector: Option<&[f32]>, limit: f64) -> Vec<Candidate> {
        if self.is_empty() {
            return Vec::new();
        }
        if let Ranking::Hybrid(config) = self.ranking() {
            return rank_hybrid(self, &config, query, query_vector, limit);
        }
        if let Some(fielded) = self.fielded_index() {
            return rank_fielded(fielded, query, limit);
        }
        // The BM25 query terms and the boost terms are the same list: the
        // boost keeps tokens with `length > 1`, the tokenizer `length >= 2`.
        let lowered = to_lower_utf16(query);
        let mut terms: Vec<&[u16]> = Vec::new();
        for_each_token(&lowered, |t| terms.push(t));
        if terms.is_empty() {
            return Vec::new();
        }

        let hits = self.index().top(terms.iter().copied(), limit);

        let mut candidates: Vec<Candidate> = hits
            .iter()
            .map(|hit| {
                let name = self.doc_lower_name(hit.doc);
                let mut score = hit.score;
                for term in &terms {
                    if name == *term {
                        score += EXACT_NAME_BOOST;
                    } else if contains_units(name, term) {
                        score += PARTIAL_NAME_BOOST;
                    }
                }
                Candidate { doc: hit.doc, score }
            })
            .collect();
        sort_by_score_desc(&mut candidates, |c| c.score);
        candidates
    }

    /// Runs the whole search with no filter hook (every candidate allowed).
    pub fn search(&self, query: &[u16], options: &SearchOptions) -> Vec<SearchHit> {
        let mut walk = SearchWalk::new(self, query, options);
        while walk.next_pending(self).is_some() {
            walk.resolve(true);
        }
        walk.finish(self)
    }

    /// Formats an accepted candidate as a `search_tools` result.
    pub fn hit(&self, candidate: Candidate) -> SearchHit {
        SearchHit {
            doc: candidate.doc,
            name: JsString::from(self.doc_name(candidate.doc)),
            description: truncate_description(self.description(self.doc_entry(candidate.doc))),
            score: round_score(candidate.score),
        }
    }
}

/// [`Catalog::rank`] for the `'fielded'` ranking. Kept out of line, so the
/// reference's ranking compiles as it did without it.
#[inline(never)]
fn rank_fielded(index: &FieldedIndex, query: &[u16], limit: f64) -> Vec<Candidate> {
    index.search(query, limit).into_iter().map(|hit| Candidate { doc: hit.doc, score: hit.score }).collect()
}

/// [`Catalog::rank`] for the `'hybrid'` ranking, out of line as `'fielded'`'s is.
/// Positional: [`Catalog::rank_with_vector`]'s own three arguments passed on
/// out of line, after the catalog and its hybrid config.
#[inline(never)]
fn rank_hybrid(
    catalog: &Catalog,
    config: &hybrid::HybridConfig,
    query: &[u16],
    query_vector: Option<&[f32]>,
    limit: f64,
) -> Vec<Candidate> {
    let Some(fielded) = catalog.fielded_index() else {
        return Vec::new();
    };
    let builtin = BuiltinModel::current().filter(|_| config.vectors == VectorSource::BuiltIn);
    let model = builtin.as_deref().and_then(|builtin| builtin.get().ok());
    let query_vector = match (query_vector, model) {
        (Some(vector), _) => QueryVector::Given(vector),
        (None, Some(model)) => QueryVector::Model(model),
        (None, None) => QueryVector::None,
    };
    let index = hybrid::HybridIndex { config, fielded, vectors: catalog.tool_vectors() };
    hybrid::search(index, query, query_vector, limit)
        .into_iter()
        .map(|hit| Candidate { doc: hit.doc, score: hit.score })
        .collect()
}

/// JS `array.sort((a, b) => b.score - a.score)`: stable, highest first.
/// (Scores are never NaN here; V8 would treat a NaN difference as "equal".)
fn sort_by_score_desc<T>(items: &mut [T], score: impl Fn(&T) -> f64) {
    items.sort_by(|a, b| score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal));
}

/// `d.length > 150 ? d.slice(0, 147) + '...' : d`, in UTF-16 units (so it
/// can cut a surrogate pair in half, as JS does).
pub fn truncate_description(description: &[u16]) -> JsString {
    if description.len() > MAX_DESCRIPTION_LEN {
        let mut out = Vec::with_capacity(TRUNCATED_DESCRIPTION_LEN + 3);
        out.extend_from_slice(&description[..TRUNCATED_DESCRIPTION_LEN]);
        out.extend_from_slice(&[u16::from(b'.'); 3]);
        JsString::from(out)
    } else {
        JsString::from(description)
    }
}

/// The candidate walk of `searchTools`, one hook decision at a time.
///
/// ```text
/// let mut walk = SearchWalk::new(&catalog, query, &options);
/// while let Some(p) = walk.next_pending(&catalog) {
///     let allowed = /* await filter({ tool: tools[p.entry], phase: 'search' }) */;
///     walk.resolve(allowed);
/// }
/// let results = walk.finish(&catalog);
/// ```
///
/// The walk holds no borrow of the catalog, so it can live across awaits.
#[derive(Clone, Debug)]
pub struct SearchWalk {
    candidates: Vec<Candidate>,
    next: usize,
    top_k: f64,
    min_score: f64,
    pending: Option<Candidate>,
    accepted: Vec<Candidate>,
    done: bool,
}

impl SearchWalk {
    /// Ranks `query` and prepares the walk.
    pub fn new(catalog: &Catalog, query: &[u16], options: &SearchOptions) -> SearchWalk {
        SearchWalk::with_vector(catalog, query, None, options)
    }

    /// [`new`](Self::new), with the question's vector for a `'hybrid'`
    /// catalog whose vectors are made elsewhere.
    pub fn with_vector(
        catalog: &Catalog,
        query: &[u16],
        query_vector: Option<&[f32]>,
        options: &SearchOptions,
    ) -> SearchWalk {
        let candidates = catalog.rank_with_vector(query, query_vector, options.bm25_limit(catalog));
        SearchWalk::from_candidates(candidates, options)
    }

    /// Walks already ranked candidates.
    pub fn from_candidates(candidates: Vec<Candidate>, options: &SearchOptions) -> SearchWalk {
        SearchWalk {
            candidates,
            next: 0,
            top_k: options.top_k,
            min_score: options.min_score,
            pending: None,
            accepted: Vec::new(),
            done: false,
        }
    }

    /// The ranked candidates, before any filtering.
    pub fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// The next candidate that needs a hook decision, or `None` when the walk
    /// is over. Candidates with `score <= minScore`, and names that no entry
    /// carries as its `id`, are skipped without asking. A pending candidate
    /// that was never [`resolve`](Self::resolve)d counts as rejected.
    pub fn next_pending(&mut self, catalog: &Catalog) -> Option<Pending> {
        self.pending = None;
        let pending = self.next_given(catalog);
        match pending {
            Some(pending) => self.pending = Some(Candidate { doc: pending.doc, score: pending.score }),
            None => self.done = true,
        }
        pending
    }

    /// Records the hook's verdict on the last pending candidate. The walk
    /// ends once `accepted.length >= topK`.
    pub fn resolve(&mut self, allowed: bool) {
        if let Some(candidate) = self.pending.take() {
            self.admit(candidate, allowed);
        }
    }

    /// The candidate after the last one given, skipping as
    /// [`next_pending`](Self::next_pending) does, before the verdicts on
    /// those given are in: for a host that asks the hook about several at
    /// once. `None` at the end of the candidates, or once the walk is over.
    /// The verdicts go to [`decide`](Self::decide), in the order given.
    pub fn next_ahead(&mut self, catalog: &Catalog) -> Option<Pending> {
        self.next_given(catalog)
    }

    fn next_given(&mut self, catalog: &Catalog) -> Option<Pending> {
        if self.done {
            return None;
        }
        while let Some(&candidate) = self.candidates.get(self.next) {
            self.next += 1;
            // `score <= minScore` skips; a NaN minScore skips nothing.
            if candidate.score <= self.min_score {
                continue;
            }
            let Some(entry) = catalog.find_by_id(catalog.doc_name(candidate.doc)) else { continue };
            return Some(Pending { doc: candidate.doc, entry, score: candidate.score });
        }
        None
    }

    /// Records the hook's verdict on a candidate [`next_ahead`](Self::next_ahead)
    /// gave, in the order it gave them; ignored once the walk is over, which
    /// it is once `accepted.length >= topK`, as with [`resolve`](Self::resolve).
    pub fn decide(&mut self, pending: Pending, allowed: bool) {
        if !self.done {
            self.admit(Candidate { doc: pending.doc, score: pending.score }, allowed);
        }
    }

    /// Whether the walk is over: `topK` accepted, or the candidates ended
    /// under [`next_pending`](Self::next_pending).
    pub fn is_done(&self) -> bool {
        self.done
    }

    fn admit(&mut self, candidate: Candidate, allowed: bool) {
        if allowed {
            self.accepted.push(candidate);
            if self.accepted.len() as f64 >= self.top_k {
                self.done = true;
            }
        }
    }

    /// The accepted candidates, cut with `slice(0, topK)`, formatted.
    pub fn finish(self, catalog: &Catalog) -> Vec<SearchHit> {
        let (_, end) = js_slice_bounds(self.accepted.len(), 0.0, Some(self.top_k));
        self.accepted[..end].iter().map(|&c| catalog.hit(c)).collect()
    }
}
