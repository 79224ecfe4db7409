//! The hash of the search module's tables: UTF-16 text (the catalog's
//! lookups, the BM25 terms, a step's keys) and, for the embedding model,
//! UTF-8 bytes. A leaf: it reads nothing of the crate.

use std::hash::{BuildHasher, Hasher};

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
