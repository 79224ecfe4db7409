//! A catalog's strings ([`CatalogText`]): its own buffer, and the tool text
//! a pool shares with it rather than copying. A leaf of `catalog`.

use std::sync::Arc;

use crate::search::span::Span;

/// A catalog's strings: its own buffer and, for a catalog made from a
/// [`crate::search::pool::ToolPool`], each entry's tool text as the pool keeps it,
/// shared rather than copied (a step catalog of thousands of pooled tools
/// would otherwise copy megabytes of descriptions, and keep them for as long
/// as the step lives).
pub(in crate::search) struct CatalogText {
    pub(super) own: Vec<u16>,
    /// Per entry, its tool's text in the pool; empty when no span is in
    /// shared text.
    pub(super) shared: Vec<Arc<[u16]>>,
    /// Per entry with shared text, the hash of its id (`hash_units`), as the
    /// pool keeps it: the lookups then read no shared text to hash it.
    pub(super) id_hashes: Vec<u64>,
}

/// A span whose start and end carry this bit is within its entry's shared
/// text (see [`CatalogText`]), at the offsets without it. Own text is
/// shorter than this, so no span of it has the bit.
pub(in crate::search) const IN_SHARED: u32 = 1 << 31;

impl CatalogText {
    /// Text of its own only.
    pub(super) fn own(own: Vec<u16>) -> CatalogText {
        CatalogText { own, shared: Vec::new(), id_hashes: Vec::new() }
    }

    /// Text of its own (keys that are not their tool's id) and each entry's
    /// shared tool text, with the hash of each entry's id (`hash_units` of
    /// its id, 0 for an entry without one).
    pub(in crate::search) fn with_shared(own: Vec<u16>, shared: Vec<Arc<[u16]>>, id_hashes: Vec<u64>) -> CatalogText {
        CatalogText { own, shared, id_hashes }
    }

    /// The text of `entry`'s `span` (checked by [`Catalog::check_text`](super::Catalog::check_text)).
    #[inline]
    pub(super) fn get(&self, entry: usize, span: Span) -> &[u16] {
        if span.start & IN_SHARED != 0 {
            &self.shared[entry][(span.start & !IN_SHARED) as usize..(span.end & !IN_SHARED) as usize]
        } else {
            &self.own[span.range()]
        }
    }

    /// Units of text in all, own and shared (shared text counted once per entry).
    pub(super) fn len(&self) -> usize {
        self.own.len() + self.shared.iter().map(|text| text.len()).sum::<usize>()
    }
}
