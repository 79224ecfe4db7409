//! The `search.ranking` option and the tools' parameters a ranking may read.
//!
//! Parameters cross with the tool table, in the same call: one UTF-16 string
//! with every parameter's name and description end to end, and per tool
//! `[count, nameLength, descriptionLength, ...]` (see `lib/tool-parameters.js`).

use mastra_native_processors::search::{ParamTable, Ranking, Span};
use napi::bindgen_prelude::*;

use crate::utf16::Utf16Text;

fn type_error(message: impl std::fmt::Display) -> Error {
    Error::new(Status::InvalidArg, format!("ToolSearchProcessor: {message}"))
}

/// The ranking `search.ranking` names; absent is the reference's.
pub fn ranking(name: Option<&str>) -> Result<Ranking> {
    let Some(name) = name else { return Ok(Ranking::Reference) };
    Ranking::from_name(name).ok_or_else(|| {
        let names = Ranking::NAMES.map(|n| format!("'{n}'")).join(" or ");
        type_error(format!("options.search.ranking must be {names}, got the string {name:?}"))
    })
}

/// Reads the parameter table of `tools` tools, if one was sent.
pub fn parameters(text: Option<Utf16Text>, table: Option<Int32Array>, tools: usize) -> Result<Option<ParamTable>> {
    let (Some(Utf16Text(text)), Some(table)) = (text, table) else { return Ok(None) };
    let bad = || type_error("malformed parameter table");
    let mut rows = table.iter().copied();
    let mut at = 0u32;
    let mut take = |len: Option<i32>| -> Result<Span> {
        let len = len.and_then(|len| u32::try_from(len).ok()).ok_or_else(bad)?;
        let span = Span::new(at, at.checked_add(len).ok_or_else(bad)?);
        at = span.end;
        Ok(span)
    };
    let mut entries = Vec::with_capacity(tools);
    for _ in 0..tools {
        let count = rows.next().and_then(|n| usize::try_from(n).ok()).ok_or_else(bad)?;
        let mut params = Vec::with_capacity(count.min(64));
        for _ in 0..count {
            let name = take(rows.next())?;
            params.push((name, take(rows.next())?));
        }
        entries.push(params);
    }
    if rows.next().is_some() || at as usize != text.len() {
        return Err(bad());
    }
    ParamTable::from_spans(text, entries).map(Some).map_err(type_error)
}
