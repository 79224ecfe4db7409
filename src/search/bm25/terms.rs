//! The index's vocabulary: each distinct token stored once and known by a
//! number ([`TermTable`]), a memo of the tokens met lately in front of it
//! ([`RecentTerms`]), and the numbered vocabulary a tool pool keeps its
//! tools' text in ([`TermDict`]). A leaf of `bm25`: it reads only the
//! search module's hash.

use hashbrown::HashTable;

use crate::search::hash::hash_units;

/// Interned terms: each distinct token is stored once and known by number.
#[derive(Default)]
pub(super) struct TermTable {
    /// All term text, back to back.
    pub(super) text: Vec<u16>,
    /// Where each term's text is, with its number and hash. Kept in the
    /// table itself so a probe reads the text directly and growing the table
    /// never rereads it.
    pub(super) table: HashTable<TermSlot>,
    count: u32,
}

#[derive(Clone, Copy)]
pub(super) struct TermSlot {
    pub(super) start: u32,
    pub(super) len: u32,
    pub(super) term: u32,
    pub(super) hash: u32,
}

impl TermTable {
    pub(super) fn len(&self) -> usize {
        self.count as usize
    }

    pub(super) fn matches(text: &[u16], slot: &TermSlot, token: &[u16]) -> bool {
        slot.len as usize == token.len() && units_eq(&text[slot.start as usize..][..token.len()], token)
    }

    pub(super) fn get(&self, token: &[u16]) -> Option<u32> {
        let hash = hash32(token);
        self.table
            .find(widen(hash), |slot| slot.hash == hash && TermTable::matches(&self.text, slot, token))
            .map(|slot| slot.term)
    }

    pub(super) fn intern_hashed(&mut self, token: &[u16], hash: u32) -> u32 {
        self.intern_slot(token, hash).term
    }

    /// The slot of a token (its `hash32` is `hash`), interned if new.
    pub(super) fn intern_slot(&mut self, token: &[u16], hash: u32) -> TermSlot {
        let text = &self.text;
        if let Some(slot) =
            self.table.find(widen(hash), |slot| slot.hash == hash && TermTable::matches(text, slot, token))
        {
            return *slot;
        }
        self.insert_new(token, hash)
    }

    /// Interns a token known not to be here yet.
    pub(super) fn insert_new(&mut self, token: &[u16], hash: u32) -> TermSlot {
        let slot = TermSlot { start: self.text.len() as u32, len: token.len() as u32, term: self.count, hash };
        self.text.extend_from_slice(token);
        self.count += 1;
        self.table.insert_unique(widen(hash), slot, |slot| widen(slot.hash));
        slot
    }
}

/// Interned terms that can also be read back by number: the vocabulary of
/// a [`crate::search::pool::ToolPool`], whose tools keep their text as these numbers.
#[derive(Default)]
pub(in crate::search) struct TermDict {
    table: TermTable,
    /// Term `t`'s text and hash (where it is in `table`).
    by_term: Vec<TermSlot>,
}

impl TermDict {
    pub(in crate::search) fn len(&self) -> usize {
        self.by_term.len()
    }

    /// The number of a token, interned if new.
    pub(in crate::search) fn intern(&mut self, token: &[u16]) -> u32 {
        let hash = hash32(token);
        let term = self.table.intern_hashed(token, hash);
        if term as usize == self.by_term.len() {
            let (len, end) = (token.len() as u32, self.table.text.len() as u32);
            self.by_term.push(TermSlot { start: end - len, len, term, hash });
        }
        term
    }

    /// The number of a token, if it is a term.
    pub(in crate::search) fn get(&self, token: &[u16]) -> Option<u32> {
        self.table.get(token)
    }

    /// The length of all its terms' text.
    pub(in crate::search) fn text_len(&self) -> usize {
        self.table.text.len()
    }

    /// Term `term`'s text and hash.
    pub(in crate::search) fn term(&self, term: u32) -> (&[u16], u32) {
        let slot = &self.by_term[term as usize];
        (&self.table.text[slot.start as usize..(slot.start + slot.len) as usize], slot.hash)
    }
}

/// A small direct-mapped memo in front of the term table, by hash: most
/// tokens of a catalog are a few hundred common words, whose entries stay in
/// the first level of cache here, where the table itself is too large to.
/// An entry is only used when its text equals the token, so it never changes
/// which number a token gets.
#[derive(Default)]
pub(super) struct RecentTerms {
    slots: Vec<TermSlot>,
}

impl RecentTerms {
    /// Entries; a power of two (16 bytes each: 16 KiB).
    const SIZE: usize = 1024;

    /// The number of `token` (its `hash32` is `hash`), interned in `terms` if new.
    #[inline]
    pub(super) fn intern(&mut self, terms: &mut TermTable, token: &[u16], hash: u32) -> u32 {
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

/// A 32-bit hash of a term, small enough to keep beside it.
pub(super) fn hash32(units: &[u16]) -> u32 {
    let h = hash_units(units);
    (h ^ (h >> 32)) as u32
}

/// Spreads a 32-bit hash over 64 bits; the table uses both ends.
pub(super) fn widen(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Slice equality written as a plain loop: terms are a few units long, where
/// a call to `memcmp` costs more than the comparison.
fn units_eq(a: &[u16], b: &[u16]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use crate::search::bm25::tests::{add, score};
    use crate::search::bm25::{Bm25Index, DocId};

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
}
