//! One tool as the pool keeps it ([`PoolTool`]): its text shared with the
//! catalogs made of it, and its analysis for the reference's ranking, as
//! numbers in the pool's vocabulary. Every other part of the pool reads it;
//! it reads only the pool's types.

use std::sync::Arc;

use crate::search::params::ParamTable;

use super::{PoolError, Slot};

/// One tool as analysed, in few allocations: a pool's tools are read in
/// the order of each selection, and each allocation is a cache miss then.
pub(super) struct PoolTool {
    /// `tool.id` (when it is a string: `''` included, the name is then the
    /// key), the description, then (for the reference's ranking, with a
    /// non-empty id) the id lowercased. Shared with the catalogs made of it.
    pub(super) text: Arc<[u16]>,
    /// `tool.id`'s length, or `None` when it is no string.
    pub(super) id_len: Option<u32>,
    pub(super) description_len: u32,
    /// For the reference's ranking: the document's distinct terms with their
    /// counts, `[term, count, ...]`: its name's and description's when the
    /// name is the id, its description's alone when the name is the key (of
    /// each selection).
    pub(super) terms: Vec<u32>,
    /// Its parameters, for a ranking that reads them or a pool that keeps
    /// them (one entry).
    pub(super) parameters: Option<ParamTable>,
}

impl PoolTool {
    pub(super) fn id(&self) -> Option<&[u16]> {
        self.id_len.map(|len| &self.text[..len as usize])
    }

    /// Whether the name is the id (`id || key`), which is then in `terms`.
    pub(super) fn named_by_id(&self) -> bool {
        self.id_len.is_some_and(|len| len > 0)
    }

    /// The id lowercased, when it is the name.
    pub(super) fn lower_id(&self) -> &[u16] {
        &self.text[(self.id_len.unwrap_or(0) + self.description_len) as usize..]
    }

    /// The terms' numbers in `terms` (every other number).
    pub(super) fn term_numbers(&mut self) -> impl Iterator<Item = &mut u32> {
        self.terms.iter_mut().step_by(2)
    }
}

/// The tool in `slot`, or why there is none.
pub(super) fn pool_tool(tools: &[Option<PoolTool>], slot: Slot) -> Result<&PoolTool, PoolError> {
    match tools.get(slot as usize) {
        Some(Some(tool)) => Ok(tool),
        Some(None) => Err(PoolError::EmptySlot(slot)),
        None => Err(PoolError::SlotOutOfRange(slot)),
    }
}
