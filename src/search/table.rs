//! The tool table: how a whole tools record crosses from JavaScript.
//!
//! Every key, id and description lies end to end in one UTF-16 text, and an
//! `Int32Array` holds per tool `[keyLength, idLength, descriptionLength]`, in
//! `Object.keys` order. The id length may instead be [`NO_ID`] (the tool has
//! no string id) or [`ID_IS_KEY`] (it equals the key, and is not repeated in
//! the text; most tools are keyed by their id). The codes are the protocol's
//! (`tool_table`).
//!
//! A ranking that reads tools' parameters gets them in a second table of the
//! same kind (see [`read_parameters`]). A step's selection of tools the pool
//! analysed crosses as `[slot, keyLength]` per tool ([`read_pool_rows`]), and
//! the tools to analyse as `[slot, idLength, descriptionLength]`
//! ([`read_pool_additions`]).

use std::fmt;

use super::params::ParamTable;
use super::pool::PoolSlot;
use super::span::{EntrySpans, Span};
use crate::protocol::tool_search::tool_table::{
    ADDITION_COLUMNS, COLUMNS, ID_IS_KEY, KEY_IS_ID, NEW_TOOL, NO_ID, NO_TOOL, ROW_COLUMNS,
};

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
    let mut text = Cursor::default();
    let mut entries = Vec::with_capacity(table.len() / COLUMNS);
    for (row, lengths) in table.chunks_exact(COLUMNS).enumerate() {
        let bad = || TableError { row };
        let key = text.take(lengths[0]).ok_or_else(bad)?;
        let id = match lengths[1] {
            NO_ID => None,
            ID_IS_KEY => Some(key),
            len => Some(text.take(len).ok_or_else(bad)?),
        };
        let description = text.take(lengths[2]).ok_or_else(bad)?;
        if text.at as usize > text_len {
            return Err(bad());
        }
        entries.push(EntrySpans { key, id, description });
    }
    if text.at as usize != text_len {
        return Err(TableError { row: entries.len() });
    }
    Ok(entries)
}

/// The parameters of a table's `tools` tools, for a ranking that reads them:
/// per tool, in the tool table's order, `[count, nameLength,
/// descriptionLength, ...]` (a length pair per parameter), every name and
/// description end to end in `text`. Anything else is an error, never a panic.
pub fn read_parameters(text: Vec<u16>, table: &[i32], tools: usize) -> Result<ParamTable, TableError> {
    let mut numbers = table.iter().copied();
    let mut cursor = Cursor::default();
    let mut params = Vec::new();
    let mut ends = Vec::with_capacity(tools.min(table.len()));
    for row in 0..tools {
        let bad = || TableError { row };
        let count = numbers.next().and_then(|count| usize::try_from(count).ok()).ok_or_else(bad)?;
        let mut take = || numbers.next().and_then(|len| cursor.take(len)).ok_or_else(bad);
        for _ in 0..count {
            params.push((take()?, take()?));
        }
        if cursor.at as usize > text.len() {
            return Err(bad());
        }
        ends.push(u32::try_from(params.len()).map_err(|_| bad())?);
    }
    if numbers.next().is_some() || cursor.at as usize != text.len() {
        return Err(TableError { row: tools });
    }
    Ok(ParamTable::from_parts(text, params, ends))
}

/// One tool of a selection: where it is in the pool, and its key (`None`:
/// its id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolRow {
    pub slot: PoolSlot,
    pub key: Option<Span>,
}

/// One tool to analyse: its slot (`None`: new to the pool), and where its id
/// (a string) and description are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolAddition {
    pub slot: Option<u32>,
    pub id: Option<Span>,
    pub description: Span,
}

/// The rows of a selection (a slot, [`NEW_TOOL`] or [`NO_TOOL`], then a key
/// length or [`KEY_IS_ID`]) over a keys text of `keys_len` units. Anything
/// else is an error, never a panic.
pub fn read_pool_rows(keys_len: usize, rows: &[i32]) -> Result<Vec<PoolRow>, TableError> {
    if !rows.len().is_multiple_of(ROW_COLUMNS) {
        return Err(TableError { row: rows.len() / ROW_COLUMNS });
    }
    let mut keys = Cursor::default();
    let mut out = Vec::with_capacity(rows.len() / ROW_COLUMNS);
    for (row, numbers) in rows.chunks_exact(ROW_COLUMNS).enumerate() {
        let bad = || TableError { row };
        let slot = match numbers[0] {
            NO_TOOL => PoolSlot::NoTool,
            NEW_TOOL => PoolSlot::New,
            slot => PoolSlot::Held(u32::try_from(slot).map_err(|_| bad())?),
        };
        let key = match numbers[1] {
            KEY_IS_ID if slot != PoolSlot::NoTool => None,
            len => Some(keys.take(len).ok_or_else(bad)?),
        };
        if keys.at as usize > keys_len {
            return Err(bad());
        }
        out.push(PoolRow { slot, key });
    }
    if keys.at as usize != keys_len {
        return Err(TableError { row: out.len() });
    }
    Ok(out)
}

/// The tools to analyse (`[slot or NEW_TOOL, idLength or NO_ID,
/// descriptionLength]`), ids and descriptions end to end in a text of
/// `text_len` units. Anything else is an error, never a panic.
pub fn read_pool_additions(text_len: usize, table: &[i32]) -> Result<Vec<PoolAddition>, TableError> {
    if !table.len().is_multiple_of(ADDITION_COLUMNS) {
        return Err(TableError { row: table.len() / ADDITION_COLUMNS });
    }
    let mut text = Cursor::default();
    let mut out = Vec::with_capacity(table.len() / ADDITION_COLUMNS);
    for (row, numbers) in table.chunks_exact(ADDITION_COLUMNS).enumerate() {
        let bad = || TableError { row };
        let slot = match numbers[0] {
            NEW_TOOL => None,
            slot => Some(u32::try_from(slot).map_err(|_| bad())?),
        };
        let id = match numbers[1] {
            NO_ID => None,
            len => Some(text.take(len).ok_or_else(bad)?),
        };
        let description = text.take(numbers[2]).ok_or_else(bad)?;
        if text.at as usize > text_len {
            return Err(bad());
        }
        out.push(PoolAddition { slot, id, description });
    }
    if text.at as usize != text_len {
        return Err(TableError { row: out.len() });
    }
    Ok(out)
}

/// How far into the text a table has read: each length takes the next span.
#[derive(Default)]
struct Cursor {
    at: u32,
}

impl Cursor {
    /// The span of the next `len` units; `None` for a negative length or past
    /// 32-bit offsets.
    fn take(&mut self, len: i32) -> Option<Span> {
        let end = self.at.checked_add(u32::try_from(len).ok()?)?;
        let span = Span::new(self.at, end);
        self.at = end;
        Some(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_ids_and_descriptions_in_order() {
        // "weather" (id = key) "Weather.", "mail" id "send" "", "x" (no id) "y"
        let text: Vec<u16> = "weatherWeather.mailsendxy".encode_utf16().collect();
        let table = [7, ID_IS_KEY, 8, 4, 4, 0, 1, NO_ID, 1];
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
    fn reads_a_selection_and_the_tools_to_analyse() {
        // "mail" (slot 4), a new tool keyed by its id, a meta-tool's key "load_tool".
        let keys: Vec<u16> = "mailload_tool".encode_utf16().collect();
        let rows = [4, 4, NEW_TOOL, KEY_IS_ID, NO_TOOL, 9];
        assert_eq!(
            read_pool_rows(keys.len(), &rows),
            Ok(vec![
                PoolRow { slot: PoolSlot::Held(4), key: Some(Span::new(0, 4)) },
                PoolRow { slot: PoolSlot::New, key: None },
                PoolRow { slot: PoolSlot::NoTool, key: Some(Span::new(4, 13)) },
            ])
        );
        // A key of no tool is never the tool's id; a negative slot other than the markers is no slot.
        assert!(read_pool_rows(0, &[NO_TOOL, KEY_IS_ID]).is_err());
        assert!(read_pool_rows(0, &[-7, KEY_IS_ID]).is_err());
        assert!(read_pool_rows(1, &[0, KEY_IS_ID]).is_err());
        // Slot 2 again ("x" "d"), a new tool without an id ("" "ab").
        let text: Vec<u16> = "xdab".encode_utf16().collect();
        assert_eq!(
            read_pool_additions(text.len(), &[2, 1, 1, NEW_TOOL, NO_ID, 2]),
            Ok(vec![
                PoolAddition { slot: Some(2), id: Some(Span::new(0, 1)), description: Span::new(1, 2) },
                PoolAddition { slot: None, id: None, description: Span::new(2, 4) },
            ])
        );
        assert!(read_pool_additions(text.len(), &[2, 1, 1, NEW_TOOL, NO_ID, 1]).is_err());
        assert!(read_pool_additions(0, &[-5, NO_ID, 0]).is_err());
    }

    #[test]
    fn reads_each_tools_parameters() {
        // Tool 0: "city" "The city", "unit" ""; tool 1: none; tool 2: "q" "Query".
        let text: Vec<u16> = "cityThe cityunitqQuery".encode_utf16().collect();
        let table = [2, 4, 8, 4, 0, 0, 1, 1, 5];
        let params = read_parameters(text, &table, 3).unwrap();
        let entry = |i| params.entry(i).map(|(n, d)| (String::from_utf16_lossy(n), String::from_utf16_lossy(d)));
        let owned =
            |pairs: &[(&str, &str)]| pairs.iter().map(|&(n, d)| (n.to_owned(), d.to_owned())).collect::<Vec<_>>();
        assert_eq!(params.len(), 3);
        assert_eq!(entry(0).collect::<Vec<_>>(), owned(&[("city", "The city"), ("unit", "")]));
        assert_eq!(entry(1).count(), 0);
        assert_eq!(entry(2).collect::<Vec<_>>(), owned(&[("q", "Query")]));
        assert_eq!(read_parameters(Vec::new(), &[], 0).unwrap().len(), 0);
    }

    #[test]
    fn malformed_parameter_tables_are_errors() {
        let text = || "abc".encode_utf16().collect::<Vec<u16>>();
        for (tools, table, row) in [
            (1, &[1, 1, 1][..], 1), // text left over
            (1, &[1, 1, 3], 0),     // past the text
            (1, &[1, 3], 0),        // a description length missing
            (2, &[1, 1, 2], 1),     // a tool missing
            (1, &[1, 1, 2, 0], 1),  // a stray number
            (1, &[-1], 0),          // a negative count
            (1, &[1, -1, 4], 0),    // a negative length
            (1, &[i32::MAX, 1, 2], 0),
            (1, &[2, i32::MAX, i32::MAX, i32::MAX, i32::MAX], 0),
        ] {
            assert_eq!(read_parameters(text(), table, tools).unwrap_err(), TableError { row }, "{table:?}");
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

    #[test]
    fn arbitrary_parameter_tables_never_panic_and_valid_ones_stay_within_the_text() {
        let mut rng = crate::test_rng::Rng::new(0x9a7a);
        let mut valid = 0;
        let value = |rng: &mut crate::test_rng::Rng, below: u64| match rng.next() % 16 {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => -1,
            _ => (rng.next() % below) as i32,
        };
        for _ in 0..50_000 {
            let tools = (rng.next() % 4) as usize;
            let mut table = Vec::new();
            let mut text_len = 0usize;
            for _ in 0..tools {
                let count = value(&mut rng, 3);
                table.push(count);
                for _ in 0..count.clamp(0, 3) * 2 {
                    let len = value(&mut rng, 4);
                    text_len = text_len.saturating_add(len.max(0) as usize);
                    table.push(len);
                }
            }
            // Sometimes a tool too many or too few, the wrong text length or a stray number.
            let tools = match rng.next() % 8 {
                0 => tools + 1,
                1 => tools.saturating_sub(1),
                _ => tools,
            };
            match rng.next() % 8 {
                0 => text_len += 1,
                1 => table.push((rng.next() % 3) as i32),
                _ => {}
            }
            if text_len > 64 {
                continue;
            }
            if let Ok(params) = read_parameters(vec![0; text_len], &table, tools) {
                valid += 1;
                assert_eq!(params.len(), tools);
                let units: usize = (0..tools).flat_map(|t| params.entry(t)).map(|(n, d)| n.len() + d.len()).sum();
                assert_eq!(units, text_len);
            }
        }
        assert!(valid > 10_000, "{valid}");
    }
}
