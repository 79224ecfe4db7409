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

use hashbrown::HashTable;
use std::hash::{BuildHasher, Hasher};

use crate::js::{js_math_log, js_slice_bounds};

use super::tokenize::for_each_token;

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

#[derive(Clone, Copy)]
struct Posting {
    doc: DocId,
    term_freq: u32,
}

/// Collects documents; [`finish`](Self::finish) turns them into an index.
#[derive(Default)]
pub struct Bm25Builder {
    terms: TermTable,
    /// Every (term, posting) pair, in the order documents were added, but
    /// for those of appended builders, kept in `appended` (after these).
    pairs: Vec<(u32, Posting)>,
    /// The pairs of builders appended (see [`append`](Self::append)), as
    /// they were: rewriting each pair into `pairs` costs a pass over them
    /// and a copy of `pairs`, on the path every first search waits on;
    /// [`finish`](Self::finish) reads them where they are instead.
    appended: Vec<AppendedPairs>,
    doc_len: Vec<u32>,
    live: Vec<bool>,
    live_docs: u32,
    total_len: u64,
    /// Scratch for one document: its distinct terms with counts, in order of
    /// first occurrence, and each term's position in that list.
    counts: Vec<(u32, u32)>,
    count_slot: Vec<u32>,
    /// The terms [`add`](Self::add) met lately, by hash (see [`RecentTerms`]).
    recent: RecentTerms,
}

/// The pairs of an appended builder, with what turns them into this
/// builder's: its term numbers into ours, and where its slots start in ours.
struct AppendedPairs {
    pairs: Vec<(u32, Posting)>,
    renumber: Vec<u32>,
    first_doc: DocId,
}

impl AppendedPairs {
    /// The pairs as this builder's own.
    fn iter(&self) -> impl Iterator<Item = (u32, Posting)> + '_ {
        self.pairs.iter().map(|&(term, posting)| {
            (self.renumber[term as usize], Posting { doc: posting.doc + self.first_doc, term_freq: posting.term_freq })
        })
    }
}

/// A small direct-mapped memo in front of the term table, by hash: most
/// tokens of a catalog are a few hundred common words, whose entries stay in
/// the first level of cache here, where the table itself is too large to.
/// An entry is only used when its text equals the token, so it never changes
/// which number a token gets.
#[derive(Default)]
struct RecentTerms {
    slots: Vec<TermSlot>,
}

impl RecentTerms {
    /// Entries; a power of two (16 bytes each: 16 KiB).
    const SIZE: usize = 1024;

    /// The number of `token` (its `hash32` is `hash`), interned in `terms` if new.
    #[inline]
    fn intern(&mut self, terms: &mut TermTable, token: &[u16], hash: u32) -> u32 {
        if self.slots.is_empty() {
            // `len: 0` matches no token: every token is at least one unit long.
            self.slots = vec![TermSlot { start: 0, len: 0, term: 0, hash: 0 }; Self::SIZE];
        }
        let recent = &mut self.slots[hash as usize & (Self::SIZE - 1)];
        if recent.hash == hash && TermTable::matches(&terms.text, recent, token) {
            return recent.term;
        }
        *recent = terms.intern_slot(token, hash);
        recent.term
    }
}

impl Bm25Builder {
    pub fn new() -> Bm25Builder {
        Bm25Builder::default()
    }

    /// A builder sized for about `docs` documents over `text_len` units of
    /// text, to spare the regrowth of its big arrays.
    pub fn with_capacity(docs: usize, text_len: usize) -> Bm25Builder {
        let mut builder = Bm25Builder::new();
        builder.doc_len.reserve(docs);
        builder.live.reserve(docs);
        // Typical English-like text has a distinct term every 8 or so units.
        builder.pairs.reserve(text_len / 8);
        builder
    }

    /// Room for this many more (term, document) pairs.
    pub fn reserve_postings(mut self, pairs: usize) -> Bm25Builder {
        self.pairs.reserve(pairs);
        self
    }

    /// Indexes a new document whose text is the concatenation of `parts`,
    /// each already lowercased and each ending at a token boundary, and
    /// returns its slot.
    ///
    /// Taking parts lets the caller index `"<name> <description>"` without
    /// building that string: the space is a separator and cannot affect
    /// lowercasing on either side.
    pub fn add(&mut self, parts: &[&[u16]]) -> DocId {
        self.counts.clear();
        let mut len = 0u32;
        for part in parts {
            for_each_token(part, |token| {
                len += 1;
                let term = self.recent.intern(&mut self.terms, token, hash32(token));
                self.count(term, 1);
            });
        }
        self.push_counted(len)
    }

    /// Indexes a new document given as its terms (numbers this builder gave
    /// them, as a `ToolPool` asks) with their counts, in any order, a term possibly more than once (its counts add up), and returns
    /// its slot: what [`add`](Self::add) does after tokenizing, for text
    /// tokenized once and kept (see [`super::pool`]).
    pub fn add_counts(&mut self, terms: impl IntoIterator<Item = (u32, u32)>) -> DocId {
        self.counts.clear();
        let mut len = 0u32;
        for (term, count) in terms {
            len += count;
            self.count(term, count);
        }
        self.push_counted(len)
    }

    /// Adds `n` to the document being added's count of `term`: `counts`
    /// holds one entry per distinct term, in first-seen order, found through
    /// `count_slot` (an entry there is stale unless it points back at `term`).
    #[inline]
    fn count(&mut self, term: u32, n: u32) {
        if term as usize >= self.count_slot.len() {
            self.count_slot.resize(term as usize + 1, 0);
        }
        let slot = self.count_slot[term as usize] as usize;
        match self.counts.get_mut(slot) {
            Some((t, count)) if *t == term => *count += n,
            _ => {
                self.count_slot[term as usize] = self.counts.len() as u32;
                self.counts.push((term, n));
            }
        }
    }

    /// Files the counted document, `len` tokens long, under the next slot.
    fn push_counted(&mut self, len: u32) -> DocId {
        self.settle_appended();
        let doc = self.doc_len.len() as DocId;
        self.pairs.extend(self.counts.iter().map(|&(term, term_freq)| (term, Posting { doc, term_freq })));
        self.doc_len.push(len);
        self.live.push(true);
        self.live_docs += 1;
        self.total_len += u64::from(len);
        doc
    }

    /// [`add_counts`](Self::add_counts) for terms that are all distinct.
    pub fn add_distinct_counts(&mut self, terms: &[(u32, u32)]) -> DocId {
        self.settle_appended();
        let doc = self.doc_len.len() as DocId;
        let len: u32 = terms.iter().map(|&(_, count)| count).sum();
        self.pairs.extend(terms.iter().map(|&(term, term_freq)| (term, Posting { doc, term_freq })));
        self.doc_len.push(len);
        self.live.push(true);
        self.live_docs += 1;
        self.total_len += u64::from(len);
        doc
    }

    /// The number of a term new to this builder (a [`TermDict`] term met the
    /// first time), given its text and its hash as [`TermDict`] keeps it, for
    /// [`add_counts`](Self::add_counts): numbered without looking it up.
    pub(super) fn intern_new_hashed(&mut self, token: &[u16], hash: u32) -> u32 {
        debug_assert!(self.terms.get(token).is_none(), "a term interned as new was there already");
        self.terms.insert_new(token, hash).term
    }

    /// Room for this many more distinct terms.
    pub(super) fn reserve_terms(mut self, terms: usize, text_len: usize) -> Bm25Builder {
        self.terms.table.reserve(terms, |slot| widen(slot.hash));
        self.terms.text.reserve(text_len);
        self
    }

    /// Appends the documents of `other`, in order, after this builder's, as
    /// though they had been added here: their terms are interned into this
    /// table and their slots follow this builder's. Term numbers differ from a
    /// single builder's, but nothing depends on them (postings are grouped by
    /// term and keep document order), so the finished index answers the same.
    pub fn append(&mut self, other: Bm25Builder) {
        let offset = self.doc_len.len() as DocId;
        let mut renumber = vec![0u32; other.terms.len()];
        self.terms.table.reserve(other.terms.len(), |slot| widen(slot.hash));
        for slot in other.terms.table.iter() {
            let text = &other.terms.text[slot.start as usize..(slot.start + slot.len) as usize];
            renumber[slot.term as usize] = self.terms.intern_hashed(text, slot.hash);
        }
        // Its own pairs, then those appended to it, each taken into our numbering.
        self.appended.push(AppendedPairs { pairs: other.pairs, renumber: renumber.clone(), first_doc: offset });
        for earlier in other.appended {
            let renumber = earlier.renumber.iter().map(|&term| renumber[term as usize]).collect();
            self.appended.push(AppendedPairs { renumber, first_doc: earlier.first_doc + offset, ..earlier });
        }
        self.doc_len.extend(other.doc_len);
        self.live.extend(other.live);
        self.live_docs += other.live_docs;
        self.total_len += other.total_len;
    }

    /// Moves the appended builders' pairs into `pairs`, so that a document
    /// added next files its pairs after theirs.
    fn settle_appended(&mut self) {
        if self.appended.is_empty() {
            return;
        }
        for appended in std::mem::take(&mut self.appended) {
            self.pairs.extend(appended.iter());
        }
    }

    /// Calls `f` with every (term, posting) pair of a live document, in the
    /// order documents were added (a loop per run of pairs, not one chained
    /// iterator: this is the hot loop of `finish`).
    #[inline]
    fn for_each_live_pair(&self, mut f: impl FnMut(u32, Posting)) {
        let live = &self.live;
        for &(term, posting) in &self.pairs {
            if live[posting.doc as usize] {
                f(term, posting);
            }
        }
        for appended in &self.appended {
            for (term, posting) in appended.iter() {
                if live[posting.doc as usize] {
                    f(term, posting);
                }
            }
        }
    }

    /// Retires a document: it stops counting towards N, document frequencies
    /// and the average length, and will not be in the postings.
    pub fn remove(&mut self, doc: DocId) {
        let live = &mut self.live[doc as usize];
        if *live {
            *live = false;
            self.live_docs -= 1;
            self.total_len -= u64::from(self.doc_len[doc as usize]);
        }
    }

    /// Lays out the live postings grouped by term (a stable counting sort,
    /// so each term's documents stay in insertion order).
    pub fn finish(self) -> Bm25Index {
        let term_count = self.terms.len();
        let mut offsets = vec![0u32; term_count + 1];
        self.for_each_live_pair(|term, _| offsets[term as usize + 1] += 1);
        for i in 0..term_count {
            offsets[i + 1] += offsets[i];
        }
        let avg_len = average_len(self.total_len, self.live_docs);
        let length_norms: Vec<f64> = self.doc_len.iter().map(|&len| length_norm(f64::from(len), avg_len)).collect();
        let mut next = offsets.clone();
        let mut docs = vec![0; offsets[term_count] as usize];
        let mut weights = vec![0.0; offsets[term_count] as usize];
        self.for_each_live_pair(|term, posting| {
            let at = &mut next[term as usize];
            docs[*at as usize] = posting.doc;
            weights[*at as usize] = tf_weight(f64::from(posting.term_freq), length_norms[posting.doc as usize]);
            *at += 1;
        });
        Bm25Index { terms: self.terms, offsets, docs, weights, live: self.live, live_docs: self.live_docs }
    }
}

/// The reference's average document length: an integer total over an
/// integer count, so it is the reference's however that summed.
fn average_len(total_len: u64, live_docs: u32) -> f64 {
    total_len as f64 / f64::from(live_docs)
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
        self.with_scores(query_terms, |scored| {
            // The touched documents bound the hits: a limit that keeps no
            // more than SELECT_UP_TO of them from the start (a negative one
            // counts from the end) selects the same without counting the hits.
            let (_, bound) = js_slice_bounds(scored.touched.len(), 0.0, Some(limit));
            let end = if limit >= 0.0 && bound <= SELECT_UP_TO {
                bound
            } else {
                js_slice_bounds(scored.len(), 0.0, Some(limit)).1
            };
            if end <= SELECT_UP_TO {
                select_top(scored.iter(), end, &mut top);
            } else {
                top.extend(scored.iter());
                // JS `hits.sort((a, b) => b.score - a.score)`: stable, and no
                // score is NaN (those were dropped).
                top.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal));
                top.truncate(end);
            }
        });
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

/// The hits of a search in first-touch order: the touched slots with their
/// scores, NaN scores left out (the reference keeps `score >= 0`).
#[derive(Clone, Copy)]
struct Hits<'s> {
    touched: &'s [DocId],
    scores: &'s [f64],
}

impl<'s> Hits<'s> {
    /// How many hits there are (a pass over the touched documents).
    fn len(&self) -> usize {
        let scores = self.scores;
        if self.touched.iter().all(|&doc| scores[doc as usize] >= 0.0) {
            self.touched.len()
        } else {
            self.touched.iter().filter(|&&doc| scores[doc as usize] >= 0.0).count()
        }
    }

    fn iter(self) -> impl Iterator<Item = Scored> + 's {
        let scores = self.scores;
        self.touched.iter().map(move |&doc| Scored { doc, score: scores[doc as usize] }).filter(|hit| hit.score >= 0.0)
    }
}

/// Up to this many hits are kept by one selecting pass; more are sorted.
const SELECT_UP_TO: usize = 64;

/// The first `end` hits of a stable sort by score, highest first, without
/// sorting: each hit goes after every kept hit scoring at least as much, so
/// ties stay in first-touch order.
fn select_top(hits: impl Iterator<Item = Scored>, end: usize, top: &mut Vec<Scored>) {
    if end == 0 {
        return;
    }
    top.reserve(end);
    for hit in hits {
        if top.len() == end {
            // Full: only a strictly higher score displaces the last (no
            // hit is NaN: those were dropped).
            if hit.score <= top[end - 1].score {
                continue;
            }
            top.pop();
        }
        let mut at = top.len();
        while at > 0 && top[at - 1].score < hit.score {
            at -= 1;
        }
        top.insert(at, hit);
    }
}

/// The scores of one search, in a dense array reused across searches.
#[derive(Default)]
struct ScoreScratch {
    /// Per slot, its accumulated score, or [`UNTOUCHED`]. Every entry is
    /// [`UNTOUCHED`] between searches.
    scores: Vec<f64>,
    /// The slots touched, in first-touch order.
    touched: Vec<DocId>,
}

thread_local! {
    /// One scratch per thread: scoring runs to its end without yielding, so
    /// one is enough. It keeps the size of the largest index searched (8
    /// bytes a slot).
    static SCORE_SCRATCH: std::cell::RefCell<ScoreScratch> = std::cell::RefCell::default();
}

/// A slot not touched yet. A NaN no arithmetic produces (and nothing is ever
/// added to it), so a touched slot whose score became NaN is not mistaken for it.
const UNTOUCHED: u64 = 0xFFF4_0000_0000_0001;

/// A search in progress over a [`ScoreScratch`]; leaves it clean when
/// dropped, finished or not.
struct ScoreRun<'s> {
    scratch: &'s mut ScoreScratch,
}

impl ScoreScratch {
    fn start(&mut self, slots: usize) -> ScoreRun<'_> {
        if self.scores.len() < slots {
            self.scores.resize(slots, f64::from_bits(UNTOUCHED));
        }
        ScoreRun { scratch: self }
    }
}

impl ScoreRun<'_> {
    /// Adds one query term's postings, `idf * weight` each.
    fn add_postings(&mut self, docs: &[DocId], weights: &[f64], idf: f64) {
        let ScoreScratch { scores, touched } = &mut *self.scratch;
        if touched.is_empty() {
            // The first term: every document is touched now, in order.
            touched.extend_from_slice(docs);
            for (&doc, &weight) in docs.iter().zip(weights) {
                // The reference adds to `scores.get(id) || 0`.
                scores[doc as usize] = 0.0 + idf * weight;
            }
            return;
        }
        // Whether a document is touched already is as likely as not, so
        // neither the sum nor the list branches on it: an untouched score
        // counts as +0.0 (its bits masked off), and each document is written
        // past the list's end, the end moving over it on a first touch.
        let mut len = touched.len();
        touched.resize(len + docs.len(), 0);
        for (&doc, &weight) in docs.iter().zip(weights) {
            let s = idf * weight;
            let score = &mut scores[doc as usize];
            let bits = score.to_bits();
            let first = bits == UNTOUCHED;
            let kept = bits & u64::from(first).wrapping_sub(1);
            *score = f64::from_bits(kept) + s;
            touched[len] = doc;
            len += usize::from(first);
        }
        touched.truncate(len);
    }

    fn finish(self, done: impl FnOnce(Hits<'_>)) {
        let ScoreScratch { scores, touched } = &*self.scratch;
        done(Hits { touched, scores });
    }
}

impl Drop for ScoreRun<'_> {
    fn drop(&mut self) {
        let scratch = &mut *self.scratch;
        for &doc in &scratch.touched {
            scratch.scores[doc as usize] = f64::from_bits(UNTOUCHED);
        }
        scratch.touched.clear();
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

/// Interned terms: each distinct token is stored once and known by number.
#[derive(Default)]
struct TermTable {
    /// All term text, back to back.
    text: Vec<u16>,
    /// Where each term's text is, with its number and hash. Kept in the
    /// table itself so a probe reads the text directly and growing the table
    /// never rereads it.
    table: HashTable<TermSlot>,
    count: u32,
}

#[derive(Clone, Copy)]
struct TermSlot {
    start: u32,
    len: u32,
    term: u32,
    hash: u32,
}

impl TermTable {
    fn len(&self) -> usize {
        self.count as usize
    }

    fn matches(text: &[u16], slot: &TermSlot, token: &[u16]) -> bool {
        slot.len as usize == token.len() && units_eq(&text[slot.start as usize..][..token.len()], token)
    }

    fn get(&self, token: &[u16]) -> Option<u32> {
        let hash = hash32(token);
        self.table
            .find(widen(hash), |slot| slot.hash == hash && TermTable::matches(&self.text, slot, token))
            .map(|slot| slot.term)
    }

    fn intern_hashed(&mut self, token: &[u16], hash: u32) -> u32 {
        self.intern_slot(token, hash).term
    }

    /// The slot of a token (its `hash32` is `hash`), interned if new.
    fn intern_slot(&mut self, token: &[u16], hash: u32) -> TermSlot {
        let text = &self.text;
        if let Some(slot) =
            self.table.find(widen(hash), |slot| slot.hash == hash && TermTable::matches(text, slot, token))
        {
            return *slot;
        }
        self.insert_new(token, hash)
    }

    /// Interns a token known not to be here yet.
    fn insert_new(&mut self, token: &[u16], hash: u32) -> TermSlot {
        let slot = TermSlot { start: self.text.len() as u32, len: token.len() as u32, term: self.count, hash };
        self.text.extend_from_slice(token);
        self.count += 1;
        self.table.insert_unique(widen(hash), slot, |slot| widen(slot.hash));
        slot
    }
}

/// Interned terms that can also be read back by number: the vocabulary of
/// a [`super::pool::ToolPool`], whose tools keep their text as these numbers.
#[derive(Default)]
pub(super) struct TermDict {
    table: TermTable,
    /// Term `t`'s text and hash (where it is in `table`).
    by_term: Vec<TermSlot>,
}

impl TermDict {
    pub(super) fn len(&self) -> usize {
        self.by_term.len()
    }

    /// The number of a token, interned if new.
    pub(super) fn intern(&mut self, token: &[u16]) -> u32 {
        let hash = hash32(token);
        let term = self.table.intern_hashed(token, hash);
        if term as usize == self.by_term.len() {
            let (len, end) = (token.len() as u32, self.table.text.len() as u32);
            self.by_term.push(TermSlot { start: end - len, len, term, hash });
        }
        term
    }

    /// The number of a token, if it is a term.
    pub(super) fn get(&self, token: &[u16]) -> Option<u32> {
        self.table.get(token)
    }

    /// The length of all its terms' text.
    pub(super) fn text_len(&self) -> usize {
        self.table.text.len()
    }

    /// Term `term`'s text and hash.
    pub(super) fn term(&self, term: u32) -> (&[u16], u32) {
        let slot = &self.by_term[term as usize];
        (&self.table.text[slot.start as usize..(slot.start + slot.len) as usize], slot.hash)
    }
}

/// A 32-bit hash of a term, small enough to keep beside it.
fn hash32(units: &[u16]) -> u32 {
    let h = hash_units(units);
    (h ^ (h >> 32)) as u32
}

/// Spreads a 32-bit hash over 64 bits; the table uses both ends.
fn widen(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Slice equality written as a plain loop: terms are a few units long, where
/// a call to `memcmp` costs more than the comparison.
fn units_eq(a: &[u16], b: &[u16]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The hash used for every UTF-16 keyed table in the search module.
/// Hashes JavaScript text for the catalog's and the index's tables.
///
/// foldhash over the units' bytes: it takes 8 bytes at a time where hashing
/// unit by unit takes 2, and its seed is random per process, so descriptions
/// crafted to collide (say, from a hostile MCP server) cannot be prepared in
/// advance. Seeds only place entries in tables; no result depends on them.
pub(crate) fn hash_units(units: &[u16]) -> u64 {
    // SAFETY: any u16 slice is also a valid, aligned u8 slice of twice the length.
    let bytes = unsafe { std::slice::from_raw_parts(units.as_ptr().cast::<u8>(), std::mem::size_of_val(units)) };
    hash_bytes(bytes)
}

/// [`hash_units`]'s hash of any bytes (the embedding model's tables of
/// words and texts, by their UTF-8).
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    static STATE: std::sync::OnceLock<foldhash::fast::FixedState> = std::sync::OnceLock::new();
    let state = STATE.get_or_init(|| {
        let seed = std::collections::hash_map::RandomState::new().build_hasher().finish();
        foldhash::fast::FixedState::with_seed(seed)
    });
    let mut hasher = state.build_hasher();
    hasher.write(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn add(builder: &mut Bm25Builder, text: &str) -> DocId {
        let lowered = crate::js::to_lower_utf16(&u(text));
        builder.add(&[&lowered])
    }

    fn score(index: &Bm25Index, query: &str) -> Vec<(DocId, f64)> {
        let q = u(query);
        let terms: Vec<&[u16]> = q.split(|&c| c == u16::from(b' ')).collect();
        index.score(terms).into_iter().map(|s| (s.doc, s.score)).collect()
    }

    fn two_docs() -> Bm25Index {
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
    fn remove_retires_the_slot() {
        let mut builder = Bm25Index::builder();
        let a = add(&mut builder, "alpha beta");
        let b = add(&mut builder, "alpha gamma");
        builder.remove(a);
        builder.remove(a);
        let index = builder.finish();
        assert_eq!(index.len(), 1);
        assert_eq!(index.slot_count(), 2);
        assert!(!index.is_live(a));
        let hits = score(&index, "alpha beta");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].0, b);
        // N = 1, df = 1: idf = ln(0.5 / 1.5 + 1); len = avg = 2.
        let want = term_score(1.0, 2.0, 2.0, idf(1.0, 1.0));
        assert_eq!(hits[0].1, want);
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

    #[test]
    fn top_is_a_stable_sort_cut_to_the_limit() {
        // Many equal scores (same lengths, same counts), so ties decide.
        let mut rng = crate::test_rng::Rng::new(3);
        let words = ["alpha", "beta", "gamma", "delta", "x"];
        let mut builder = Bm25Index::builder();
        for i in 0..400 {
            let mut text = String::new();
            for _ in 0..1 + rng.next() % 4 {
                text.push_str(words[(rng.next() % 5) as usize]);
                text.push(' ');
            }
            let doc = add(&mut builder, &text);
            if i % 7 == 3 {
                builder.remove(doc);
            }
        }
        let index = builder.finish();
        for query in ["alpha", "alpha beta", "gamma gamma delta", "beta x alpha", "nothing", ""] {
            let q = u(query);
            let terms: Vec<&[u16]> = q.split(|&c| c == u16::from(b' ')).collect();
            let mut sorted = index.score(terms.iter().copied());
            sorted.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap());
            for limit in [0.0, 1.0, 2.5, 10.0, 64.0, 65.0, 300.0, 1e9, f64::INFINITY, -1.0, -5.0, f64::NAN] {
                let (_, end) = js_slice_bounds(sorted.len(), 0.0, Some(limit));
                let want: Vec<(DocId, u64)> = sorted[..end].iter().map(|h| (h.doc, h.score.to_bits())).collect();
                let got: Vec<(DocId, u64)> =
                    index.top(terms.iter().copied(), limit).iter().map(|h| (h.doc, h.score.to_bits())).collect();
                assert_eq!(got, want, "{query:?} limit {limit}");
            }
        }
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
    fn scores_do_not_leak_between_searches_of_different_indexes() {
        let big = {
            let mut builder = Bm25Index::builder();
            for _ in 0..50 {
                add(&mut builder, "weather report");
            }
            builder.finish()
        };
        let small = two_docs();
        let before = score(&small, "weather");
        assert_eq!(score(&big, "weather").len(), 50);
        assert_eq!(score(&small, "weather"), before);
        assert_eq!(score(&big, "weather weather"), score(&big, "weather weather"));
    }

    #[test]
    fn recent_terms_evicted_or_colliding_still_name_each_token_once() {
        // Far more distinct tokens than the memo has entries, met again in
        // another order: each query term finds exactly the documents with it.
        let mut builder = Bm25Index::builder();
        let word = |k: usize| format!("w{k}");
        let docs: Vec<[usize; 2]> = (0..6000).map(|i| [i % 3000, (i * 7 + 1) % 3000]).collect();
        for pair in &docs {
            add(&mut builder, &format!("{} {}", word(pair[0]), word(pair[1])));
        }
        let index = builder.finish();
        assert_eq!(index.terms.len(), 3000);
        for k in (0..3000).step_by(97) {
            let want: Vec<DocId> = (0..docs.len() as DocId).filter(|&d| docs[d as usize].contains(&k)).collect();
            let mut got: Vec<DocId> = score(&index, &word(k)).into_iter().map(|(doc, _)| doc).collect();
            got.sort_unstable();
            assert_eq!(got, want, "w{k}");
        }
    }

    #[test]
    fn appended_builders_answer_as_one_builder_even_when_added_to_after() {
        let texts: Vec<String> = (0..60).map(|i| format!("w{} w{} shared x{}", i % 7, i % 5, i % 3)).collect();
        // Three builders appended into a fourth, nested, then two more documents.
        let mut parts: Vec<Bm25Builder> = (0..4).map(|_| Bm25Index::builder()).collect();
        for (i, text) in texts[..58].iter().enumerate() {
            add(&mut parts[i / 15], text);
        }
        let mut last = parts.pop().unwrap();
        let third = parts.pop().unwrap();
        let mut second = parts.pop().unwrap();
        let mut first = parts.pop().unwrap();
        second.append(third);
        first.append(second);
        add(&mut last, "late only");
        first.append(last);
        // One builder given the same documents in the same order.
        let mut whole_reordered = Bm25Index::builder();
        for text in
            texts[..58].iter().map(String::as_str).chain(["late only"]).chain(texts[58..].iter().map(String::as_str))
        {
            add(&mut whole_reordered, text);
        }
        for text in &texts[58..] {
            add(&mut first, text);
        }
        first.remove(3);
        whole_reordered.remove(3);
        let (a, b) = (first.finish(), whole_reordered.finish());
        for query in ["w1", "shared w3 x2", "late", "x0 x0", "only w6"] {
            let hits = |index: &Bm25Index| -> Vec<(DocId, u64)> {
                score(index, query).into_iter().map(|(doc, score)| (doc, score.to_bits())).collect()
            };
            assert!(!hits(&a).is_empty(), "{query}");
            assert_eq!(hits(&a), hits(&b), "{query}");
        }
    }

    #[test]
    fn empty_index() {
        let index = Bm25Index::default();
        assert!(index.is_empty());
        assert_eq!(score(&index, "anything"), vec![]);
    }
}
