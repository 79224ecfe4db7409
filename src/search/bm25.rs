//! An Okapi BM25 index with the reference's exact scoring and ordering.
//!
//! The reference (`BM25Index` in `@mastra/core`) keeps a map of documents,
//! a map of term -> insertion-ordered set of document ids, and recomputes the
//! average length by walking every document on each add (quadratic). Here
//! terms are interned to numbers, documents are numbered slots, the average
//! comes from a running total, and the postings are laid out once, after the
//! last add, grouped by term, each with its term-frequency weight (see
//! [`tf_weight`]). Building is linear.
//!
//! What must match bit for bit, and why it does:
//! - Scores: the same f64 operations in the same order (see [`term_score`]),
//!   with `Math.log` reproduced by [`js_math_log`].
//! - Order of hits: JS accumulates scores in a `Map`, so hits come out in the
//!   order documents were first touched: query terms in order, each term's
//!   posting set in insertion order. Re-adding a document deletes it from its
//!   sets and appends it again; we get the same order by retiring the old
//!   slot, taking a new one at the end, and leaving retired slots out of the
//!   postings.
//!
//! Here are the formulas and the index searched; the rest is in the
//! children: the vocabulary ([`terms`]), building ([`builder`]), adding up a
//! search's scores ([`scratch`]) and keeping the best hits ([`top_k`]).

mod builder;
mod scratch;
mod terms;
mod top_k;

use crate::js::js_math_log;

pub use builder::Bm25Builder;
use scratch::{Hits, ScoreScratch, SCORE_SCRATCH};
pub(super) use terms::TermDict;
use terms::TermTable;
use top_k::top_of;

/// Term-frequency saturation, the reference's default.
pub const K1: f64 = 1.5;
/// Length normalisation, the reference's default.
pub const B: f64 = 0.75;

/// A document slot. Slots are never reused: replacing a document retires its
/// slot and takes a new one at the end.
pub type DocId = u32;

/// One document's accumulated score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    pub doc: DocId,
    pub score: f64,
}

/// The BM25 index over lowercased text. Immutable once built.
pub struct Bm25Index {
    terms: TermTable,
    /// Term `t`'s postings are `offsets[t]..offsets[t + 1]` of `docs` and
    /// `weights`: the live documents containing it, in insertion order, and
    /// what the term weighs in each before its IDF (see [`tf_weight`]).
    offsets: Vec<u32>,
    docs: Vec<DocId>,
    weights: Vec<f64>,
    live: Vec<bool>,
    live_docs: u32,
}

impl Default for Bm25Index {
    fn default() -> Bm25Index {
        Bm25Builder::new().finish()
    }
}

impl Bm25Index {
    pub fn builder() -> Bm25Builder {
        Bm25Builder::new()
    }

    /// Number of live documents (the reference's `size`).
    pub fn len(&self) -> usize {
        self.live_docs as usize
    }

    pub fn is_empty(&self) -> bool {
        self.live_docs == 0
    }

    /// Total number of slots ever handed out, live or retired.
    pub fn slot_count(&self) -> usize {
        self.live.len()
    }

    /// Whether a slot holds a live document.
    pub fn is_live(&self, doc: DocId) -> bool {
        self.live.get(doc as usize).copied().unwrap_or(false)
    }

    /// Scores live documents against query terms (lowercased tokens, repeats
    /// kept: a repeated term counts again). Returns hits with `score >= 0` in
    /// first-touch order, unsorted.
    pub fn score<'q>(&self, query_terms: impl IntoIterator<Item = &'q [u16]>) -> Vec<Scored> {
        let mut hits = Vec::new();
        self.with_scores(query_terms, |scored| hits.extend(scored.iter()));
        hits
    }

    /// The hits of [`score`](Self::score) stably sorted by score, highest
    /// first, and cut with `hits.slice(0, limit)` (any JS number): the
    /// reference's `search(query, limit)`. Only the kept hits are ordered,
    /// so a small limit costs one pass over the hits, not a sort of them.
    pub fn top<'q>(&self, query_terms: impl IntoIterator<Item = &'q [u16]>, limit: f64) -> Vec<Scored> {
        let mut top = Vec::new();
        self.with_scores(query_terms, |scored| top_of(scored, limit, &mut top));
        top
    }

    /// Accumulates the query's scores and hands `done` the hits with
    /// `score >= 0` in first-touch order (the order of the reference's score
    /// `Map`).
    ///
    /// Scores add up in a dense array indexed by slot, reused from search to
    /// search on this thread (see [`ScoreScratch`]), in exactly the
    /// reference's order of additions: query terms in order, each term's
    /// postings in insertion order.
    fn with_scores<'q>(&self, query_terms: impl IntoIterator<Item = &'q [u16]>, done: impl FnOnce(Hits<'_>)) {
        if self.live_docs == 0 {
            return done(Hits { touched: &[], scores: &[] });
        }
        let doc_count = f64::from(self.live_docs);
        SCORE_SCRATCH.with(|cell| {
            let mut taken;
            // A nested search (none is made today) would get its own scratch.
            let mut borrowed = cell.try_borrow_mut();
            let scratch: &mut ScoreScratch = match &mut borrowed {
                Ok(scratch) => scratch,
                Err(_) => {
                    taken = ScoreScratch::default();
                    &mut taken
                }
            };
            let mut scratch = scratch.start(self.live.len());
            for query_term in query_terms {
                let Some(term) = self.terms.get(query_term) else {
                    continue;
                };
                let range = self.offsets[term as usize] as usize..self.offsets[term as usize + 1] as usize;
                if range.is_empty() {
                    // Every document with this term was replaced: the
                    // reference deleted the term's set.
                    continue;
                }
                let idf = idf(doc_count, range.len() as f64);
                scratch.add_postings(&self.docs[range.clone()], &self.weights[range], idf);
            }
            scratch.finish(done);
        });
    }
}

/// Robertson-Sparck Jones IDF: `ln((N - df + 0.5) / (df + 0.5) + 1)`.
pub fn idf(doc_count: f64, doc_freq: f64) -> f64 {
    js_math_log((doc_count - doc_freq + 0.5) / (doc_freq + 0.5) + 1.0)
}

/// One term's contribution, with the reference's operation order:
/// `idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + b * (len / avgLen))))`.
pub fn term_score(term_freq: f64, doc_len: f64, avg_len: f64, idf: f64) -> f64 {
    idf * tf_weight(term_freq, length_norm(doc_len, avg_len))
}

/// `k1 * (1 - b + b * (len / avgLen))`: the document's part of
/// [`term_score`]'s denominator.
fn length_norm(doc_len: f64, avg_len: f64) -> f64 {
    K1 * (1.0 - B + B * (doc_len / avg_len))
}

/// `(tf * (k1 + 1)) / (tf + lengthNorm)`: what [`term_score`] multiplies
/// the IDF by. It depends on the term's count and the document alone, so the
/// index computes it once per posting: the same operations in the same order
/// as the reference's each search, so no bit of a score changes.
fn tf_weight(term_freq: f64, length_norm: f64) -> f64 {
    let numerator = term_freq * (K1 + 1.0);
    let denominator = term_freq + length_norm;
    numerator / denominator
}

/// The reference's average document length: an integer total over an
/// integer count, so it is the reference's however that summed.
fn average_len(total_len: u64, live_docs: u32) -> f64 {
    total_len as f64 / f64::from(live_docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    pub(super) fn add(builder: &mut Bm25Builder, text: &str) -> DocId {
        let lowered = crate::js::to_lower_utf16(&u(text));
        builder.add(&[&lowered])
    }

    pub(super) fn score(index: &Bm25Index, query: &str) -> Vec<(DocId, f64)> {
        let q = u(query);
        let terms: Vec<&[u16]> = q.split(|&c| c == u16::from(b' ')).collect();
        index.score(terms).into_iter().map(|s| (s.doc, s.score)).collect()
    }

    pub(super) fn two_docs() -> Bm25Index {
        let mut builder = Bm25Index::builder();
        add(&mut builder, "a weather forecast");
        add(&mut builder, "b weather weather today");
        builder.finish()
    }

    #[test]
    fn scores_match_the_reference() {
        // new BM25Index({}, toolSearchTokenizeOptions); add('a', 'a weather forecast');
        // add('b', 'b weather weather today'); search('weather') =>
        // b: 0.24472692187108, a: 0.2003533591142358 (first touched: a, then b).
        let index = two_docs();
        assert_eq!(score(&index, "weather"), vec![(0, 0.2003533591142358), (1, 0.24472692187108)]);
        assert_eq!(score(&index, "missing"), vec![]);
    }

    #[test]
    fn repeated_query_terms_add_again() {
        let index = two_docs();
        let once = score(&index, "weather");
        let twice = score(&index, "weather weather");
        for (one, two) in once.iter().zip(&twice) {
            assert_eq!(two.1, one.1 + one.1);
        }
    }

    #[test]
    fn empty_documents_count_towards_n_and_average() {
        let mut builder = Bm25Index::builder();
        add(&mut builder, "x");
        add(&mut builder, "tool tool");
        let index = builder.finish();
        assert_eq!(index.len(), 2);
        // N = 2, df = 1, avgLen = 1, len = 2, tf = 2.
        assert_eq!(score(&index, "tool"), vec![(1, term_score(2.0, 2.0, 1.0, idf(2.0, 1.0)))]);
    }

    /// The reference's scoring as it is written: a `Map` from document to
    /// score, `scores.set(id, (scores.get(id) || 0) + s)` for each query
    /// term's documents in insertion order; hits in the map's order.
    fn naive_scores(docs: &[Option<Vec<&str>>], query: &[&str]) -> Vec<(DocId, u64)> {
        let live: Vec<(DocId, &Vec<&str>)> =
            docs.iter().enumerate().filter_map(|(d, doc)| doc.as_ref().map(|doc| (d as DocId, doc))).collect();
        let n = live.len() as f64;
        let avg = live.iter().map(|(_, doc)| doc.len() as f64).sum::<f64>() / n;
        let mut scores: Vec<(DocId, f64)> = Vec::new();
        for term in query {
            let with: Vec<&(DocId, &Vec<&str>)> = live.iter().filter(|(_, doc)| doc.contains(term)).collect();
            let idf = idf(n, with.len() as f64);
            for (doc, words) in with {
                let tf = words.iter().filter(|w| *w == term).count() as f64;
                let s = term_score(tf, words.len() as f64, avg, idf);
                match scores.iter_mut().find(|(d, _)| d == doc) {
                    Some((_, score)) => *score = (if *score == 0.0 || score.is_nan() { 0.0 } else { *score }) + s,
                    None => scores.push((*doc, 0.0 + s)),
                }
            }
        }
        scores.into_iter().map(|(doc, score)| (doc, score.to_bits())).collect()
    }

    #[test]
    fn scores_and_their_order_are_the_reference_maps() {
        let mut rng = crate::test_rng::Rng::new(11);
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
        for round in 0..40 {
            let mut builder = Bm25Index::builder();
            let mut docs: Vec<Option<Vec<&str>>> = Vec::new();
            for _ in 0..1 + rng.next() % 120 {
                let doc: Vec<&str> = (0..1 + rng.next() % 6).map(|_| words[(rng.next() % 6) as usize]).collect();
                let id = add(&mut builder, &doc.join(" "));
                docs.push(Some(doc));
                if rng.next().is_multiple_of(5) {
                    builder.remove(id);
                    docs[id as usize] = None;
                }
            }
            if docs.iter().all(Option::is_none) {
                continue;
            }
            let index = builder.finish();
            let query: Vec<&str> = (0..1 + rng.next() % 4).map(|_| words[(rng.next() % 6) as usize]).collect();
            let got: Vec<(DocId, u64)> =
                score(&index, &query.join(" ")).iter().map(|&(d, s)| (d, s.to_bits())).collect();
            assert_eq!(got, naive_scores(&docs, &query), "round {round}, query {query:?}");
        }
    }

    #[test]
    fn empty_index() {
        let index = Bm25Index::default();
        assert!(index.is_empty());
        assert_eq!(score(&index, "anything"), vec![]);
    }
}
