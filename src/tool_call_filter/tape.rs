//! The flat encoding a message history crosses the Node-API boundary in.
//!
//! One `Int32Array` describes a whole history; strings stay in JavaScript and
//! are referred to by index. Grammar (every symbol is one `i32`):
//!
//! ```text
//! history  := count message*
//! message  := 0                                  nothing to filter: string content or no parts
//!           | 1 top_text part_count part* legacy
//! top_text := 0 absent or falsy | 1 text | 2 blank string | 3 truthy non-string
//! part     := 0                                  not a tool invocation
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
//! legacy   := 0 not an array | 1 count entry*
//! entry    := call_id excluded | -3 0            -3: the entry is null or undefined
//! ```
//!
//! Object `flags`: bit 0 `type === 'text'`, bit 1 `'value' in object` (then the
//! value's node follows), bit 2 reserved. `json_index` is -1 where
//! `JSON.stringify` threw or gave `undefined`; `text_index` is -1 where `text`
//! is not a string.
//!
//! An array's JSON is its text only when none of its items has any, which is
//! rare, so the binding leaves it uncomputed (-2). A reader that finds it
//! needs one reports the tape positions of those slots ([`Tape::needed_json`]);
//! the binding fills them in and asks again.

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
    Tool {
        state: ToolState,
        excluded: bool,
        call_id: Option<i32>,
        /// The model-facing text of `providerMetadata.mastra.modelOutput` as
        /// string indexes to join with newlines ([`History::strings`]); `None`
        /// when there is none or it is empty.
        model_output: Option<Slice>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyInvocation {
    Null,
    Entry { call_id: Option<i32>, excluded: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// String content, or content without parts: never touched.
    Untouched,
    WithParts {
        top_level_text: TopLevelText,
        /// Its parts ([`History::parts`]).
        parts: Slice,
        /// `content.toolInvocations` when it is an array ([`History::legacy`]).
        legacy: Option<Slice>,
    },
}

/// A parsed history. Parts, legacy entries and model-output strings of all
/// messages live in three flat lists, so reading a tape allocates a handful of
/// vectors however many messages it holds.
#[derive(Debug, Default)]
pub struct History {
    pub messages: Vec<Message>,
    parts: Vec<Part>,
    legacy: Vec<LegacyInvocation>,
    strings: Vec<i32>,
}

impl History {
    pub fn parts(&self, slice: Slice) -> &[Part] {
        &self.parts[slice.range()]
    }

    pub fn legacy(&self, slice: Slice) -> &[LegacyInvocation] {
        &self.legacy[slice.range()]
    }

    pub fn strings(&self, slice: Slice) -> &[i32] {
        &self.strings[slice.range()]
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
    needed_json: Vec<usize>,
}

/// Model outputs nested deeper than this are refused (the binding refuses them
/// first, with a clearer message), so recursion here stays bounded.
pub const MAX_NODE_DEPTH: usize = 512;

impl<'a> Tape<'a> {
    pub fn new(data: &'a [i32]) -> Self {
        Tape { data, position: 0, needed_json: Vec::new() }
    }

    /// Positions of array JSON slots that were needed but not computed.
    pub fn needed_json(&self) -> &[usize] {
        &self.needed_json
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
        usize::try_from(value)
            .ok()
            .filter(|&n| n <= self.data.len() - self.position)
            .ok_or(TapeError { position: at })
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
                    let part = self.part(history)?;
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
                            history.legacy.push(if id == -3 {
                                LegacyInvocation::Null
                            } else {
                                LegacyInvocation::Entry { call_id: (id >= 0).then_some(id), excluded }
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

    fn part(&mut self, history: &mut History) -> Result<Part, TapeError> {
        match self.next()? {
            0 => Ok(Part::Other),
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
                        let start = history.strings.len();
                        self.node_text(0, &mut history.strings)?;
                        let len = history.strings.len() - start;
                        (len > 0).then_some(Slice { start: start as u32, len: len as u32 })
                    }
                    _ => return Err(self.error()),
                };
                Ok(Part::Tool { state, excluded, call_id, model_output })
            }
            _ => Err(self.error()),
        }
    }

    /// Reads one model-output node and appends the strings its model-facing
    /// text is made of (joined by newlines). Nothing is appended when the text
    /// would be empty, `null` or `undefined`; every appended string is non-empty.
    ///
    /// This is the reference's `modelOutputToText`: strings as they are,
    /// primitives through `String()`, arrays as their non-empty parts (or their
    /// JSON when none), `{ type: 'text' }` by its string `value` or `text`, then
    /// any `value`, then a string `text`, then the object's JSON.
    fn node_text(&mut self, depth: usize, out: &mut Vec<i32>) -> Result<(), TapeError> {
        if depth > MAX_NODE_DEPTH {
            return Err(TapeError { position: self.position });
        }
        match self.next()? {
            0 => {}
            1 => {
                let index = self.next()?;
                if self.next()? != 0 {
                    out.push(index);
                }
            }
            4 => out.push(self.next()?),
            2 => {
                let json_slot = self.position;
                let json = self.next()?;
                let children = self.count()?;
                let before = out.len();
                for _ in 0..children {
                    self.node_text(depth + 1, out)?;
                }
                if out.len() == before {
                    match json {
                        -2 => self.needed_json.push(json_slot),
                        json if json >= 0 => out.push(json),
                        _ => {}
                    }
                }
            }
            3 => {
                let flags = self.next()?;
                let json = self.next()?;
                let text = self.next()?;
                let text_non_empty = self.next()? != 0;
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
                // first; the value node has to be read either way.
                let value_is_string = self.data.get(self.position) == Some(&1);
                if is_text_type && value_is_string {
                    return self.node_text(depth + 1, out);
                }
                if is_text_type && text >= 0 {
                    self.skip_node(depth + 1)?;
                    push_text(out);
                    return Ok(());
                }
                self.node_text(depth + 1, out)?;
            }
            _ => return Err(self.error()),
        }
        Ok(())
    }

    fn skip_node(&mut self, depth: usize) -> Result<(), TapeError> {
        let mut ignored = Vec::new();
        self.node_text(depth, &mut ignored)
    }
}
