//! Tools' parameters (names and descriptions), for rankings that read them.
//!
//! Like the catalog's own strings, they arrive in one UTF-16 buffer: per
//! entry, in record order, a run of `(name, description)` span pairs.

use super::catalog::{CatalogError, Span};

/// The parameters of every entry of a catalog.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamTable {
    text: Vec<u16>,
    params: Vec<(Span, Span)>,
    /// Entry `i`'s parameters are `params[ends[i - 1]..ends[i]]`.
    ends: Vec<u32>,
}

impl ParamTable {
    pub fn new() -> ParamTable {
        ParamTable::default()
    }

    /// From a buffer and, per entry, its parameters' `(name, description)`
    /// spans in that buffer. Refuses spans outside the text.
    pub fn from_spans(text: Vec<u16>, entries: Vec<Vec<(Span, Span)>>) -> Result<ParamTable, CatalogError> {
        if u32::try_from(text.len()).is_err() {
            return Err(CatalogError::TooLarge);
        }
        let mut table = ParamTable { text, params: Vec::new(), ends: Vec::with_capacity(entries.len()) };
        for (entry, params) in entries.into_iter().enumerate() {
            for &(name, description) in &params {
                for span in [name, description] {
                    if span.start > span.end || span.end as usize > table.text.len() {
                        return Err(CatalogError::BadSpan { entry, span, text_len: table.text.len() });
                    }
                }
            }
            table.params.extend(params);
            table.ends.push(u32::try_from(table.params.len()).map_err(|_| CatalogError::TooLarge)?);
        }
        Ok(table)
    }

    /// Appends an entry with these parameters.
    pub fn push<'a>(&mut self, params: impl IntoIterator<Item = (&'a [u16], &'a [u16])>) {
        for (name, description) in params {
            let name = self.append(name);
            let description = self.append(description);
            self.params.push((name, description));
        }
        self.ends.push(self.params.len() as u32);
    }

    fn append(&mut self, units: &[u16]) -> Span {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(units);
        Span::new(start, self.text.len() as u32)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Entry `entry`'s parameters as `(name, description)`; none for an
    /// entry past the end.
    pub fn entry(&self, entry: usize) -> impl Iterator<Item = (&[u16], &[u16])> + '_ {
        let end = self.ends.get(entry).map_or(0, |&e| e as usize);
        let start = if entry == 0 || end == 0 { 0 } else { self.ends[entry - 1] as usize };
        let piece = |span: Span| &self.text[span.start as usize..span.end as usize];
        self.params[start..end].iter().map(move |&(name, description)| (piece(name), piece(description)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn entries_keep_their_parameters() {
        let mut table = ParamTable::new();
        table.push([(&u("city")[..], &u("The city")[..]), (&u("unit")[..], &u("")[..])]);
        table.push([]);
        table.push([(&u("q")[..], &u("Query")[..])]);
        assert_eq!(table.len(), 3);
        let entry = |i| table.entry(i).map(|(n, d)| (n.to_vec(), d.to_vec())).collect::<Vec<_>>();
        assert_eq!(entry(0), [(u("city"), u("The city")), (u("unit"), vec![])]);
        assert_eq!(entry(1), []);
        assert_eq!(entry(2), [(u("q"), u("Query"))]);
        assert_eq!(entry(3), []);
    }

    #[test]
    fn spans_are_checked() {
        let text = u("cityThe city");
        let ok = ParamTable::from_spans(text.clone(), vec![vec![(Span::new(0, 4), Span::new(4, 12))], vec![]]).unwrap();
        assert_eq!(ok.entry(0).next(), Some((&u("city")[..], &u("The city")[..])));
        assert_eq!(ok.len(), 2);
        let bad = ParamTable::from_spans(text, vec![vec![], vec![(Span::new(0, 13), Span::new(0, 0))]]);
        assert!(matches!(bad, Err(CatalogError::BadSpan { entry: 1, .. })));
    }
}
