//! Target `message_facts`: `stores::facts::read_facts`, the reader of what
//! the context store learns from the messages, and the rule that turns those
//! facts into loaded names.
//!
//! Records are generated, encoded as the binding writes them
//! (`kind, isResult, success, n, len*n, m, len*m, toolNameLength | NO_NAME`
//! over one UTF-16 text), and must read back exactly; raw tapes must give an
//! answer or an error, never a panic. The activated names have no repeats
//! and come only from completed meta-tool results, and a remembered list
//! (`stores::history`) continued over the same parts in random pieces, cut
//! back at random, names exactly what one reading of its parts names.

use mastra_native_processors::js::JsString;
use mastra_native_processors::protocol::tool_search::message_facts::{self as code, REMEMBERED_LISTS};
use mastra_native_processors::stores::facts::{activated_names_from_messages, read_facts, ToolResultFacts};
use mastra_native_processors::stores::history::RememberedLists;

use crate::gen::{flag, one_in, raw_tape, size, U};

const NAMES: [&str; 5] = ["search_tools", "load_tool", "weather", "mail", ""];

fn name(u: &mut U<'_>) -> Vec<u16> {
    if one_in(u, 4) {
        (0..size(u, 0, 4)).map(|_| u.arbitrary::<u16>().unwrap_or(0)).collect()
    } else {
        NAMES[size(u, 0, NAMES.len() - 1)].encode_utf16().collect()
    }
}

fn names(u: &mut U<'_>, text: &mut Vec<u16>, facts: &mut Vec<i32>) -> Vec<JsString> {
    let count = size(u, 0, 3);
    facts.push(count as i32);
    (0..count)
        .map(|_| {
            let name = name(u);
            facts.push(name.len() as i32);
            text.extend_from_slice(&name);
            JsString::from(&name[..])
        })
        .collect()
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    if one_in(&mut u, 4) {
        let text: Vec<u16> = (0..size(&mut u, 0, 16)).map(|_| u.arbitrary::<u16>().unwrap_or(0)).collect();
        let _ = read_facts(&text, &raw_tape(&mut u, 48));
        return;
    }
    let mut text = Vec::new();
    let mut facts = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..size(&mut u, 0, 6) {
        let search = flag(&mut u);
        let is_result_state = flag(&mut u);
        let success = flag(&mut u);
        facts.extend([
            if search { code::SEARCH_TOOLS } else { code::LOAD_TOOL },
            is_result_state as i32,
            success as i32,
        ]);
        let result_names = names(&mut u, &mut text, &mut facts);
        let loaded = names(&mut u, &mut text, &mut facts);
        let result_tool_name = if flag(&mut u) {
            let single = name(&mut u);
            facts.push(single.len() as i32);
            text.extend_from_slice(&single);
            Some(JsString::from(&single[..]))
        } else {
            facts.push(code::NO_NAME);
            None
        };
        expected.push(ToolResultFacts {
            tool_name: Some(JsString::from(if search { "search_tools" } else { "load_tool" })),
            is_result_state,
            result_names,
            loaded,
            result_tool_name,
            success,
        });
    }
    let read = read_facts(&text, &facts).expect("facts the binding writes read back");
    assert_eq!(read, expected);

    let activated = activated_names_from_messages(&read);
    let mut allowed = Vec::new();
    for part in read.iter().filter(|part| part.is_result_state) {
        allowed.extend(part.result_tool_name.iter().filter(|_| part.success).cloned());
        allowed.extend(part.result_names.iter().cloned());
        allowed.extend(part.loaded.iter().cloned());
    }
    for name in &activated {
        assert!(allowed.contains(name), "{name:?} was activated by no completed result");
    }
    assert_eq!(
        activated.len(),
        allowed.iter().collect::<std::collections::HashSet<_>>().len(),
        "every completed name counts once"
    );

    // The same parts through a remembered list: read in pieces, each time
    // keeping a random number of the parts read so far.
    let mut lists = RememberedLists::default();
    let slot = size(&mut u, 0, REMEMBERED_LISTS - 1);
    let mut list: Vec<ToolResultFacts> = Vec::new();
    let mut next = 0;
    while next < read.len() {
        let kept = if one_in(&mut u, 3) { size(&mut u, 0, list.len()) } else { list.len() };
        list.truncate(kept);
        let end = size(&mut u, next + 1, read.len());
        let piece = &read[next..end];
        list.extend(piece.iter().cloned());
        next = end;
        let names = lists.continue_list(slot, kept, piece).expect("a continuation that fits");
        let expected = activated_names_from_messages(&list);
        assert!(names.iter().eq(expected.iter()), "a continued list names what one reading names");
    }
    assert!(lists.continue_list(slot, list.len() + 1, &[]).is_err(), "more parts kept than the list has");
}
