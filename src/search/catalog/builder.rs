//! A catalog made one string at a time ([`CatalogBuilder`]), for tests and
//! small catalogs; it builds through [`Catalog::with_ranking`].

use crate::search::params::ParamTable;
use crate::search::span::{EntrySpans, Span};

use super::ranking::Ranking;
use super::{Catalog, CatalogError};

/// Collects entries one string at a time into a single buffer.
#[derive(Default)]
pub struct CatalogBuilder {
    pub(in crate::search) text: Vec<u16>,
    pub(in crate::search) entries: Vec<EntrySpans>,
    /// The entries' parameters, from the first entry pushed with some.
    params: Option<ParamTable>,
    ranking: Ranking,
    /// Whether the catalog keeps the parameters whatever its ranking.
    keeps_parameters: bool,
}

impl CatalogBuilder {
    /// Appends an entry: record key, `tool.id` (if a non-empty string) and
    /// `tool.description || ''`.
    pub fn push(&mut self, key: &[u16], id: Option<&[u16]>, description: &[u16]) -> &mut Self {
        let key = self.append(key);
        let id = id.map(|id| self.append(id));
        let description = self.append(description);
        self.entries.push(EntrySpans { key, id, description });
        if let Some(params) = &mut self.params {
            params.push([]);
        }
        self
    }

    /// [`push`](Self::push), with the tool's parameters as `(name, description)`.
    pub fn push_with_parameters<'p>(
        &mut self,
        key: &[u16],
        id: Option<&[u16]>,
        description: &[u16],
        parameters: impl IntoIterator<Item = (&'p [u16], &'p [u16])>,
    ) -> &mut Self {
        let key = self.append(key);
        let id = id.map(|id| self.append(id));
        let description = self.append(description);
        self.entries.push(EntrySpans { key, id, description });
        let earlier = self.entries.len() - 1;
        self.params
            .get_or_insert_with(|| {
                let mut params = ParamTable::new();
                for _ in 0..earlier {
                    params.push([]);
                }
                params
            })
            .push(parameters);
        self
    }

    /// Room for `text_len` more units of text and `entries` more entries.
    pub fn reserve(&mut self, text_len: usize, entries: usize) -> &mut Self {
        self.text.reserve(text_len);
        self.entries.reserve(entries);
        self
    }

    /// The ranking the catalog will use (the reference's unless set).
    pub fn ranking(&mut self, ranking: Ranking) -> &mut Self {
        self.ranking = ranking;
        self
    }

    /// Keeps the entries' parameters even when the ranking does not read
    /// them (for a `search_tools` pattern, which is matched against them).
    pub fn keep_parameters(&mut self, keep: bool) -> &mut Self {
        self.keeps_parameters = keep;
        self
    }

    /// [`push`](Self::push) with Rust strings.
    pub fn push_str(&mut self, key: &str, id: Option<&str>, description: &str) -> &mut Self {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        self.push(&units(key), id.map(units).as_deref(), &units(description))
    }

    fn append(&mut self, units: &[u16]) -> Span {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(units);
        Span::new(start, self.text.len() as u32)
    }

    pub fn build(self) -> Result<Catalog, CatalogError> {
        let params = self.params.filter(|_| self.ranking.reads_parameters() || self.keeps_parameters);
        Catalog::with_ranking(self.text, self.entries, self.ranking, params)
    }

    /// The text and spans, for [`Catalog::new`] elsewhere.
    pub fn into_parts(self) -> (Vec<u16>, Vec<EntrySpans>) {
        (self.text, self.entries)
    }
}
