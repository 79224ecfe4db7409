//! The model-output walk's JSON asks, run as the binding's `fillJson` runs
//! them, against the reference's recursion; and the work of the walks,
//! bounded by the size of what they walk.

use super::*;

/// A model output as JavaScript has it, for building tapes the way the
/// binding's `writeModelOutput` writes them.
#[derive(Clone)]
enum Value {
    Str(&'static str),
    Nothing,
    Array(Vec<Value>),
    /// An array whose `JSON.stringify` throws (a `BigInt` inside, say).
    Throwing(Vec<Value>),
}

/// Writes `value` onto `tape` (every array's JSON left for later) and notes,
/// by JSON slot, what stringifying it gives: `None` where it throws.
fn write(value: &Value, tape: &mut Vec<i32>, strings: &mut Vec<String>, json_of: &mut Vec<(usize, Option<String>)>) {
    match value {
        Value::Nothing => tape.push(node::NOTHING),
        Value::Str(text) => {
            tape.extend([node::STRING, strings.len() as i32, i32::from(!text.is_empty())]);
            strings.push(text.to_string());
        }
        Value::Array(items) | Value::Throwing(items) => {
            tape.push(node::ARRAY);
            json_of.push((tape.len(), json(value)));
            tape.extend([node::JSON_LATER, items.len() as i32]);
            for item in items {
                write(item, tape, strings, json_of);
            }
        }
    }
}

/// `JSON.stringify(value)`, or `None` where it throws.
fn json(value: &Value) -> Option<String> {
    match value {
        Value::Nothing => Some("null".into()),
        Value::Str(text) => Some(format!("{text:?}")),
        Value::Throwing(_) => None,
        Value::Array(items) => {
            let items: Option<Vec<String>> = items.iter().map(json).collect();
            Some(format!("[{}]", items?.join(",")))
        }
    }
}

/// The reference's `modelOutputToText` by plain recursion: the text, and
/// the JSON slots it stringified, in its order; `threw` says the text is
/// none because a `JSON.stringify` threw inside. One difference, ours on
/// purpose: an array whose JSON would be made around one whose JSON threw is
/// taken to throw without stringifying it again (it holds what threw, so it
/// would), which spares a chain of failing stringifies.
fn reference(
    value: &Value,
    slots: &mut std::slice::Iter<'_, (usize, Option<String>)>,
    made: &mut Vec<usize>,
) -> (Option<String>, bool) {
    match value {
        Value::Nothing => (None, false),
        Value::Str(text) => (Some(text.to_string()).filter(|text| !text.is_empty()), false),
        Value::Array(items) | Value::Throwing(items) => {
            let (slot, json) = slots.next().expect("a slot per array").clone();
            let mut texts = Vec::new();
            let mut threw = false;
            for item in items {
                let (text, item_threw) = reference(item, slots, made);
                texts.extend(text);
                threw |= item_threw;
            }
            if !texts.is_empty() {
                return (Some(texts.join("\n")), false);
            }
            if threw {
                return (None, true);
            }
            made.push(slot);
            (json.clone(), json.is_none())
        }
    }
}

/// The binding's `fillJson` ([`JsonAsks::run`]), with what stringifying each
/// slot gives from `json_of`: fills the tape's slots and returns those it
/// stringified, in order.
fn fill_json(
    asks: &JsonAsks,
    tape: &mut [i32],
    strings: &mut Vec<String>,
    json_of: &[(usize, Option<String>)],
) -> Vec<usize> {
    asks.run(tape, |slot| match &json_of.iter().find(|(at, _)| *at == slot).expect("a JSON slot").1 {
        Some(text) => {
            strings.push(text.clone());
            Stringified::Json(strings.len() as i32 - 1)
        }
        None => Stringified::Throws,
    })
}

/// Our text for `value`: the walk, the asks filled in, the walk again.
/// Returns the text and the slots stringified.
fn ours(value: &Value) -> (Option<String>, Vec<usize>) {
    let (mut tape, mut strings, mut json_of) = (Vec::new(), Vec::new(), Vec::new());
    write(value, &mut tape, &mut strings, &mut json_of);
    let mut out = Vec::new();
    let mut asks = JsonAsks::default();
    model_output_text(&tape, 0, &mut out, &mut asks).unwrap();
    let made = if asks.is_empty() {
        Vec::new()
    } else {
        let made = fill_json(&asks, &mut tape, &mut strings, &json_of);
        out.clear();
        let mut again = JsonAsks::default();
        model_output_text(&tape, 0, &mut out, &mut again).unwrap();
        assert!(again.is_empty(), "JSON asked for again after the asks were filled in: {again:?}");
        made
    };
    let text = out.iter().map(|&index| strings[index as usize].as_str()).collect::<Vec<_>>().join("\n");
    (Some(text).filter(|text| !text.is_empty()), made)
}

fn check(value: &Value) {
    let (mut tape, mut strings, mut json_of) = (Vec::new(), Vec::new(), Vec::new());
    write(value, &mut tape, &mut strings, &mut json_of);
    let mut made = Vec::new();
    let (expected, _) = reference(value, &mut json_of.iter(), &mut made);
    assert_eq!(ours(value), (expected, made));
}

fn nest(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, _| Value::Array(vec![inner]))
}

#[test]
fn nested_empty_arrays_ask_for_each_level_hanging_on_the_one_inside() {
    // [[[]]]: slots 2, 5, 8 from the outside in; only the innermost is needed at once.
    let (mut tape, mut strings, mut json_of) = (Vec::new(), Vec::new(), Vec::new());
    write(&nest(2, Value::Array(vec![])), &mut tape, &mut strings, &mut json_of);
    let mut out = Vec::new();
    let mut asks = JsonAsks::default();
    model_output_text(&tape, 0, &mut out, &mut asks).unwrap();
    let ask = |slot, around, inside| JsonAsk { slot: Some(slot), around, inside };
    assert_eq!(asks, JsonAsks(vec![ask(7, Some(1), 0), ask(4, Some(2), 1), ask(1, None, 1)]));
    assert_eq!(asks.encode(), vec![7, 1, 0, 4, 2, 1, 1, -1, 1]);
    // The binding stringifies the innermost only, as the reference does.
    assert_eq!(fill_json(&asks, &mut tape, &mut strings, &json_of), vec![7]);
}

#[test]
fn an_array_with_text_beside_an_ask_hangs_nothing_on_it() {
    // [[], 'x']: the empty array's JSON is asked for (the reference makes it), the outer one's never.
    let value = Value::Array(vec![Value::Array(vec![]), Value::Str("x")]);
    let (mut tape, mut strings, mut json_of) = (Vec::new(), Vec::new(), Vec::new());
    write(&value, &mut tape, &mut strings, &mut json_of);
    let mut asks = JsonAsks::default();
    model_output_text(&tape, 0, &mut Vec::new(), &mut asks).unwrap();
    assert_eq!(asks, JsonAsks(vec![JsonAsk { slot: Some(4), around: None, inside: 0 }]));
    check(&value);
}

#[test]
fn the_asks_stringify_what_the_reference_stringifies_in_its_order() {
    use Value::*;
    let cases = [
        nest(5, Array(vec![])),
        nest(5, Str("deep")),
        nest(3, Nothing),
        // What throws leaves the array around it to its own JSON, which throws too.
        nest(3, Throwing(vec![])),
        Array(vec![Throwing(vec![]), Str("")]),
        Array(vec![Array(vec![Nothing, Array(vec![])]), Array(vec![Nothing]), Str("")]),
        Array(vec![Throwing(vec![]), Array(vec![Nothing])]),
        Array(vec![Array(vec![Throwing(vec![])]), Array(vec![Str(""), Array(vec![Str("x")])])]),
        Array(vec![]),
        Str(""),
    ];
    for value in &cases {
        check(value);
    }
}

#[test]
fn seeded_outputs_stringify_what_the_reference_stringifies() {
    fn gen(rng: &mut crate::test_rng::Rng, depth: usize) -> Value {
        match rng.next() % if depth > 6 { 3 } else { 7 } {
            0 => Value::Nothing,
            1 => Value::Str(""),
            2 => Value::Str("s"),
            n => {
                let items = (0..rng.next() % 4).map(|_| gen(rng, depth + 1)).collect();
                if n == 3 {
                    Value::Throwing(items)
                } else {
                    Value::Array(items)
                }
            }
        }
    }
    let mut rng = crate::test_rng::Rng::new(29);
    for _ in 0..5_000 {
        check(&gen(&mut rng, 0));
    }
}

/// A tape of `depth` arrays, each around the next, the innermost holding
/// `leaf` (written as a node) and, where `beside`, an empty array and an
/// empty string beside it at every level: written without recursion.
fn nested_tape(depth: usize, leaf: &[i32], beside: bool) -> Vec<i32> {
    let mut tape = Vec::new();
    for _ in 0..depth {
        tape.extend([node::ARRAY, node::JSON_LATER, if beside { 3 } else { 1 }]);
        if beside {
            tape.extend([node::ARRAY, node::JSON_LATER, 0]);
        }
    }
    tape.extend_from_slice(leaf);
    if beside {
        for _ in 0..depth {
            tape.extend([node::STRING, 0, 0]);
        }
    }
    tape
}

/// The values read to answer the output on `tape`: the walk, its asks
/// filled in (each stringify giving JSON where `gives_json`), the walk again.
fn reads_to_answer(mut tape: Vec<i32>, gives_json: bool) -> u64 {
    let before = work::reads();
    let mut asks = JsonAsks::default();
    model_output_text(&tape, 0, &mut Vec::new(), &mut asks).unwrap();
    let json_of: Vec<(usize, Option<String>)> =
        asks.0.iter().filter_map(|ask| ask.slot).map(|slot| (slot, gives_json.then(|| "[]".to_string()))).collect();
    fill_json(&asks, &mut tape, &mut Vec::new(), &json_of);
    let mut again = JsonAsks::default();
    model_output_text(&tape, 0, &mut Vec::new(), &mut again).unwrap();
    assert!(again.is_empty());
    work::reads() - before
}

#[test]
fn the_walk_reads_each_value_of_an_output_at_most_twice_whatever_its_shape() {
    let deep = 100_000;
    let mut wide = vec![node::ARRAY, node::JSON_LATER, deep as i32];
    for _ in 0..deep {
        wide.extend([node::ARRAY, node::JSON_LATER, 1, node::NOTHING]);
    }
    let empty = [node::ARRAY, node::JSON_LATER, 0];
    let shapes = [
        (nested_tape(deep, &empty, false), true),
        (nested_tape(deep, &empty, false), false),
        (nested_tape(deep, &[node::STRING, 0, 1], false), true),
        (nested_tape(deep, &[node::NOTHING], false), false),
        (nested_tape(deep, &empty, true), true),
        (wide, false),
    ];
    for (tape, gives_json) in shapes {
        let length = tape.len() as u64;
        let reads = reads_to_answer(tape, gives_json);
        assert!(reads <= 2 * length, "{reads} reads for a tape of {length}");
    }
}
