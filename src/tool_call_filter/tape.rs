//! What both of the filter's tapes are made of: a reader over a flat
//! `Int32Array`, and the encoding of a model output inside it.
//!
//! A tape is written by the binding in one walk over JavaScript objects and
//! read here; strings stay in JavaScript and are referred to by index. The
//! message-list tape ([`super::message_list`]) and the prompt tape
//! ([`super::prompt`]) each have a grammar of their own; a model output is
//! encoded the same way in both, as a `node`:
//!
//! ```text
//! node := NOTHING                                         null, undefined, function, symbol
//!       | STRING string_index non_empty                   a string
//!       | PRIMITIVE string_index                          String(number | boolean | bigint)
//!       | ARRAY json_index child_count node*              an array
//!       | OBJECT flags json_index text_index text_non_empty [node]   any other object
//!       | TOO_DEEP                                        nested too deep, or contains itself
//! ```
//!
//! Object `flags`: [`node::IS_TEXT_TYPE`] for `type === 'text'`,
//! [`node::HAS_VALUE`] for `'value' in object` (the value's node follows).
//! `json_index` is [`node::NO_JSON`] where `JSON.stringify` threw or gave
//! `undefined`, and [`node::JSON_LATER`] where the binding left it
//! uncomputed; `text_index` is [`node::NO_TEXT`] where `text` is not a string.
//!
//! A model output is only turned into text where a part is actually replaced
//! ([`model_output_text`]); reading a tape just steps over it. An array's or
//! object's JSON is its text only when nothing inside has any, which is rare,
//! so the binding may leave it uncomputed: the text then reports the slots
//! it may need as [`JsonAsks`], and the binding fills them in and asks again.
//! Whether an array needs its JSON can hang on whether the JSON of an array
//! inside it could be made, so the asks say which ask each one waits on: the
//! binding stringifies exactly what the reference's recursion stringifies, in
//! its order, in one pass (asking for every level of `[[[[]]]]` at once made
//! a deep output cost the cube of its depth). An output that nests too deep
//! or contains itself is written as `TOO_DEEP`, which fails only if its text
//! is needed, as the reference's recursion does.

/// The codes of a `node` (declared in the protocol).
pub use crate::protocol::tool_call_filter::model_output as node;
/// Model outputs nested deeper than this are refused (see the protocol's
/// `model_output::MAX_DEPTH`).
pub use crate::protocol::tool_call_filter::model_output::MAX_DEPTH as MAX_NODE_DEPTH;

/// A tape that does not follow its grammar: a bug in the binding, never user input.
#[derive(Debug, PartialEq, Eq)]
pub struct TapeError {
    pub position: usize,
}

impl std::fmt::Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed tape at position {}", self.position)
    }
}

impl std::error::Error for TapeError {}

/// A reader over one tape.
pub struct Reader<'a> {
    data: &'a [i32],
    position: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [i32]) -> Self {
        Reader { data, position: 0 }
    }

    pub fn at(data: &'a [i32], position: usize) -> Self {
        Reader { data, position }
    }

    pub fn position(&self) -> usize {
        self.position
    }

    pub fn read(&mut self) -> Result<i32, TapeError> {
        let value = *self.data.get(self.position).ok_or(TapeError { position: self.position })?;
        self.position += 1;
        work::count(1);
        Ok(value)
    }

    pub fn peek(&self) -> Option<i32> {
        self.data.get(self.position).copied()
    }

    /// A count, which can never exceed what is left of the tape: checking
    /// keeps a broken tape from asking for a huge allocation.
    pub fn count(&mut self) -> Result<usize, TapeError> {
        let at = self.position;
        let value = self.read()?;
        usize::try_from(value).ok().filter(|&n| n <= self.data.len() - self.position).ok_or(TapeError { position: at })
    }

    /// An interned call id, or `None` for the "no id" code (any negative value).
    pub fn call_id(&mut self) -> Result<Option<i32>, TapeError> {
        let value = self.read()?;
        Ok((value >= 0).then_some(value))
    }

    /// The error for the value just read.
    pub fn error(&self) -> TapeError {
        TapeError { position: self.position.saturating_sub(1) }
    }

    /// Fails unless the whole tape has been read.
    pub fn finish(&self) -> Result<(), TapeError> {
        if self.position == self.data.len() {
            Ok(())
        } else {
            Err(TapeError { position: self.position })
        }
    }

    /// Steps over one model-output node, checking its shape only, without
    /// recursion: however deep the node nests, no stack grows. (`depth`, the
    /// node's depth in its output, is what the callers know; a count of the
    /// nodes still to step over is all the walk needs.)
    pub fn skip_node(&mut self, depth: usize) -> Result<(), TapeError> {
        let _ = depth;
        let mut left: usize = 1;
        while left > 0 {
            left -= 1;
            match self.read()? {
                node::NOTHING | node::TOO_DEEP => {}
                node::STRING => {
                    self.read()?;
                    self.read()?;
                }
                node::PRIMITIVE => {
                    self.read()?;
                }
                node::ARRAY => {
                    self.read()?;
                    // Each promised item takes at least one slot of the
                    // tape, which `count` checks, so `left` stays small.
                    left += self.count()?;
                }
                node::OBJECT => {
                    let flags = self.read()?;
                    for _ in 0..3 {
                        self.read()?;
                    }
                    if flags & node::HAS_VALUE != 0 {
                        left += 1;
                    }
                }
                _ => return Err(self.error()),
            }
        }
        Ok(())
    }
}

/// Why a model output has no text to give.
#[derive(Debug, PartialEq, Eq)]
pub enum NodeError {
    Tape(TapeError),
    /// The output nests too deep or contains itself (`TOO_DEEP`).
    TooDeep,
}

impl From<TapeError> for NodeError {
    fn from(error: TapeError) -> Self {
        NodeError::Tape(error)
    }
}

/// The model-facing text of the model output whose node starts at `position`:
/// appends the indexes of the strings it is made of (joined by newlines), and
/// nothing when the text would be empty, `null` or `undefined`; every
/// appended string is non-empty. Uncomputed JSON it may need goes to `asks`,
/// and while `asks` holds any, the strings appended are not the text yet.
///
/// This is the reference's `modelOutputToText`: strings as they are,
/// primitives through `String()`, arrays as their non-empty parts (or their
/// JSON when none), `{ type: 'text' }` by its string `value` or `text`, then
/// any `value`, then a string `text`, then the object's JSON.
pub fn model_output_text(
    data: &[i32],
    position: usize,
    out: &mut Vec<i32>,
    asks: &mut JsonAsks,
) -> Result<(), NodeError> {
    let mut tape = Reader::at(data, position);
    // The arrays the node being read is inside, innermost last: an output
    // nests as deep as the caller made it, so the walk keeps its own stack
    // rather than recursing.
    let mut open: Vec<OpenArray> = Vec::new();
    // The asks whose arrays are still open around them, innermost last: each
    // learns which ask it waits on when its array closes.
    let mut waiting: Vec<usize> = Vec::new();
    let mut depth = 0;
    loop {
        if depth > MAX_NODE_DEPTH {
            return Err(NodeError::TooDeep);
        }
        match tape.read()? {
            node::NOTHING => {}
            node::TOO_DEEP => return Err(NodeError::TooDeep),
            node::STRING => {
                let index = tape.read()?;
                if tape.read()? != 0 {
                    out.push(index);
                }
            }
            node::PRIMITIVE => out.push(tape.read()?),
            node::ARRAY => {
                let json_slot = tape.position();
                let json = tape.read()?;
                let items = tape.count()?;
                open.push(OpenArray {
                    json,
                    json_slot,
                    texts_before: out.len(),
                    waiting_before: waiting.len(),
                    items_left: items,
                    depth,
                });
            }
            node::OBJECT => {
                let flags = tape.read()?;
                let json_slot = tape.position();
                let json = tape.read()?;
                let text = tape.read()?;
                let text_non_empty = tape.read()? != 0;
                let is_text_type = flags & node::IS_TEXT_TYPE != 0;
                let has_value = flags & node::HAS_VALUE != 0;
                let push_text = |out: &mut Vec<i32>| {
                    if text_non_empty {
                        out.push(text);
                    }
                };

                if !has_value {
                    if text >= 0 {
                        push_text(out);
                    } else if json == node::JSON_LATER {
                        waiting.push(asks.push(Some(json_slot), 0));
                    } else if json >= 0 {
                        out.push(json);
                    }
                } else if is_text_type && tape.peek() != Some(node::STRING) && text >= 0 {
                    // A `{ type: 'text' }` object whose value is not a
                    // string answers with its string text, and the value is
                    // not looked at: stepped over unread, a cycle inside it
                    // must not fail.
                    tape.skip_node(depth + 1)?;
                    push_text(out);
                } else {
                    // Otherwise the object's text is its value's (a string
                    // value of a `{ type: 'text' }` object included), and
                    // the value's node comes next on the tape.
                    depth += 1;
                    continue;
                }
            }
            _ => return Err(NodeError::Tape(tape.error())),
        }
        // The node is read: on to the next item of the innermost unfinished
        // array, closing each finished one.
        loop {
            let Some(array) = open.last_mut() else {
                return Ok(());
            };
            if array.items_left > 0 {
                array.items_left -= 1;
                depth = array.depth + 1;
                break;
            }
            let array = open.pop().expect("an open array");
            array.close(out, asks, &mut waiting);
        }
    }
}

/// An array [`model_output_text`] is inside.
struct OpenArray {
    json: i32,
    json_slot: usize,
    /// How many strings the text had before the array's items.
    texts_before: usize,
    /// How many asks were waiting before the array's items.
    waiting_before: usize,
    items_left: usize,
    depth: usize,
}

impl OpenArray {
    /// Gives the array its text once its items are read. An array's JSON is
    /// its text when none of its items had any; where some items' texts hang
    /// on JSON asked for, so does whether the array needs its own.
    fn close(self, out: &mut Vec<i32>, asks: &mut JsonAsks, waiting: &mut Vec<usize>) {
        let inside = waiting.len() - self.waiting_before;
        if out.len() > self.texts_before {
            // An item has text: the array's own JSON is never needed, and
            // what the asks inside give changes nothing around it.
            waiting.truncate(self.waiting_before);
            return;
        }
        let slot = match self.json {
            node::JSON_LATER => Some(self.json_slot),
            // The JSON is known: a string is the text whatever the asks
            // inside give (theirs, or this), and nothing leaves only theirs.
            json if json >= 0 => {
                out.push(json);
                waiting.truncate(self.waiting_before);
                return;
            }
            _ if inside == 0 => return,
            _ => None,
        };
        let ask = asks.push(slot, inside);
        for &waiter in &waiting[self.waiting_before..] {
            asks.0[waiter].around = Some(ask);
        }
        waiting.truncate(self.waiting_before);
        waiting.push(ask);
    }
}

/// The JSON that the texts of some model outputs may need, in the order the
/// reference's recursion would make it (each array after the arrays inside
/// it): the binding goes through the asks in order and stringifies an ask's
/// value where none of the asks inside it gave a JSON, which is exactly
/// where the reference stringifies it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonAsks(pub Vec<JsonAsk>);

/// One of [`JsonAsks`]: an array or object whose JSON is its text unless an
/// ask inside it gives JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonAsk {
    /// The tape position of the JSON slot to fill; `None` for an array whose
    /// JSON is known to be nothing, so that its text is only what the asks
    /// inside give.
    pub slot: Option<usize>,
    /// The ask (an index into the asks) of the array around this one whose
    /// need hangs on this one, if any.
    pub around: Option<usize>,
    /// How many asks hang on this one: it is needed when none of them gave
    /// JSON (at once, for none).
    pub inside: usize,
}

impl JsonAsks {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn push(&mut self, slot: Option<usize>, inside: usize) -> usize {
        self.0.push(JsonAsk { slot, around: None, inside });
        self.0.len() - 1
    }

    /// The asks laid out one after another, each as [`JsonAsk::encode`].
    pub fn encode(&self) -> Vec<i32> {
        self.0.iter().flat_map(JsonAsk::encode).collect()
    }

    /// What the binding's `fillJson` does with the asks, over their encoding,
    /// for the tests and fuzz targets that check them: in order, an ask's
    /// value is stringified (`stringify`, given its slot) where every ask
    /// hanging on it gave no JSON, and taken to throw without it where one of
    /// those threw. Fills the slots of `tape` and returns those stringified,
    /// in order.
    pub fn run(&self, tape: &mut [i32], mut stringify: impl FnMut(usize) -> Stringified) -> Vec<usize> {
        let encoded = self.encode();
        let count = encoded.len() / node::JSON_ASK_LENGTH;
        let mut failed = vec![0; count];
        let mut threw = vec![false; count];
        let mut made = Vec::new();
        for (k, ask) in encoded.chunks_exact(node::JSON_ASK_LENGTH).enumerate() {
            if failed[k] != ask[node::JSON_ASK_INSIDE] {
                continue;
            }
            let slot = ask[node::JSON_ASK_SLOT];
            let mut json = node::NO_JSON;
            let mut thrown = threw[k];
            if slot != node::NO_ASK {
                if !thrown {
                    made.push(slot as usize);
                    match stringify(slot as usize) {
                        Stringified::Json(index) => json = index,
                        Stringified::Undefined => {}
                        Stringified::Throws => thrown = true,
                    }
                }
                tape[slot as usize] = json;
            }
            let around = ask[node::JSON_ASK_AROUND];
            if json == node::NO_JSON && around != node::NO_ASK {
                failed[around as usize] += 1;
                threw[around as usize] |= thrown;
            }
        }
        made
    }
}

/// What `JSON.stringify` gave for a value asked for ([`JsonAsks::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stringified {
    /// A string: its index.
    Json(i32),
    /// `undefined` (a `toJSON` that gives nothing).
    Undefined,
    Throws,
}

impl JsonAsk {
    /// This ask laid out as the protocol's `model_output::JSON_ASK_*` say.
    pub fn encode(&self) -> [i32; node::JSON_ASK_LENGTH] {
        let index = |value: Option<usize>| value.map_or(node::NO_ASK, |value| value as i32);
        let mut fields = [0; node::JSON_ASK_LENGTH];
        fields[node::JSON_ASK_SLOT] = index(self.slot);
        fields[node::JSON_ASK_AROUND] = index(self.around);
        fields[node::JSON_ASK_INSIDE] = self.inside as i32;
        fields
    }
}

/// How many tape values the core read, for the tests and fuzz targets that
/// bound a walk's work by the size of what it walks. Counted only in test
/// and fuzzing builds (`cfg!(fuzzing)`); elsewhere nothing is counted and
/// [`work::reads`] stays 0.
pub mod work {
    use std::cell::Cell;

    thread_local! {
        static READS: Cell<u64> = const { Cell::new(0) };
    }

    #[inline(always)]
    pub(super) fn count(reads: u64) {
        if cfg!(any(test, fuzzing)) {
            READS.with(|cell| cell.set(cell.get() + reads));
        }
    }

    /// The values read on this thread so far.
    pub fn reads() -> u64 {
        READS.with(Cell::get)
    }
}

#[cfg(test)]
mod tests {
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
    fn write(
        value: &Value,
        tape: &mut Vec<i32>,
        strings: &mut Vec<String>,
        json_of: &mut Vec<(usize, Option<String>)>,
    ) {
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
}
