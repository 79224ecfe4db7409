//! The first hits of a stable sort by score, cut to a JavaScript limit
//! ([`Bm25Index::top`](super::Bm25Index::top)): for a small limit selected
//! in one pass without the sort, for a large one sorted.

use crate::js::js_slice_bounds;

use super::scratch::Hits;
use super::Scored;

/// The hits of `scored` stably sorted by score, highest first, and cut
/// with `hits.slice(0, limit)` (any JS number), into `top`. Inlined into
/// its one caller, on every search's path.
#[inline]
pub(super) fn top_of(scored: Hits<'_>, limit: f64, top: &mut Vec<Scored>) {
    // The touched documents bound the hits: a limit that keeps no
    // more than SELECT_UP_TO of them from the start (a negative one
    // counts from the end) selects the same without counting the hits.
    let (_, bound) = js_slice_bounds(scored.touched.len(), 0.0, Some(limit));
    let end =
        if limit >= 0.0 && bound <= SELECT_UP_TO { bound } else { js_slice_bounds(scored.len(), 0.0, Some(limit)).1 };
    if end <= SELECT_UP_TO {
        select_top(scored.iter(), end, top);
    } else {
        top.extend(scored.iter());
        // JS `hits.sort((a, b) => b.score - a.score)`: stable, and no
        // score is NaN (those were dropped).
        top.sort_by(|a, b| b.score.partial_cmp(&a.score).unwrap_or(std::cmp::Ordering::Equal));
        top.truncate(end);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::bm25::tests::{add, u};
    use crate::search::bm25::{Bm25Index, DocId};

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
}
