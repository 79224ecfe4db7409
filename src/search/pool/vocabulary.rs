//! The pool's vocabulary: how its terms are numbered in a tool's counts and
//! in a selection's index ([`Numbering`]), and when and how it is rebuilt
//! from the terms its tools still use ([`ToolPool::compact`]).

use crate::search::bm25::{Bm25Builder, TermDict};

use super::ToolPool;

/// A vocabulary this much larger than its tools' terms is rebuilt (with at
/// least this many terms to spare, so small pools never are).
pub(super) const COMPACT_SPARE_TERMS: usize = 4096;

impl ToolPool {
    /// Rebuilds the vocabulary from the terms the pool's tools use, and
    /// renumbers them, once it has grown past twice that (and past a quarter
    /// of their tokens, so that a rebuild, which reads every tool's tokens,
    /// is paid for by the new terms since the last).
    pub fn compact(&mut self) {
        let mut kept = TermDict::default();
        let mut renumber = vec![u32::MAX; self.terms.len()];
        let mut tokens = 0usize;
        for tool in self.tools.iter_mut().flatten() {
            for term in tool.term_numbers() {
                let new = &mut renumber[*term as usize];
                if *new == u32::MAX {
                    *new = kept.intern(self.terms.term(*term).0);
                }
                *term = *new;
                tokens += 1;
            }
        }
        self.terms = kept;
        let live = self.terms.len();
        self.compact_above = live + live.max(tokens / 4) + COMPACT_SPARE_TERMS;
        // Renumbered: every term starts unmet again, in both numberings.
        self.numbering.local = vec![u32::MAX; live];
        self.second_numbering.local = vec![u32::MAX; live];
    }
}

/// Where an index numbers the vocabulary's terms while a selection is laid
/// out into it: per vocabulary term its number there (`u32::MAX`: not met
/// yet; all `u32::MAX` in between), the terms given one (to reset), and a
/// document's counts.
#[derive(Default)]
pub(super) struct Numbering {
    pub(super) local: Vec<u32>,
    pub(super) met: Vec<u32>,
    pub(super) counts: Vec<(u32, u32)>,
}

/// The number in `index` of the vocabulary's `term`, given it there the
/// first time (`local` and `met` as in [`Numbering::local`]).
/// Positional: the per-term kernel of laying out a selection; `local` and
/// `met` are a [`Numbering`]'s fields, borrowed apart from its `counts`,
/// which the caller pushes the answer to.
pub(super) fn index_term(
    index: &mut Bm25Builder,
    terms: &TermDict,
    local: &mut Vec<u32>,
    met: &mut Vec<u32>,
    term: u32,
) -> u32 {
    if local.len() <= term as usize {
        local.resize(terms.len().max(term as usize + 1), u32::MAX);
    }
    let number = &mut local[term as usize];
    if *number == u32::MAX {
        // The vocabulary's terms are distinct texts: met the first time, the
        // text is new to this index.
        let (text, hash) = terms.term(term);
        *number = index.intern_new_hashed(text, hash);
        met.push(term);
    }
    *number
}

/// Counts `count` more of `term` in `counts` (distinct terms in order of
/// first occurrence), `local` saying where each term already is (see
/// [`Numbering::local`], reset with [`reset_local`]).
/// Positional: the per-token kernel of analysing a tool (every token of
/// every description); its first three are a [`Numbering`]'s fields, taken
/// apart as [`index_term`] takes them.
pub(super) fn count_term(
    local: &mut Vec<u32>,
    met: &mut Vec<u32>,
    counts: &mut Vec<(u32, u32)>,
    term: u32,
    count: u32,
) {
    if local.len() <= term as usize {
        local.resize(term as usize + 1, u32::MAX);
    }
    let at = &mut local[term as usize];
    if *at == u32::MAX {
        *at = counts.len() as u32;
        met.push(term);
        counts.push((term, count));
    } else {
        counts[*at as usize].1 += count;
    }
}

pub(super) fn reset_local(local: &mut [u32], met: &mut Vec<u32>) {
    for term in met.drain(..) {
        local[term as usize] = u32::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::COMPACT_SPARE_TERMS;
    use crate::search::pool::tests::*;
    use crate::search::pool::{Slot, ToolPool};
    use crate::search::Ranking;
    use crate::test_rng::Rng;

    #[test]
    fn the_vocabulary_is_rebuilt_from_the_tools_alive_and_searches_the_same() {
        let mut pool = ToolPool::new(Ranking::Reference);
        let mut rng = Rng::new(12);
        // Tools come and go, each with words of its own: without rebuilds the
        // vocabulary would keep every word ever seen.
        let mut alive: Vec<Tool> = Vec::new();
        for round in 0..60u32 {
            let made: Vec<Tool> = (0..50)
                .map(|i| Tool {
                    key: u(&format!("k{i}")),
                    id: Some(u(&format!("tool_{round}_{i}"))),
                    description: u(&format!("word{round}x{i} other{} weather {}", rng.next() % 1000, round * 50 + i)),
                    parameters: vec![],
                })
                .collect();
            for (slot, tool) in made.iter().enumerate() {
                if round > 0 {
                    pool.release(slot as Slot).unwrap();
                }
                // The slot just emptied, or the next.
                assert_eq!(add(&mut pool, tool), slot as Slot);
            }
            alive = made;
            let picked: Vec<(Slot, &Tool)> = alive.iter().enumerate().map(|(i, t)| (i as Slot, t)).collect();
            let catalog = from_pool(&mut pool, &picked);
            if round % 10 == 0 {
                let tools: Vec<&Tool> = alive.iter().collect();
                assert_same(&catalog, &from_text(&tools, Ranking::Reference), "rebuilt");
            }
        }
        assert_eq!(pool.len(), 50);
        // 60 rounds of 50 tools brought about 9,000 terms; the rebuilds keep
        // the vocabulary to what is alive plus the spare.
        assert!(pool.term_count() < 400 + 2 * COMPACT_SPARE_TERMS, "{}", pool.term_count());
        let tools: Vec<&Tool> = alive.iter().collect();
        let picked: Vec<(Slot, &Tool)> = alive.iter().enumerate().map(|(i, t)| (i as Slot, t)).collect();
        assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, Ranking::Reference), "last");
    }
}
