//! What the context store reads from the messages: the `search_tools` and
//! `load_tool` invocations and the names in their results.
//!
//! JavaScript walks `args.messages` once and reports, for each
//! `tool-invocation` part of a meta-tool, the raw facts ([`read_facts`]
//! gives the layout); which of them activate a tool is decided here
//! ([`activated_names_from_messages`]).

use std::fmt;

use crate::js::JsString;
use crate::protocol::tool_search::is_meta_tool;
use crate::protocol::tool_search::message_facts as code;
use crate::protocol::tool_search::meta_tools::{LOAD_TOOL, SEARCH_TOOLS};

use super::NameSet;

/// One `search_tools` / `load_tool` part of a message, as JavaScript found it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResultFacts {
    /// `toolInvocation.toolName`, when a string.
    pub tool_name: Option<JsString>,
    /// `toolInvocation.state === 'result'`.
    pub is_result_state: bool,
    /// The string `name`s of `result.results[]`, in order.
    pub result_names: Vec<JsString>,
    /// The strings in `result.loaded[]`, in order.
    pub loaded: Vec<JsString>,
    /// `result.toolName`, when a string.
    pub result_tool_name: Option<JsString>,
    /// `result.success === true`.
    pub success: bool,
}

/// The names that completed `search_tools` / `load_tool` results activated,
/// in message order, without repeats.
///
/// Per result: the single-tool `load_tool` shape's `toolName` first when
/// `success` is `true` (an upstream fix of 1.60.0 we adopt on every release:
/// that shape carries no `loaded` array, and failures carry `toolName` too),
/// then `results[].name` (search results count even without autoLoad), then
/// `loaded[]`. Like upstream, the `toolName` rule does not look at which
/// meta-tool produced the result.
pub fn activated_names_from_messages<'p>(parts: impl IntoIterator<Item = &'p ToolResultFacts>) -> NameSet {
    let mut names = NameSet::new();
    for part in parts {
        activate(&mut names, part);
    }
    names
}

/// Adds what one part activates to `names` (see
/// [`activated_names_from_messages`]): the rule for one part, so that a list
/// read part by part over several steps ([`super::history`]) gives the same
/// names in the same order as one reading of the whole list.
pub fn activate(names: &mut NameSet, part: &ToolResultFacts) {
    let is_meta = part.tool_name.as_ref().is_some_and(|t| is_meta_tool(t.units()));
    if !is_meta || !part.is_result_state {
        return;
    }
    let single = part.result_tool_name.as_ref().filter(|_| part.success);
    for name in single.into_iter().chain(&part.result_names).chain(&part.loaded) {
        if !names.contains(name) {
            names.insert(name.clone());
        }
    }
}

/// Facts that do not follow the layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactsError {
    /// Where in the facts reading stopped.
    pub at: usize,
}

impl fmt::Display for FactsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed message facts at {}", self.at)
    }
}

impl std::error::Error for FactsError {}

/// Reads the facts JavaScript wrote: per part,
/// `[kind, isResult, success, n, len * n, m, len * m, toolNameLength]`,
/// where `kind` is a [`code`] (the protocol's `message_facts`), the flags are 0 or 1, the `n` lengths are
/// `results[].name`, the `m` lengths `loaded[]`, and the last is
/// `result.toolName`'s or [`NO_NAME`](code::NO_NAME); the names lie end to end in
/// `text`. Any other input is an error, never a panic.
pub fn read_facts(text: &[u16], facts: &[i32]) -> Result<Vec<ToolResultFacts>, FactsError> {
    let mut reader = Reader { facts, at: 0, text, text_at: 0 };
    let mut parts = Vec::new();
    while reader.at < facts.len() {
        let tool_name = match reader.next()? {
            code::SEARCH_TOOLS => SEARCH_TOOLS,
            code::LOAD_TOOL => LOAD_TOOL,
            _ => return Err(reader.error()),
        };
        let is_result_state = reader.flag()?;
        let success = reader.flag()?;
        let result_names = reader.names()?;
        let loaded = reader.names()?;
        let result_tool_name = match reader.next()? {
            code::NO_NAME => None,
            len => Some(reader.name(len)?),
        };
        parts.push(ToolResultFacts {
            tool_name: Some(JsString::from(tool_name)),
            is_result_state,
            result_names,
            loaded,
            result_tool_name,
            success,
        });
    }
    if reader.text_at != text.len() {
        return Err(reader.error());
    }
    Ok(parts)
}

struct Reader<'a> {
    facts: &'a [i32],
    at: usize,
    text: &'a [u16],
    text_at: usize,
}

impl Reader<'_> {
    fn error(&self) -> FactsError {
        FactsError { at: self.at }
    }

    fn next(&mut self) -> Result<i32, FactsError> {
        let value = *self.facts.get(self.at).ok_or_else(|| self.error())?;
        self.at += 1;
        Ok(value)
    }

    fn flag(&mut self) -> Result<bool, FactsError> {
        match self.next()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.error()),
        }
    }

    fn name(&mut self, len: i32) -> Result<JsString, FactsError> {
        let len = usize::try_from(len).map_err(|_| self.error())?;
        let end = self.text_at.checked_add(len).ok_or_else(|| self.error())?;
        let units = self.text.get(self.text_at..end).ok_or_else(|| self.error())?;
        self.text_at = end;
        Ok(JsString::from(units))
    }

    fn names(&mut self) -> Result<Vec<JsString>, FactsError> {
        let count = usize::try_from(self.next()?).map_err(|_| self.error())?;
        // Each name takes one more number: a count beyond what is left is malformed.
        if count > self.facts.len() - self.at {
            return Err(self.error());
        }
        (0..count).map(|_| self.next().and_then(|len| self.name(len))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    /// A part's facts, as a row of the tests' tables.
    /// Positional: the tests below call it once a row, as a table.
    fn part(
        tool: &str,
        result: bool,
        results: &[&str],
        loaded: &[&str],
        single: Option<(&str, bool)>,
    ) -> ToolResultFacts {
        ToolResultFacts {
            tool_name: Some(js(tool)),
            is_result_state: result,
            result_names: results.iter().map(|n| js(n)).collect(),
            loaded: loaded.iter().map(|n| js(n)).collect(),
            result_tool_name: single.map(|(name, _)| js(name)),
            success: single.is_some_and(|(_, success)| success),
        }
    }

    fn names(set: &NameSet) -> Vec<String> {
        set.iter().map(|n| n.to_string_lossy()).collect()
    }

    #[test]
    fn activated_names_follow_message_order() {
        let parts = vec![
            part("search_tools", true, &["s1", "s2"], &[], None),
            part("load_tool", false, &[], &["pending"], None), // not a result yet
            part("weather", true, &["other"], &["other"], Some(("other", true))), // not a meta-tool
            part("load_tool", true, &["r"], &["l1", "s1"], Some(("single", true))),
            part("load_tool", true, &[], &[], Some(("one", true))),
            part("load_tool", true, &[], &[], Some(("failed", false))), // a failure carries toolName too
            ToolResultFacts { tool_name: None, is_result_state: true, ..Default::default() },
        ];
        assert_eq!(names(&activated_names_from_messages(&parts)), ["s1", "s2", "single", "r", "l1", "one"]);
        assert!(activated_names_from_messages(&[]).is_empty());
    }

    #[test]
    fn reads_the_layout_javascript_writes() {
        let text: Vec<u16> = "abcdefsingle".encode_utf16().collect();
        let facts = [
            code::SEARCH_TOOLS,
            1,
            0,
            2,
            1,
            2,
            0,
            code::NO_NAME, // results ["a", "bc"]
            code::LOAD_TOOL,
            1,
            1,
            0,
            1,
            3,
            6, // loaded ["def"], toolName "single"
        ];
        assert_eq!(
            read_facts(&text, &facts),
            Ok(vec![
                part("search_tools", true, &["a", "bc"], &[], None),
                part("load_tool", true, &[], &["def"], Some(("single", true))),
            ])
        );
        assert_eq!(read_facts(&[], &[]), Ok(vec![]));
    }

    #[test]
    fn malformed_facts_are_errors() {
        let text: Vec<u16> = "ab".encode_utf16().collect();
        for facts in [
            &[3, 1, 0, 0, 0, -1][..],    // unknown kind
            &[1, 2, 0, 0, 0, -1],        // a flag that is not 0 or 1
            &[1, 1, 0, 1, 5, 0, -1],     // a name past the text
            &[1, 1, 0, -1, 0, -1],       // a negative count
            &[1, 1, 0, i32::MAX, 0, -1], // a count past the facts
            &[1, 1, 0, 0, 0, -2],        // a negative length
            &[1, 1, 0, 0, 0],            // cut short
            &[1, 1, 0, 1, 1, 0, -1],     // text left over
        ] {
            assert!(read_facts(&text, facts).is_err(), "{facts:?}");
        }
    }

    /// Writes parts in the layout, as the JavaScript half does.
    fn write(parts: &[ToolResultFacts]) -> (Vec<u16>, Vec<i32>) {
        let (mut text, mut facts) = (Vec::new(), Vec::new());
        let mut name = |name: &JsString, facts: &mut Vec<i32>| {
            facts.push(name.len() as i32);
            text.extend_from_slice(name.units());
        };
        for part in parts {
            let kind = if part.tool_name == Some(js(SEARCH_TOOLS)) { code::SEARCH_TOOLS } else { code::LOAD_TOOL };
            facts.extend([kind, part.is_result_state as i32, part.success as i32]);
            for list in [&part.result_names, &part.loaded] {
                facts.push(list.len() as i32);
                list.iter().for_each(|n| name(n, &mut facts));
            }
            match &part.result_tool_name {
                Some(n) => name(n, &mut facts),
                None => facts.push(code::NO_NAME),
            }
        }
        (text, facts)
    }

    #[test]
    fn arbitrary_facts_never_panic_and_written_ones_read_back() {
        let mut rng = crate::test_rng::Rng::new(0x5eed);
        let random_name = |rng: &mut crate::test_rng::Rng| {
            JsString::from((0..rng.next() % 4).map(|_| rng.next() as u16).collect::<Vec<u16>>())
        };
        let (mut read_back, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let parts: Vec<ToolResultFacts> = (0..rng.next() % 4)
                .map(|_| ToolResultFacts {
                    tool_name: Some(js(if rng.next().is_multiple_of(2) { SEARCH_TOOLS } else { LOAD_TOOL })),
                    is_result_state: rng.next().is_multiple_of(2),
                    result_names: (0..rng.next() % 3).map(|_| random_name(&mut rng)).collect(),
                    loaded: (0..rng.next() % 3).map(|_| random_name(&mut rng)).collect(),
                    result_tool_name: (rng.next().is_multiple_of(2)).then(|| random_name(&mut rng)),
                    success: rng.next().is_multiple_of(2),
                })
                .collect();
            let (mut text, mut facts) = write(&parts);
            match rng.next() % 4 {
                0 if !facts.is_empty() => {
                    let at = (rng.next() as usize) % facts.len();
                    facts[at] = match rng.next() % 4 {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        _ => (rng.next() % 8) as i32 - 3,
                    };
                }
                1 => facts.truncate((rng.next() as usize) % (facts.len() + 1)),
                2 => text.truncate((rng.next() as usize) % (text.len() + 1)),
                _ => {
                    assert_eq!(read_facts(&text, &facts).as_ref(), Ok(&parts));
                    read_back += 1;
                    continue;
                }
            }
            match read_facts(&text, &facts) {
                Ok(parts) => drop(activated_names_from_messages(&parts)),
                Err(_) => refused += 1,
            }
        }
        assert!(read_back > 1000 && refused > 1000, "{read_back} {refused}");
    }
}
