//! Cache hints for laying out a selection: it reads the pool's tools in its
//! own, random order, each a cache miss, and asked for ahead of time the
//! misses overlap.

use super::tool::PoolTool;
use super::PoolEntry;

/// How many tools ahead of the one being read [`prefetch_ahead`] asks for
/// a tool's text and terms; twice as far, for where the tool itself is.
const PREFETCH_DISTANCE: usize = 8;

/// Asks the processor to load what the selection's tools `at +`
/// [`PREFETCH_DISTANCE`] (their text and terms) and twice as far (the slot
/// itself) will need. A selection reads the pool in its own, random order,
/// and each tool's data is a cache miss; asked for early, the misses overlap
/// rather than come one after another.
pub(super) fn prefetch_ahead(tools: &[Option<PoolTool>], selection: &[PoolEntry<'_>], at: usize) {
    if let Some(far) = selection.get(at + 2 * PREFETCH_DISTANCE).and_then(|entry| tools.get(entry.slot as usize)) {
        prefetch(far);
    }
    let near = selection.get(at + PREFETCH_DISTANCE).and_then(|entry| tools.get(entry.slot as usize));
    if let Some(Some(tool)) = near {
        // The text's start (its id, and the shared count just before it)
        // and its lowercased id; the description is not read.
        prefetch(tool.text.as_ptr());
        prefetch_all(tool.lower_id());
        prefetch_all(&tool.terms);
    }
}

/// Prefetches the cache lines `items` spans.
fn prefetch_all<T>(items: &[T]) {
    const LINE: usize = 64;
    let bytes = std::mem::size_of_val(items);
    let start = items.as_ptr().cast::<u8>();
    for offset in (0..bytes).step_by(LINE) {
        prefetch(start.wrapping_add(offset));
    }
}

/// A hint that `address` will be read soon (nothing where the processor
/// offers no such hint).
#[inline(always)]
fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    // SAFETY: a prefetch only hints the cache: it reads nothing the program
    // sees and faults on no address, valid or not.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
