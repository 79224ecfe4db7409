//! Where a search adds up its scores: a dense array by document slot, one
//! per thread and reused from search to search, left clean after each
//! ([`ScoreRun`]), and the hits it hands out in first-touch order ([`Hits`]).

use super::{DocId, Scored};

/// The hits of a search in first-touch order: the touched slots with their
/// scores, NaN scores left out (the reference keeps `score >= 0`).
#[derive(Clone, Copy)]
pub(super) struct Hits<'s> {
    pub(super) touched: &'s [DocId],
    pub(super) scores: &'s [f64],
}

impl<'s> Hits<'s> {
    /// How many hits there are (a pass over the touched documents).
    pub(super) fn len(&self) -> usize {
        let scores = self.scores;
        if self.touched.iter().all(|&doc| scores[doc as usize] >= 0.0) {
            self.touched.len()
        } else {
            self.touched.iter().filter(|&&doc| scores[doc as usize] >= 0.0).count()
        }
    }

    pub(super) fn iter(self) -> impl Iterator<Item = Scored> + 's {
        let scores = self.scores;
        self.touched.iter().map(move |&doc| Scored { doc, score: scores[doc as usize] }).filter(|hit| hit.score >= 0.0)
    }
}

/// The scores of one search, in a dense array reused across searches.
#[derive(Default)]
pub(super) struct ScoreScratch {
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
    pub(super) static SCORE_SCRATCH: std::cell::RefCell<ScoreScratch> = std::cell::RefCell::default();
}

/// A slot not touched yet. A NaN no arithmetic produces (and nothing is ever
/// added to it), so a touched slot whose score became NaN is not mistaken for it.
const UNTOUCHED: u64 = 0xFFF4_0000_0000_0001;

/// A search in progress over a [`ScoreScratch`]; leaves it clean when
/// dropped, finished or not.
pub(super) struct ScoreRun<'s> {
    scratch: &'s mut ScoreScratch,
}

impl ScoreScratch {
    pub(super) fn start(&mut self, slots: usize) -> ScoreRun<'_> {
        if self.scores.len() < slots {
            self.scores.resize(slots, f64::from_bits(UNTOUCHED));
        }
        ScoreRun { scratch: self }
    }
}

impl ScoreRun<'_> {
    /// Adds one query term's postings, `idf * weight` each.
    pub(super) fn add_postings(&mut self, docs: &[DocId], weights: &[f64], idf: f64) {
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

    pub(super) fn finish(self, done: impl FnOnce(Hits<'_>)) {
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

#[cfg(test)]
mod tests {
    use crate::search::bm25::tests::{add, score, two_docs};
    use crate::search::bm25::Bm25Index;

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
}
