//! Target `source_map`: `releases::fingerprint::processor_texts`, the scanner
//! that reads the processors' sources out of a host's source maps at import,
//! on maps assembled from JSON pieces (the keys in any order and spacing,
//! source paths that are and are not the wanted ones, texts with escapes and
//! with map syntax inside, `null`s), sometimes cut short or patched with
//! arbitrary bytes.
//!
//! The oracle parses the whole map with serde_json. Where it is an object
//! whose `sources` is an array of strings and whose `sourcesContent` holds
//! strings and `null`s, the scanner finds exactly the texts the oracle does;
//! anything else it may refuse. It never panics.

use mastra_native_processors::releases::fingerprint::{processor_texts, PROCESSOR_SOURCES};
use serde_json::Value;

use crate::gen::{int, one_in, pick, size, U};

const PATHS: &[&str] = &[
    "../src/processors/processors/tool-search.ts",
    "../src/processors/processors/tool-search-stores.ts",
    "../src/processors/processors/tool-call-filter.ts",
    "../src/workspace/search/bm25.ts",
    "src/workspace/search/bm25.ts",
    "../../src/processors/processors/tool-call-filter.ts",
    "../vendor/xsrc/workspace/search/bm25.ts",
    "../src/processors/processors/tool-search.tsx",
    "../src/agent/index.ts",
    "",
];

const TEXTS: &[&str] = &[
    "class ToolSearchProcessor {}",
    "say \"hi\"",
    "\\",
    "\"sources\":[",
    "\"sourcesContent\": [\"",
    "é 😀 \u{0}",
    "line\nbreak\ttab",
    "",
];

const KEYS: &[&str] = &["sources", "sourcesContent", "names", "mappings", "version", "file", "sections"];

fn string(u: &mut U<'_>, pool: &[&str]) -> Value {
    if one_in(u, 6) {
        return Value::String(u.arbitrary::<String>().unwrap_or_default());
    }
    Value::String(pick(u, pool).to_owned())
}

fn array(u: &mut U<'_>, pool: &[&str], nulls: bool) -> Value {
    let items = (0..size(u, 0, 8)).map(|_| if nulls && one_in(u, 4) { Value::Null } else { string(u, pool) });
    Value::Array(items.collect())
}

fn value_for(u: &mut U<'_>, key: &str) -> Value {
    match (key, int(u, 0, 9)) {
        (_, 0) => Value::from(int(u, -2, 3)),
        (_, 1) => Value::Null,
        ("sources", _) => array(u, PATHS, false),
        ("names", _) => {
            let nulls = one_in(u, 2);
            array(u, PATHS, nulls)
        }
        ("sourcesContent", _) => array(u, TEXTS, true),
        _ => string(u, TEXTS),
    }
}

/// A map's JSON text: an object of some of the keys, pretty or compact,
/// sometimes cut short (anywhere, even inside a character).
fn map_text(u: &mut U<'_>) -> Vec<u8> {
    let mut object = serde_json::Map::new();
    for _ in 0..size(u, 0, 6) {
        let key = pick(u, KEYS);
        let value = value_for(u, key);
        object.insert(key.to_owned(), value);
    }
    let object = Value::Object(object);
    let mut text = if one_in(u, 2) { serde_json::to_vec_pretty(&object) } else { serde_json::to_vec(&object) }.unwrap();
    if one_in(u, 5) {
        text.truncate(size(u, 0, text.len()));
    }
    text
}

/// What the oracle reads: the wanted texts, or `None` when the map is not a
/// well-formed source map.
fn oracle(map: &[u8]) -> Option<[Option<String>; 4]> {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(map) else { return None };
    let sources = map.get("sources")?.as_array()?;
    let contents = map.get("sourcesContent")?.as_array()?;
    let mut texts: [Option<String>; 4] = Default::default();
    for source in sources {
        source.as_str()?;
    }
    for content in contents {
        if !(content.is_string() || content.is_null()) {
            return None;
        }
    }
    for (source, content) in sources.iter().zip(contents) {
        let source = source.as_str()?;
        let Some(i) = PROCESSOR_SOURCES.iter().position(|wanted| {
            source.strip_suffix(wanted).is_some_and(|before| before.is_empty() || before.ends_with('/'))
        }) else {
            continue;
        };
        if texts[i].is_none() {
            texts[i] = content.as_str().map(str::to_owned);
        }
    }
    // A wanted source past the end of `sourcesContent` is a broken map.
    let wanted_past_end = sources.iter().skip(contents.len()).any(|source| {
        let source = source.as_str().unwrap_or_default();
        PROCESSOR_SOURCES
            .iter()
            .any(|wanted| source.strip_suffix(wanted).is_some_and(|before| before.is_empty() || before.ends_with('/')))
    });
    (!wanted_past_end).then_some(texts)
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let mut map = map_text(&mut u);
    if one_in(&mut u, 8) && !map.is_empty() {
        let at = size(&mut u, 0, map.len() - 1);
        map[at] = u.arbitrary().unwrap_or(b'"');
    }
    let scanned = processor_texts(&map);
    if let Some(expected) = oracle(&map) {
        // Keys repeated in one object: serde keeps the last, the scanner the
        // first; the generator inserts each key once, so this holds.
        assert_eq!(scanned.as_ref().ok(), Some(&expected), "{}", String::from_utf8_lossy(&map));
    }
}
