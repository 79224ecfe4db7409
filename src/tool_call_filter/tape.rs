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
#[path = "tape_tests.rs"]
mod tests;
