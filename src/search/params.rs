//! Tools' parameters (names and descriptions), for rankings that read them.
//!
//! Like the catalog's own strings, they arrive in one UTF-16 buffer: per
//! entry, in record order, a run of `(name, description)` span pairs.

use super::span::Span;

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

    /// From a buffer, every parameter's `(name, description)` spans in it,
    /// and where each entry's parameters end (see [`super::table::read_parameters`],
    /// which checks them).
    pub(super) fn from_parts(text: Vec<u16>, params: Vec<(Span, Span)>, ends: Vec<u32>) -> ParamTable {
        debug_assert!(ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e as usize == params.len()));
        ParamTable { text, params, ends }
    }

    /// Appends an entry with these parameters.
    pub fn push<'a>(&mut self, params: impl IntoIterator<Item = (&'a [u16], &'a [u16])>) {
        for (name, description) in params {
            let name = self.append_text(name);
            let description = self.append_text(description);
            self.params.push((name, description));
        }
        self.ends.push(self.params.len() as u32);
    }

    /// Appends `next`'s entries after this table's.
    pub fn append(&mut self, next: ParamTable) {
        let (text, params) = (self.text.len() as u32, self.params.len() as u32);
        self.text.extend_from_slice(&next.text);
        let moved = |span: Span| Span::new(span.start + text, span.end + text);
        self.params.extend(next.params.into_iter().map(|(name, description)| (moved(name), moved(description))));
        self.ends.extend(next.ends.into_iter().map(|end| end + params));
    }

    fn append_text(&mut self, units: &[u16]) -> Span {
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
    fn tables_append_as_if_pushed_in_one() {
        let (mut first, mut second, mut whole) = (ParamTable::new(), ParamTable::new(), ParamTable::new());
        let city = [(&u("city")[..], &u("The city")[..])];
        let q = [(&u("q")[..], &u("Query")[..]), (&u("n")[..], &u("")[..])];
        first.push(city);
        first.push([]);
        second.push([]);
        second.push(q);
        for params in [&city[..], &[], &[], &q[..]] {
            whole.push(params.iter().copied());
        }
        first.append(second);
        assert_eq!(first, whole);
    }
}
