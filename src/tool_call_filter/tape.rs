//! The flat encoding a message history crosses the Node-API boundary in.
//!
//! One `Int32Array` describes a whole history; strings stay in JavaScript and
//! are referred to by index. Grammar (every symbol is one `i32`):
//!
//! ```text
//! history  := count message*
//! message  := 0                                  nothing to filter: string content or no parts
//!           | 2                                  a hole in a sparse array
//!           | 1 top_text part_count part* legacy
//! top_text := 0 absent or falsy | 1 text | 2 blank string | 3 truthy non-string
//! part     := 0                                  not a tool invocation
//!           | 2                                  a hole in a sparse array
//!           | 1 state excluded call_id output
//! state    := 0 other | 1 'call' | 2 'result'
//! excluded := 0 | 1                              tool name is in the exclude list
//! call_id  := -1 falsy | interned id >= 0
//! output   := 0 no model output | 1 node
//! node     := 0                                  null, undefined, function, symbol
//!           | 1 string_index non_empty           a string
//!           | 4 string_index                     String(number | boolean | bigint)
//!           | 2 json_index child_count node*     an array (json_index -2: not computed yet)
//!           | 3 flags json_index text_index text_non_empty [node]   any other object
//!           | 5                                  nested too deep, or contains itself
//! legacy   := 0 not an array | 1 count entry*
//! entry    := call_id excluded | -3 0 | -4 0      -3: null or undefined; -4: a hole
//! ```
//!
//! Object `flags`: bit 0 `type === 'text'`, bit 1 `'value' in object` (then the
//! value's node follows), bit 2 reserved. `json_index` is -1 where
//! `JSON.stringify` threw or gave `undefined`; `text_index` is -1 where `text`
//! is not a string.
//!
//! A model output is only turned into text for a part that is actually
//! replaced ([`model_output_text`]); reading the tape just steps over it.
//! An array's JSON is its text only when none of its items has any, which is
//! rare, so the binding leaves it uncomputed (-2); the text reports the tape
//! positions of the slots it needed, and the binding fills them in and asks
//! again. A model output that nests too deep or contains itself is written
//! as node 5, which fails only if its text is needed, as the reference's
//! recursion does.

/// Whether `content.content` keeps an emptied message alive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopLevelText {
    /// Absent, empty or otherwise falsy.
    Absent,
    /// A string with something besides whitespace.
    Text,
    /// A non-empty string of whitespace only.
    Blank,
    /// Truthy but not a string: the reference cannot trim it.
    NotAString,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolState {
    Call,
    Result,
    Other,
}

/// A run of items in one of [`History`]'s flat lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    start: u32,
    len: u32,
}

impl Slice {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Any part that is not a tool invocation.
    Other,
    /// A missing item of a sparse `parts` array, which array methods skip.
    Hole,
    Tool {
        state: ToolState,
        excluded: bool,
        call_id: Option<i32>,
        /// Where `providerMetadata.mastra.modelOutput`'s node starts on the
        /// tape, when there is one ([`model_output_text`]).
        model_output: Option<usize>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyInvocation {
    Null,
    /// A missing item of a sparse array, which `filter` skips.
    Hole,
    Entry {
        call_id: Option<i32>,
        excluded: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// String content, or content without parts: never touched.
    Untouched,
    /// A missing item of a sparse history, which `map` and `filter` skip.
    Hole,
    WithParts {
        top_level_text: TopLevelText,
        /// Its parts ([`History::parts`]).
        parts: Slice,
        /// `content.toolInvocations` when it is an array ([`History::legacy`]).
        legacy: Option<Slice>,
    },
}

/// A parsed history. Parts and legacy entries of all messages live in two
/// flat lists, so reading a tape allocates a handful of vectors however many
/// messages it holds.
#[derive(Debug, Default)]
pub struct History {
    pub messages: Vec<Message>,
    parts: Vec<Part>,
    legacy: Vec<LegacyInvocation>,
}

impl History {
    pub fn parts(&self, slice: Slice) -> &[Part] {
        &self.parts[slice.range()]
    }

    pub fn legacy(&self, slice: Slice) -> &[LegacyInvocation] {
        &self.legacy[slice.range()]
    }
}

/// A tape that does not follow the grammar: a bug in the binding, never user input.
#[derive(Debug, PartialEq, Eq)]
pub struct TapeError {
    pub position: usize,
}

impl std::fmt::Display for TapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed message tape at position {}", self.position)
    }
}

impl std::error::Error for TapeError {}

/// A reader over one tape.
pub struct Tape<'a> {
    data: &'a [i32],
    position: usize,
}

/// Model outputs nested deeper than this are refused (the binding refuses them
/// first, with a clearer message), so recursion here stays bounded.
pub const MAX_NODE_DEPTH: usize = 512;

impl<'a> Tape<'a> {
    pub fn new(data: &'a [i32]) -> Self {
        Tape { data, position: 0 }
    }

    fn next(&mut self) -> Result<i32, TapeError> {
        let value = *self.data.get(self.position).ok_or(TapeError { position: self.position })?;
        self.position += 1;
        Ok(value)
    }

    fn count(&mut self) -> Result<usize, TapeError> {
        let at = self.position;
        let value = self.next()?;
        // A count can never exceed what is left of the tape; checking keeps a
        // broken tape from asking for a huge allocation.
        usize::try_from(value).ok().filter(|&n| n <= self.data.len() - self.position).ok_or(TapeError { position: at })
    }

    fn call_id(&mut self) -> Result<Option<i32>, TapeError> {
        let value = self.next()?;
        Ok((value >= 0).then_some(value))
    }

    fn error(&self) -> TapeError {
        TapeError { position: self.position.saturating_sub(1) }
    }

    /// Reads a whole history.
    pub fn history(&mut self) -> Result<History, TapeError> {
        let count = self.count()?;
        let mut history = History { messages: Vec::with_capacity(count), ..History::default() };
        for _ in 0..count {
            let message = self.message(&mut history)?;
            history.messages.push(message);
        }
        if self.position != self.data.len() {
            return Err(TapeError { position: self.position });
        }
        Ok(history)
    }

    fn message(&mut self, history: &mut History) -> Result<Message, TapeError> {
        match self.next()? {
            0 => Ok(Message::Untouched),
            2 => Ok(Message::Hole),
            1 => {
                let top_level_text = match self.next()? {
                    0 => TopLevelText::Absent,
                    1 => TopLevelText::Text,
                    2 => TopLevelText::Blank,
                    3 => TopLevelText::NotAString,
                    _ => return Err(self.error()),
                };
                let part_count = self.count()?;
                let parts = Slice { start: history.parts.len() as u32, len: part_count as u32 };
                for _ in 0..part_count {
                    let part = self.part()?;
                    history.parts.push(part);
                }
                let legacy = match self.next()? {
                    0 => None,
                    1 => {
                        let count = self.count()?;
                        let slice = Slice { start: history.legacy.len() as u32, len: count as u32 };
                        for _ in 0..count {
                            let id = self.next()?;
                            let excluded = self.next()? != 0;
                            history.legacy.push(match id {
                                -3 => LegacyInvocation::Null,
                                -4 => LegacyInvocation::Hole,
                                id => LegacyInvocation::Entry { call_id: (id >= 0).then_some(id), excluded },
                            });
                        }
                        Some(slice)
                    }
                    _ => return Err(self.error()),
                };
                Ok(Message::WithParts { top_level_text, parts, legacy })
            }
            _ => Err(self.error()),
        }
    }

    fn part(&mut self) -> Result<Part, TapeError> {
        match self.next()? {
            0 => Ok(Part::Other),
            2 => Ok(Part::Hole),
            1 => {
                let state = match self.next()? {
                    0 => ToolState::Other,
                    1 => ToolState::Call,
                    2 => ToolState::Result,
                    _ => return Err(self.error()),
                };
                let excluded = self.next()? != 0;
                let call_id = self.call_id()?;
                let model_output = match self.next()? {
                    0 => None,
                    1 => {
                        let start = self.position;
                        self.skip_node(0)?;
                        Some(start)
                    }
                    _ => return Err(self.error()),
                };
                Ok(Part::Tool { state, excluded, call_id, model_output })
            }
            _ => Err(self.error()),
        }
    }

    /// Steps over one model-output node, checking its shape only.
    fn skip_node(&mut self, depth: usize) -> Result<(), TapeError> {
        if depth > MAX_NODE_DEPTH {
            return Err(TapeError { position: self.position });
        }
        match self.next()? {
            0 | 5 => {}
            1 => {
                self.next()?;
                self.next()?;
            }
            4 => {
                self.next()?;
            }
            2 => {
                self.next()?;
                for _ in 0..self.count()? {
                    self.skip_node(depth + 1)?;
                }
            }
            3 => {
                let flags = self.next()?;
                for _ in 0..3 {
                    self.next()?;
                }
                if flags & 2 != 0 {
                    self.skip_node(depth + 1)?;
                }
            }
            _ => return Err(self.error()),
        }
        Ok(())
    }
}

/// Why a model output has no text to give.
#[derive(Debug, PartialEq, Eq)]
pub enum NodeError {
    Tape(TapeError),
    /// The output nests too deep or contains itself (node 5).
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
/// appended string is non-empty. Uncomputed array JSON it needs goes to
/// `needed_json`.
///
/// This is the reference's `modelOutputToText`: strings as they are,
/// primitives through `String()`, arrays as their non-empty parts (or their
/// JSON when none), `{ type: 'text' }` by its string `value` or `text`, then
/// any `value`, then a string `text`, then the object's JSON.
pub fn model_output_text(
    data: &[i32],
    position: usize,
    out: &mut Vec<i32>,
    needed_json: &mut Vec<usize>,
) -> Result<(), NodeError> {
    let mut tape = Tape { data, position };
    node_text(&mut tape, 0, out, needed_json)
}

fn node_text(
    tape: &mut Tape<'_>,
    depth: usize,
    out: &mut Vec<i32>,
    needed_json: &mut Vec<usize>,
) -> Result<(), NodeError> {
    if depth > MAX_NODE_DEPTH {
        return Err(NodeError::TooDeep);
    }
    match tape.next()? {
        0 => {}
        5 => return Err(NodeError::TooDeep),
        1 => {
            let index = tape.next()?;
            if tape.next()? != 0 {
                out.push(index);
            }
        }
        4 => out.push(tape.next()?),
        2 => {
            let json_slot = tape.position;
            let json = tape.next()?;
            let children = tape.count()?;
            let before = out.len();
            for _ in 0..children {
                node_text(tape, depth + 1, out, needed_json)?;
            }
            if out.len() == before {
                match json {
                    -2 => needed_json.push(json_slot),
                    json if json >= 0 => out.push(json),
                    _ => {}
                }
            }
        }
        3 => {
            let flags = tape.next()?;
            let json = tape.next()?;
            let text = tape.next()?;
            let text_non_empty = tape.next()? != 0;
            let is_text_type = flags & 1 != 0;
            let has_value = flags & 2 != 0;
            let push_text = |out: &mut Vec<i32>| {
                if text_non_empty {
                    out.push(text);
                }
            };

            if !has_value {
                if text >= 0 {
                    push_text(out);
                } else if json >= 0 {
                    out.push(json);
                }
                return Ok(());
            }

            // A `{ type: 'text' }` object answers with its string value
            // first; otherwise with its string text, and the value is not
            // looked at.
            let value_is_string = tape.data.get(tape.position) == Some(&1);
            if is_text_type && value_is_string {
                return node_text(tape, depth + 1, out, needed_json);
            }
            if is_text_type && text >= 0 {
                // Step over the value unread: a cycle inside it must not fail.
                tape.skip_node(depth + 1)?;
                push_text(out);
                return Ok(());
            }
            node_text(tape, depth + 1, out, needed_json)?;
        }
        _ => return Err(NodeError::Tape(tape.error())),
    }
    Ok(())
}
