//! Building an index: documents added one by one (tokenized here, or as
//! term counts a tool pool kept), retired, or taken from another builder
//! ([`Bm25Builder::append`]), then laid out as postings grouped by term,
//! each weighed once ([`Bm25Builder::finish`]).

use crate::search::tokenize::for_each_token;

use super::terms::{hash32, widen, RecentTerms, TermTable};
use super::{average_len, length_norm, tf_weight, Bm25Index, DocId};

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
    /// them, as a `ToolPool` asks) with their counts, in any order, a term
    /// possibly more than once (its counts add up), and returns its slot:
    /// what [`add`](Self::add) does after tokenizing, for text tokenized once
    /// and kept (see [`crate::search::pool`]).
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

    /// The number of a term new to this builder (a
    /// [`TermDict`](super::TermDict) term met the first time), given its text
    /// and its hash as the `TermDict` keeps it, for
    /// [`add_counts`](Self::add_counts): numbered without looking it up.
    pub(in crate::search) fn intern_new_hashed(&mut self, token: &[u16], hash: u32) -> u32 {
        debug_assert!(self.terms.get(token).is_none(), "a term interned as new was there already");
        self.terms.insert_new(token, hash).term
    }

    /// Room for this many more distinct terms.
    pub(in crate::search) fn reserve_terms(mut self, terms: usize, text_len: usize) -> Bm25Builder {
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

#[cfg(test)]
mod tests {
    use crate::search::bm25::tests::{add, score};
    use crate::search::bm25::{idf, term_score, Bm25Builder, Bm25Index, DocId};

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
}
