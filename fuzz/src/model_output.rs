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

use mastra_native_processors::tool_call_filter::tape::{model_output_text, node, NodeError, Reader, MAX_NODE_DEPTH};

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
    /// The indexes of the strings joined by newlines (empty: no text).
    pub strings: Vec<i32>,
    /// JSON slots left for later that the text needs.
    pub needed_json: Vec<usize>,
}

/// The output nests too deep or contains itself where its text is needed.
#[derive(Debug, PartialEq, Eq)]
pub struct TooDeep;

/// The reference's `modelOutputToText`, over a decoded tree: strings as they
/// are (nothing when empty), primitives as their string, arrays as the text
/// of their items or else their JSON, `{ type: 'text' }` by a string value or
/// else its string text (the value unread), other objects with a value by
/// that value's text, and objects without one by their string text or else
/// their JSON.
pub fn text(tree: &Node) -> Result<Text, TooDeep> {
    let mut text = Text::default();
    walk(tree, 0, &mut text)?;
    Ok(text)
}

fn walk(tree: &Node, depth: usize, text: &mut Text) -> Result<(), TooDeep> {
    if depth > MAX_NODE_DEPTH {
        return Err(TooDeep);
    }
    let json = |json: i32, slot: usize, text: &mut Text| match json {
        node::JSON_LATER => text.needed_json.push(slot),
        json if json >= 0 => text.strings.push(json),
        _ => {}
    };
    match tree {
        Node::Nothing => {}
        Node::TooDeep => return Err(TooDeep),
        Node::Str { index, non_empty } => {
            if *non_empty {
                text.strings.push(*index);
            }
        }
        Node::Primitive { index } => text.strings.push(*index),
        Node::Array { json: value, json_slot, children } => {
            let before = text.strings.len();
            for child in children {
                walk(child, depth + 1, text)?;
            }
            if text.strings.len() == before {
                json(*value, *json_slot, text);
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
                }
                None => json(*value, *json_slot, text),
                Some(inner) if is_text_type && matches!(**inner, Node::Str { .. }) => walk(inner, depth + 1, text)?,
                Some(_) if is_text_type && has_string_text => {
                    if *text_non_empty {
                        text.strings.push(*own);
                    }
                }
                Some(inner) => walk(inner, depth + 1, text)?,
            }
        }
    }
    Ok(())
}

/// The core's answer for the node at `position` equals the oracle's: the
/// same strings and JSON requests, or the same failure. Returns the oracle's
/// text, or `None` where there was no node or it was too deep.
pub fn check_node(tape: &[i32], position: usize) -> Option<Text> {
    let decoded = decode(tape, position);
    // Junk in front of the answer must stay: the core only appends.
    let mut out = vec![-7, -7];
    let mut needed_json = vec![usize::MAX];
    let got = model_output_text(tape, position, &mut out, &mut needed_json);
    assert_eq!(&out[..2], &[-7, -7], "model_output_text changed what was already in `out`");
    assert_eq!(needed_json[0], usize::MAX, "model_output_text changed what was already in `needed_json`");
    let Some((tree, end)) = decoded else {
        assert!(got.is_err(), "no node at {position} by the grammar, but the core read one: {out:?}");
        return None;
    };
    // The reader steps over exactly the node, whatever is in it.
    let mut reader = Reader::at(tape, position);
    assert_eq!(reader.skip_node(0), Ok(()), "skip_node refused the node at {position}: {tree:?}");
    assert_eq!(reader.position(), end, "skip_node stopped elsewhere than the node's end");
    match (text(&tree), got) {
        (Ok(expected), Ok(())) => {
            assert_eq!(&out[2..], &expected.strings[..], "the strings of {tree:?}");
            assert_eq!(&needed_json[1..], &expected.needed_json[..], "the JSON slots of {tree:?}");
            for &slot in &expected.needed_json {
                assert_eq!(tape[slot], node::JSON_LATER, "slot {slot} asked for is not a JSON slot left for later");
            }
            Some(expected)
        }
        (Err(TooDeep), Err(NodeError::TooDeep)) => None,
        (expected, got) => panic!("oracle {expected:?} but core {got:?}: {tree:?}"),
    }
}

/// Fills the JSON slots the way the binding's `fillJson` does: a new string,
/// or nothing where `JSON.stringify` fails.
pub fn fill_json(u: &mut U<'_>, tape: &mut [i32], slots: &[usize], strings: &mut Strings) {
    for &slot in slots {
        tape[slot] = if one_in(u, 8) { node::NO_JSON } else { strings.push(true) };
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
    if first.needed_json.is_empty() {
        return;
    }
    if structured {
        fill_json(&mut u, &mut tape, &first.needed_json, &mut strings);
    } else {
        for &slot in &first.needed_json {
            tape[slot] = if flag(&mut u) { node::NO_JSON } else { tape_value(&mut u).max(0) };
        }
    }
    // With its JSON filled in, the same node needs nothing more.
    let second = check_node(&tape, position).expect("the node still has text after its JSON is filled in");
    assert!(second.needed_json.is_empty(), "JSON asked for again: {:?}", second.needed_json);
    if structured {
        strings.check_used(&second.strings);
    }
}
