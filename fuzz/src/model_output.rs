//! Target `model_output`: `tape::model_output_text` (and `Reader::skip_node`)
//! on one model-output node, against an oracle.
//!
//! A node is generated as a tree the way the binding's `writeModelOutput`
//! writes it (strings, primitives, arrays with their JSON left for later,
//! objects with the `type: 'text'` / `value` / `text` flags, `TOO_DEEP` for
//! cycles and for containers at the depth limit), encoded onto a tape
//! between junk, and handed to the core. The oracle decodes the tape back
//! into a tree on its own and computes the text by plain recursion over it;
//! the core's strings and JSON requests must equal the oracle's exactly,
//! again after the requested JSON slots are filled in, as the binding
//! does. A raw tape goes through the same decoder: where it finds no node
//! the core must fail too.
//!
//! The message-list and prompt targets use [`decode`] and [`text`] to know
//! the exact strings a replaced part must carry.

use mastra_native_processors::tool_call_filter::tape::{
    model_output_text, node, work, JsonAsk, JsonAsks, NodeError, Reader, Stringified, MAX_NODE_DEPTH,
};

use crate::gen::{flag, int, one_in, raw_tape, size, tape_value, Strings, U};

/// One decoded node. Values are kept as the tape has them, so that a tree
/// and its encoding say the same thing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Nothing,
    Str {
        index: i32,
        non_empty: bool,
    },
    Primitive {
        index: i32,
    },
    Array {
        json: i32,
        /// Where `json` is on the tape (set by [`encode`] and [`decode`]).
        json_slot: usize,
        children: Vec<Node>,
    },
    Object {
        flags: i32,
        json: i32,
        json_slot: usize,
        text: i32,
        text_non_empty: bool,
        /// Present exactly when `flags` has `HAS_VALUE`.
        value: Option<Box<Node>>,
    },
    TooDeep,
}

/// A node as the binding would write it for some JavaScript value, at
/// `depth` (the number of containers around it).
pub fn gen_node(u: &mut U<'_>, strings: &mut Strings, depth: usize) -> Node {
    let container_ok = depth < MAX_NODE_DEPTH;
    match int(u, 0, 11) {
        0 => Node::Nothing,
        1 | 2 => {
            let non_empty = !one_in(u, 4);
            Node::Str { index: strings.push(non_empty), non_empty }
        }
        3 => Node::Primitive { index: strings.push(true) },
        // A cycle, or a container where the binding stops descending.
        4 => Node::TooDeep,
        5..=7 if container_ok => {
            // The binding always leaves an array's JSON for later; a filled
            // slot (a string, or nothing when `JSON.stringify` failed) is
            // what a second pass sees.
            let json = match int(u, 0, 7) {
                0 => strings.push(true),
                1 => node::NO_JSON,
                _ => node::JSON_LATER,
            };
            let count = size(u, 0, 5);
            let children = (0..count).map(|_| gen_node(u, strings, depth + 1)).collect();
            Node::Array { json, json_slot: 0, children }
        }
        8..=11 if container_ok => {
            let is_text = flag(u);
            let has_value = flag(u);
            let mut flags = if is_text { node::IS_TEXT_TYPE } else { 0 } | if has_value { node::HAS_VALUE } else { 0 };
            if one_in(u, 32) {
                // Bits the core does not know are ignored.
                flags |= int(u, 0, 255) << 2;
            }
            let (text, text_non_empty) = if flag(u) {
                let non_empty = !one_in(u, 4);
                (strings.push(non_empty), non_empty)
            } else {
                (node::NO_TEXT, false)
            };
            // The binding computes an object's JSON only when it can be its
            // text: no value and no string text.
            // (`JSON.stringify` can fail: cycles inside, a throwing `toJSON`.)
            let json = if has_value || text >= 0 || one_in(u, 8) { node::NO_JSON } else { strings.push(true) };
            let value = has_value.then(|| Box::new(gen_node(u, strings, depth + 1)));
            Node::Object { flags, json, json_slot: 0, text, text_non_empty, value }
        }
        _ => Node::TooDeep,
    }
}

/// Appends a node to a tape, recording where its JSON slots land.
pub fn encode(tree: &mut Node, tape: &mut Vec<i32>) {
    match tree {
        Node::Nothing => tape.push(node::NOTHING),
        Node::TooDeep => tape.push(node::TOO_DEEP),
        Node::Str { index, non_empty } => tape.extend([node::STRING, *index, i32::from(*non_empty)]),
        Node::Primitive { index } => tape.extend([node::PRIMITIVE, *index]),
        Node::Array { json, json_slot, children } => {
            tape.push(node::ARRAY);
            *json_slot = tape.len();
            tape.extend([*json, children.len() as i32]);
            for child in children {
                encode(child, tape);
            }
        }
        Node::Object { flags, json, json_slot, text, text_non_empty, value } => {
            tape.extend([node::OBJECT, *flags]);
            *json_slot = tape.len();
            tape.extend([*json, *text, i32::from(*text_non_empty)]);
            if let Some(value) = value {
                encode(value, tape);
            }
        }
    }
}

/// Decodes the node at `position` and returns it with the position after
/// it; `None` where the tape holds no node by the grammar in `tape.rs`
/// (including counts larger than what is left and nesting past the limit).
pub fn decode(tape: &[i32], position: usize) -> Option<(Node, usize)> {
    let mut at = position;
    let tree = decode_at(tape, &mut at, 0)?;
    Some((tree, at))
}

fn decode_at(tape: &[i32], at: &mut usize, depth: usize) -> Option<Node> {
    if depth > MAX_NODE_DEPTH {
        return None;
    }
    let next = |at: &mut usize| {
        let value = tape.get(*at).copied()?;
        *at += 1;
        Some(value)
    };
    Some(match next(at)? {
        node::NOTHING => Node::Nothing,
        node::TOO_DEEP => Node::TooDeep,
        node::STRING => {
            let index = next(at)?;
            Node::Str { index, non_empty: next(at)? != 0 }
        }
        node::PRIMITIVE => Node::Primitive { index: next(at)? },
        node::ARRAY => {
            let json_slot = *at;
            let json = next(at)?;
            let count = usize::try_from(next(at)?).ok()?;
            if count > tape.len() - *at {
                return None;
            }
            let mut children = Vec::with_capacity(count);
            for _ in 0..count {
                children.push(decode_at(tape, at, depth + 1)?);
            }
            Node::Array { json, json_slot, children }
        }
        node::OBJECT => {
            let flags = next(at)?;
            let json_slot = *at;
            let json = next(at)?;
            let text = next(at)?;
            let text_non_empty = next(at)? != 0;
            let value =
                if flags & node::HAS_VALUE != 0 { Some(Box::new(decode_at(tape, at, depth + 1)?)) } else { None };
            Node::Object { flags, json, json_slot, text, text_non_empty, value }
        }
        _ => return None,
    })
}

/// What the text of a node is made of.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Text {
    /// The indexes of the strings joined by newlines (empty: no text). While
    /// `asks` holds any, these are only the strings known so far.
    pub strings: Vec<i32>,
    /// The JSON the text may need, as the core asks for it; `around` counts
    /// from this node's first ask (see [`concat_asks`]).
    pub asks: Vec<JsonAsk>,
}

/// The asks of several outputs' texts as the core makes them in one walk:
/// one after another, each `around` moved by the asks before its output's.
pub fn concat_asks<'a>(texts: impl IntoIterator<Item = &'a Text>) -> JsonAsks {
    let mut all = Vec::new();
    for text in texts {
        let offset = all.len();
        all.extend(text.asks.iter().map(|ask| JsonAsk { around: ask.around.map(|k| k + offset), ..*ask }));
    }
    JsonAsks(all)
}

/// The output nests too deep or contains itself where its text is needed.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep;

/// Whether a node's text is known, or hangs on an ask.
enum Status {
    Known,
    Asked(usize),
}

/// The reference's `modelOutputToText`, over a decoded tree: strings as they
/// are (nothing when empty), primitives as their string, arrays as the text
/// of their items or else their JSON, `{ type: 'text' }` by a string value or
/// else its string text (the value unread), other objects with a value by
/// that value's text, and objects without one by their string text or else
/// their JSON. JSON left for later is asked for: an array whose items' texts
/// hang on asks has its JSON asked for with those asks hanging on it.
pub fn text(tree: &Node) -> Result<Text, TooDeep> {
    let mut text = Text::default();
    walk(tree, 0, &mut text)?;
    Ok(text)
}

fn ask(text: &mut Text, slot: Option<usize>, inside: &[usize]) -> Status {
    let k = text.asks.len();
    text.asks.push(JsonAsk { slot, around: None, inside: inside.len() });
    for &waiter in inside {
        text.asks[waiter].around = Some(k);
    }
    Status::Asked(k)
}

fn walk(tree: &Node, depth: usize, text: &mut Text) -> Result<Status, TooDeep> {
    if depth > MAX_NODE_DEPTH {
        return Err(TooDeep);
    }
    let json = |json: i32, slot: usize, text: &mut Text| match json {
        node::JSON_LATER => ask(text, Some(slot), &[]),
        json if json >= 0 => {
            text.strings.push(json);
            Status::Known
        }
        _ => Status::Known,
    };
    Ok(match tree {
        Node::Nothing => Status::Known,
        Node::TooDeep => return Err(TooDeep),
        Node::Str { index, non_empty } => {
            if *non_empty {
                text.strings.push(*index);
            }
            Status::Known
        }
        Node::Primitive { index } => {
            text.strings.push(*index);
            Status::Known
        }
        Node::Array { json: value, json_slot, children } => {
            let before = text.strings.len();
            let mut inside = Vec::new();
            for child in children {
                if let Status::Asked(k) = walk(child, depth + 1, text)? {
                    inside.push(k);
                }
            }
            if text.strings.len() > before {
                Status::Known
            } else if *value == node::JSON_LATER {
                ask(text, Some(*json_slot), &inside)
            } else if *value >= 0 {
                text.strings.push(*value);
                Status::Known
            } else if inside.is_empty() {
                Status::Known
            } else {
                ask(text, None, &inside)
            }
        }
        Node::Object { flags, json: value, json_slot, text: own, text_non_empty, value: inner } => {
            let is_text_type = flags & node::IS_TEXT_TYPE != 0;
            let has_string_text = *own >= 0;
            match inner {
                None if has_string_text => {
                    if *text_non_empty {
                        text.strings.push(*own);
                    }
                    Status::Known
                }
                None => json(*value, *json_slot, text),
                Some(inner) if is_text_type && matches!(**inner, Node::Str { .. }) => walk(inner, depth + 1, text)?,
                Some(_) if is_text_type && has_string_text => {
                    if *text_non_empty {
                        text.strings.push(*own);
                    }
                    Status::Known
                }
                Some(inner) => walk(inner, depth + 1, text)?,
            }
        }
    })
}

/// The core's answer for the node at `position` equals the oracle's: the
/// same strings and JSON asks, or the same failure, in at most one read of
/// each value of the node. Returns the oracle's text, or `None` where there
/// was no node or it was too deep.
pub fn check_node(tape: &[i32], position: usize) -> Option<Text> {
    let decoded = decode(tape, position);
    // Junk in front of the answer must stay: the core only appends.
    let mut out = vec![-7, -7];
    let junk = JsonAsk { slot: None, around: None, inside: usize::MAX };
    let mut asks = JsonAsks(vec![junk]);
    let reads = work::reads();
    let got = model_output_text(tape, position, &mut out, &mut asks);
    let reads = work::reads() - reads;
    assert_eq!(&out[..2], &[-7, -7], "model_output_text changed what was already in `out`");
    assert_eq!(asks.0[0], junk, "model_output_text changed what was already in `asks`");
    let Some((tree, end)) = decoded else {
        assert!(got.is_err(), "no node at {position} by the grammar, but the core read one: {out:?}");
        return None;
    };
    assert!(reads as usize <= end - position, "{reads} reads for a node of {} values", end - position);
    // The reader steps over exactly the node, whatever is in it.
    let mut reader = Reader::at(tape, position);
    assert_eq!(reader.skip_node(0), Ok(()), "skip_node refused the node at {position}: {tree:?}");
    assert_eq!(reader.position(), end, "skip_node stopped elsewhere than the node's end");
    match (text(&tree), got) {
        (Ok(expected), Ok(())) => {
            assert_eq!(&out[2..], &expected.strings[..], "the strings of {tree:?}");
            // The core's asks count `around` from the start of its list.
            let shifted = concat_asks([&Text { strings: Vec::new(), asks: vec![junk] }, &expected]);
            assert_eq!(asks, shifted, "the JSON asks of {tree:?}");
            check_asks(tape, &JsonAsks(expected.asks.clone()));
            Some(expected)
        }
        (Err(TooDeep), Err(NodeError::TooDeep)) => None,
        (expected, got) => panic!("oracle {expected:?} but core {got:?}: {tree:?}"),
    }
}

/// What a list of asks must be for the binding to run it: each slot a JSON
/// slot left for later, asked for once; each ask hanging on a later one; as
/// many hanging on each as it says; all of it in the answer buffer.
pub fn check_asks(tape: &[i32], asks: &JsonAsks) {
    assert!(asks.len() * node::JSON_ASK_LENGTH <= tape.len(), "the JSON asks do not fit the answer buffer");
    let mut slots = std::collections::HashSet::new();
    let mut inside = vec![0; asks.len()];
    for (k, ask) in asks.0.iter().enumerate() {
        if let Some(slot) = ask.slot {
            assert!(
                slot < tape.len() && tape[slot] == node::JSON_LATER,
                "slot {slot} is not a JSON slot left for later"
            );
            assert!(i32::try_from(slot).is_ok(), "slot {slot} does not fit the binding's Int32Array");
            assert!(slots.insert(slot), "slot {slot} asked for twice");
        }
        if let Some(around) = ask.around {
            assert!(around > k && around < asks.len(), "ask {k} hangs on ask {around}");
            inside[around] += 1;
        }
    }
    for (k, ask) in asks.0.iter().enumerate() {
        assert_eq!(ask.inside, inside[k], "ask {k} says {} hang on it", ask.inside);
    }
}

/// Fills the JSON the asks call for the way the binding's `fillJson` does:
/// a new string, or nothing where `JSON.stringify` gives nothing or throws.
pub fn fill_json(u: &mut U<'_>, tape: &mut [i32], asks: &JsonAsks, strings: &mut Strings) {
    asks.run(tape, |_| match int(u, 0, 15) {
        0 => Stringified::Undefined,
        1 => Stringified::Throws,
        _ => Stringified::Json(strings.push(true)),
    });
}

/// The reference stringifies the value of `slot`: noted in `made`; gives
/// (has text, threw) by its outcome.
fn stringified(slot: usize, outcome: &impl Fn(usize) -> Stringified, made: &mut Vec<usize>) -> (bool, bool) {
    made.push(slot);
    match outcome(slot) {
        Stringified::Json(_) => (true, false),
        Stringified::Undefined => (false, false),
        Stringified::Throws => (false, true),
    }
}

/// The slots the reference's recursion stringifies, in its order, with each
/// slot's outcome given, but for ours on purpose: an array around one whose
/// JSON threw is taken to throw, unstringified. Returns whether the node's
/// text is none because something inside threw.
fn reference_stringifies(tree: &Node, outcome: &impl Fn(usize) -> Stringified, made: &mut Vec<usize>) -> (bool, bool) {
    // (has text, threw)
    match tree {
        Node::Nothing | Node::TooDeep => (false, false),
        Node::Str { non_empty, .. } => (*non_empty, false),
        Node::Primitive { .. } => (true, false),
        Node::Array { json, json_slot, children } => {
            let (mut any, mut threw) = (false, false);
            for child in children {
                let (has, child_threw) = reference_stringifies(child, outcome, made);
                any |= has;
                threw |= child_threw;
            }
            if any {
                return (true, false);
            }
            match *json {
                node::JSON_LATER if threw => (false, true),
                node::JSON_LATER => stringified(*json_slot, outcome, made),
                json if json >= 0 => (true, false),
                _ => (false, threw),
            }
        }
        Node::Object { flags, json, json_slot, text, text_non_empty, value } => {
            let is_text_type = flags & node::IS_TEXT_TYPE != 0;
            match value {
                None if *text >= 0 => (*text_non_empty, false),
                None if *json == node::JSON_LATER => stringified(*json_slot, outcome, made),
                None => (*json >= 0, false),
                Some(inner) if is_text_type && matches!(**inner, Node::Str { .. }) => {
                    reference_stringifies(inner, outcome, made)
                }
                Some(_) if is_text_type && *text >= 0 => (*text_non_empty, false),
                Some(inner) => reference_stringifies(inner, outcome, made),
            }
        }
    }
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let mut strings = Strings::default();
    let structured = !one_in(&mut u, 4);
    let (mut tape, position) = if structured {
        let mut tape = raw_tape(&mut u, 4);
        let position = tape.len();
        let mut tree = gen_node(&mut u, &mut strings, 0);
        encode(&mut tree, &mut tape);
        let end = tape.len();
        tape.extend(raw_tape(&mut u, 4));
        assert_eq!(decode(&tape, position), Some((tree, end)), "a node the binding writes decodes as written");
        (tape, position)
    } else {
        let tape = raw_tape(&mut u, 2048);
        let position = if one_in(&mut u, 16) { size(&mut u, 0, usize::MAX) } else { size(&mut u, 0, tape.len()) };
        (tape, position)
    };

    let Some(first) = check_node(&tape, position) else { return };
    if structured {
        strings.check_used(&first.strings);
    }
    if first.asks.is_empty() {
        return;
    }
    // Each slot's outcome drawn ahead, so that the reference's recursion and
    // the asks can be run on the same ones.
    let asks = JsonAsks(first.asks.clone());
    let mut outcomes = std::collections::HashMap::new();
    for slot in asks.0.iter().filter_map(|ask| ask.slot) {
        let outcome = match int(&mut u, 0, 7) {
            0 => Stringified::Undefined,
            1 => Stringified::Throws,
            _ if structured => Stringified::Json(strings.push(true)),
            _ => Stringified::Json(tape_value(&mut u).max(0)),
        };
        outcomes.insert(slot, outcome);
    }
    let outcome = |slot: usize| outcomes[&slot];
    let before = tape.clone();
    let made = asks.run(&mut tape, outcome);
    if let Some((tree, _)) = decode(&before, position) {
        let mut expected = Vec::new();
        reference_stringifies(&tree, &outcome, &mut expected);
        assert_eq!(made, expected, "the values stringified for {tree:?}");
    }
    // With its JSON filled in, the same node needs nothing more.
    let second = check_node(&tape, position).expect("the node still has text after its JSON is filled in");
    assert!(second.asks.is_empty(), "JSON asked for again: {:?}", second.asks);
    if structured {
        strings.check_used(&second.strings);
    }
}
