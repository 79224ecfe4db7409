//! Where a tool's strings lie in the UTF-16 text they crossed in: the
//! catalog, the tool table and the parameter table all address that text
//! by span.

/// A `[start, end)` range of UTF-16 units in a catalog's text buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    pub(super) fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Where one record entry's strings live in the text buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntrySpans {
    /// The record key.
    pub key: Span,
    /// `tool.id`, when it is a string. `''` is a real id (`find_by_id('')`
    /// finds it) but indexes under the key, since `tool.id || key` falls back.
    pub id: Option<Span>,
    /// `tool.description || ''`.
    pub description: Span,
}

impl EntrySpans {
    /// The span the entry is indexed under: `tool.id || key`.
    pub(super) fn name(&self) -> Span {
        self.id.filter(|id| id.start != id.end).unwrap_or(self.key)
    }
}
