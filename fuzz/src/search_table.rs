//! Target `search_table`: the readers of the tables a tools record crosses
//! in. `search::table::read_table`, on tables as the binding writes them
//! (`tool_catalog::gen_rows`) and on raw ones, must agree with a
//! straightforward reading of the layout: a table is accepted exactly when
//! its lengths account for the text, and then gives the same spans.
//! `read_pool_rows` and `read_pool_additions` (a step's selection of pooled
//! tools, and the tools to analyse), on tables written as the binding
//! writes them and on raw ones, must read back what was written, and accept
//! nothing whose spans leave the text.

use mastra_native_processors::protocol::tool_search::tool_table::{KEY_IS_ID, NEW_TOOL, NO_ID, NO_TOOL};
use mastra_native_processors::search::table::{read_pool_additions, read_pool_rows, read_table};
use mastra_native_processors::search::{PoolSlot, Span};

use crate::gen::{int, one_in, pick, raw_tape, size, U};
use crate::tool_catalog::{gen_rows, spans_of_rows};

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let (text_len, rows) = if one_in(&mut u, 4) {
        (size(&mut u, 0, 64), raw_tape(&mut u, 48))
    } else {
        let (text, rows) = gen_rows(&mut u);
        (text.len(), rows)
    };
    assert_eq!(read_table(text_len, &rows).ok(), spans_of_rows(text_len, &rows), "{rows:?} over {text_len} units");
    pool_tables(&mut u);
}

/// A selection and the tools to analyse, written as the binding writes
/// them (sometimes with a stray number or the wrong text length), or raw.
fn pool_tables(u: &mut U<'_>) {
    if one_in(u, 3) {
        let (len, tape) = (size(u, 0, 64), raw_tape(u, 48));
        for rows in read_pool_rows(len, &tape).into_iter().flatten() {
            assert!(rows.key.is_none_or(|key| key.start <= key.end && key.end as usize <= len));
        }
        for addition in read_pool_additions(len, &tape).into_iter().flatten() {
            let spans = addition.id.into_iter().chain([addition.description]);
            assert!(spans.into_iter().all(|span| span.start <= span.end && span.end as usize <= len));
        }
        return;
    }
    let (mut rows, mut expected_rows, mut at) = (Vec::new(), Vec::new(), 0u32);
    for _ in 0..size(u, 0, 6) {
        let held = PoolSlot::Held(int(u, 0, 50) as u32);
        let slot = pick(u, &[held, PoolSlot::New, PoolSlot::NoTool]);
        let code = match slot {
            PoolSlot::Held(slot) => slot as i32,
            PoolSlot::New => NEW_TOOL,
            PoolSlot::NoTool => NO_TOOL,
        };
        let key = if slot != PoolSlot::NoTool && one_in(u, 2) { None } else { Some(size(u, 0, 5) as u32) };
        rows.extend([code, key.map_or(KEY_IS_ID, |len| len as i32)]);
        expected_rows.push((slot, key.map(|len| Span::new(at, at + len))));
        at += key.unwrap_or(0);
    }
    let (mut additions, mut expected_additions, mut text) = (Vec::new(), Vec::new(), 0u32);
    for _ in 0..size(u, 0, 6) {
        let slot = if one_in(u, 2) { None } else { Some(int(u, 0, 50) as u32) };
        let id = if one_in(u, 3) { None } else { Some(size(u, 0, 5) as u32) };
        let description = size(u, 0, 9) as u32;
        additions.extend([
            slot.map_or(NEW_TOOL, |slot| slot as i32),
            id.map_or(NO_ID, |len| len as i32),
            description as i32,
        ]);
        let id_span = id.map(|len| Span::new(text, text + len));
        text += id.unwrap_or(0);
        expected_additions.push((slot, id_span, Span::new(text, text + description)));
        text += description;
    }
    let (keys_len, text_len) =
        if one_in(u, 6) { (at as usize + 1, text as usize + 1) } else { (at as usize, text as usize) };
    let read_rows = read_pool_rows(keys_len, &rows).map(|rows| rows.iter().map(|row| (row.slot, row.key)).collect());
    let read_additions = read_pool_additions(text_len, &additions)
        .map(|additions| additions.iter().map(|a| (a.slot, a.id, a.description)).collect());
    if keys_len == at as usize {
        assert_eq!(read_rows, Ok(expected_rows), "{rows:?}");
    } else {
        assert!(read_rows.is_err(), "{rows:?}");
    }
    if text_len == text as usize {
        assert_eq!(read_additions, Ok(expected_additions), "{additions:?}");
    } else {
        assert!(read_additions.is_err(), "{additions:?}");
    }
}
