//! The tool table: how a whole tools record crosses from JavaScript.
//!
//! Every key, id and description lies end to end in one UTF-16 text, and an
//! `Int32Array` holds per tool `[keyLength, idLength, descriptionLength]`, in
//! `Object.keys` order. The id length may instead be a [`marker`]: the tool
//! has no string id, or its id equals its key (then it is not repeated in the
//! text; most tools are keyed by their id).

use std::fmt;

use super::catalog::{EntrySpans, Span};

/// Numbers per tool.
pub const COLUMNS: usize = 3;

/// The id lengths that are not lengths.
pub mod marker {
    /// The tool has no string id.
    pub const NO_ID: i32 = -1;
    /// The tool's id equals its key.
    pub const ID_IS_KEY: i32 = -2;
}

/// A table that does not follow the layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    /// The tool (row) where reading stopped.
    pub row: usize,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed tool table at tool {}", self.row)
    }
}

impl std::error::Error for TableError {}

/// The spans of each tool of a table over a text of `text_len` units. The
/// lengths must account for the text exactly; anything else is an error,
/// never a panic.
pub fn read_table(text_len: usize, table: &[i32]) -> Result<Vec<EntrySpans>, TableError> {
    if !table.len().is_multiple_of(COLUMNS) {
        return Err(TableError { row: table.len() / COLUMNS });
    }
    let mut at = 0u32;
    let mut entries = Vec::with_capacity(table.len() / COLUMNS);
    for (row, lengths) in table.chunks_exact(COLUMNS).enumerate() {
        let bad = || TableError { row };
        let mut take = |len: i32| -> Result<Span, TableError> {
            let len = u32::try_from(len).map_err(|_| bad())?;
            let span = Span::new(at, at.checked_add(len).ok_or_else(bad)?);
            at = span.end;
            Ok(span)
        };
        let key = take(lengths[0])?;
        let id = match lengths[1] {
            marker::NO_ID => None,
            marker::ID_IS_KEY => Some(key),
            len => Some(take(len)?),
        };
        let description = take(lengths[2])?;
        if at as usize > text_len {
            return Err(bad());
        }
        entries.push(EntrySpans { key, id, description });
    }
    if at as usize != text_len {
        return Err(TableError { row: entries.len() });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_ids_and_descriptions_in_order() {
        // "weather" (id = key) "Weather.", "mail" id "send" "", "x" (no id) "y"
        let text: Vec<u16> = "weatherWeather.mailsendxy".encode_utf16().collect();
        let table = [7, marker::ID_IS_KEY, 8, 4, 4, 0, 1, marker::NO_ID, 1];
        let entries = read_table(text.len(), &table).unwrap();
        assert_eq!(
            entries,
            [
                EntrySpans { key: Span::new(0, 7), id: Some(Span::new(0, 7)), description: Span::new(7, 15) },
                EntrySpans { key: Span::new(15, 19), id: Some(Span::new(19, 23)), description: Span::new(23, 23) },
                EntrySpans { key: Span::new(23, 24), id: None, description: Span::new(24, 25) },
            ]
        );
        assert_eq!(read_table(0, &[]), Ok(vec![]));
    }

    #[test]
    fn malformed_tables_are_errors() {
        for (text_len, table) in [
            (3, &[1, -1][..]), // not whole rows
            (3, &[1, -1, 1]),  // text left over
            (3, &[4, -1, 0]),  // past the text
            (3, &[-5, -1, 0]), // a negative length
            (3, &[1, -3, 0]),  // an unknown marker
            (3, &[i32::MAX, i32::MAX, i32::MAX]),
        ] {
            assert!(read_table(text_len, table).is_err(), "{table:?}");
        }
    }

    #[test]
    fn arbitrary_tables_never_panic_and_valid_ones_stay_within_the_text() {
        let mut rng = crate::test_rng::Rng::new(0x7ab1e);
        let mut valid = 0;
        for _ in 0..50_000 {
            let rows = (rng.next() % 5) as usize;
            let mut table = Vec::new();
            let mut text_len = 0usize;
            for _ in 0..rows {
                for _ in 0..COLUMNS {
                    let value = match rng.next() % 10 {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        2 => -1 - (rng.next() % 3) as i32,
                        _ => (rng.next() % 6) as i32,
                    };
                    if value >= 0 {
                        text_len = text_len.saturating_add(value as usize);
                    }
                    table.push(value);
                }
            }
            // Sometimes the wrong text length, sometimes a stray number.
            match rng.next() % 6 {
                0 => text_len += 1,
                1 => table.push((rng.next() % 4) as i32),
                _ => {}
            }
            if let Ok(entries) = read_table(text_len, &table) {
                valid += 1;
                for entry in entries {
                    for span in [Some(entry.key), entry.id, Some(entry.description)].into_iter().flatten() {
                        assert!(span.start <= span.end && span.end as usize <= text_len);
                    }
                }
            }
        }
        assert!(valid > 1000, "{valid}");
    }
}
