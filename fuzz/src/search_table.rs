//! Target `search_table`: `search::table::read_table`, the reader of the tool
//! table a tools record crosses in, on tables as the binding writes them
//! (`tool_catalog::gen_rows`) and on raw ones. It must agree with a
//! straightforward reading of the layout: a table is accepted exactly when
//! its lengths account for the text, and then gives the same spans.

use mastra_native_processors::search::table::read_table;

use crate::gen::{one_in, raw_tape, size, U};
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
}
