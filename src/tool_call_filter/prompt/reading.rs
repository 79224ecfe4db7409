//! The prompt tape read: its messages and parts decoded as the grammar of
//! the module's overview lays them out, checked once ([`Prompt::read`]) and
//! decoded again on each pass, never copied out.

use super::super::tape::{Reader, TapeError};
use super::code;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PartKind {
    Other,
    Call,
    Result,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Part {
    pub(super) kind: PartKind,
    /// The part's call id as a slot of [`Slots`](super::Slots): `id + 1`, or
    /// [`NO_ID_SLOT`] for a falsy id and for parts that are not tool parts.
    pub(super) slot: usize,
    pub(super) excluded: bool,
    pub(super) own_output: bool,
}

/// The slot of a falsy call id. It comes first and is always preserved: the
/// reference never removes such parts. Looking up every part, rather than
/// asking first whether it has an id, spares a branch.
pub(super) const NO_ID_SLOT: usize = 0;

impl Part {
    /// A part of a tape [`Prompt::read`] accepted.
    #[inline]
    pub(super) fn of(value: i32) -> Part {
        const KINDS: [PartKind; 4] = [PartKind::Other, PartKind::Call, PartKind::Result, PartKind::Other];
        Part {
            kind: KINDS[(value & code::KIND_MASK) as usize],
            slot: (value as u32 / code::CALL_ID_UNIT as u32) as usize,
            excluded: value & code::EXCLUDED != 0,
            own_output: value & code::OWN_OUTPUT != 0,
        }
    }

    /// Whether `value` follows the grammar of a part, given `id_count`, the
    /// ids interned before it, which it advances, and `new_ids`, 1 where an
    /// id may be the next new one (ids interned in prompt order) and 0 where
    /// the ids are a history table's. Branch-free: the kinds of a prompt's
    /// parts follow no pattern a predictor learns.
    #[inline]
    pub(super) fn check(value: i32, id_count: &mut usize, new_ids: usize) -> bool {
        // The flags each kind may carry; the fourth kind does not exist.
        const FLAGS: [i32; 4] = [0, code::EXCLUDED, code::EXCLUDED | code::OWN_OUTPUT, 0];
        let kind = (value & code::KIND_MASK) as usize;
        let flags = value & (code::CALL_ID_UNIT - 1) & !code::KIND_MASK;
        let field = (value as u32 / code::CALL_ID_UNIT as u32) as usize;
        let ok = (value >= 0)
            & (kind != code::KIND_MASK as usize)
            & (flags & !FLAGS[kind] == 0)
            & (kind != code::PART_OTHER as usize || field == 0)
            // Ids interned in prompt order: a new one is always the next.
            & (field <= *id_count + new_ids);
        *id_count = (*id_count).max(field);
        ok
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Content<'a> {
    /// System and user messages, which are never read.
    Pass,
    /// The message's parts, as the tape holds them.
    Parts(&'a [i32]),
    /// A string, which `for...of` reads as characters: never a tool part.
    Text { empty: bool },
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Message<'a> {
    pub(super) assistant: bool,
    pub(super) content: Content<'a>,
}

impl<'a> Message<'a> {
    #[inline]
    pub(super) fn parts(&self) -> impl Iterator<Item = Part> + 'a {
        let values: &'a [i32] = match self.content {
            Content::Parts(values) => values,
            _ => &[],
        };
        values.iter().map(|&value| Part::of(value))
    }
}

/// A prompt tape that follows the grammar. Nothing is copied out of it:
/// each pass decodes the messages and parts again, from a tape the binding
/// has just written and the CPU still holds in its caches. Right after a
/// full garbage collection nothing else is there, and every line of memory
/// a pass wrote for a later one to read would be a cache miss more.
pub(super) struct Prompt<'a> {
    pub(super) tape: &'a [i32],
    /// One more than the largest interned call id.
    pub(super) id_count: usize,
    /// Where on the tape the parts of each assistant message holding a tool
    /// call are: the steps `filterAfterToolSteps` counts (read only with it).
    pub(super) steps: Vec<std::ops::Range<usize>>,
    /// The first assistant message whose content is a string, where the
    /// reference's counting of steps calls `content.filter` and throws.
    pub(super) string_assistant: Option<usize>,
}

/// The messages of a [`Prompt`], decoded as they are met.
pub(super) struct Messages<'a> {
    tape: &'a [i32],
    at: usize,
    left: usize,
}

impl<'a> Iterator for Messages<'a> {
    type Item = Message<'a>;

    #[inline]
    fn next(&mut self) -> Option<Message<'a>> {
        self.left = self.left.checked_sub(1)?;
        let head = self.tape[self.at];
        self.at += 1;
        let content = match head & code::KIND_MASK {
            code::PARTS => {
                let count = self.tape[self.at] as usize;
                let parts = &self.tape[self.at + 1..self.at + 1 + count];
                self.at += 1 + count;
                Content::Parts(parts)
            }
            code::TEXT_CONTENT => Content::Text { empty: head & code::EMPTY != 0 },
            _ => Content::Pass,
        };
        Some(Message { assistant: head & code::ASSISTANT != 0, content })
    }
}

impl<'a> Prompt<'a> {
    /// Reads a tape whose ids are interned in prompt order, or, given
    /// `table_ids` (the history table's length), are that table's; with
    /// `WITH_STEPS`, notes where the steps are (a loop of its own without:
    /// the note's branch costs the other modes' loop a few percent).
    pub(super) fn read<const WITH_STEPS: bool>(
        tape: &'a [i32],
        table_ids: Option<usize>,
    ) -> Result<Prompt<'a>, TapeError> {
        let count = Reader::new(tape).count()?;
        let new_ids = usize::from(table_ids.is_none());
        // Room for a step a message: one allocation, never grown.
        let steps = Vec::with_capacity(if WITH_STEPS { count } else { 0 });
        let mut prompt = Prompt { tape, id_count: table_ids.unwrap_or(0), steps, string_assistant: None };
        // One loop over the messages with plain indexes: most messages hold
        // one or two parts, so what a message costs is its head's decoding.
        let mut at = 1;
        for index in 0..count {
            let head = *tape.get(at).ok_or(TapeError { position: at })?;
            let assistant = head & code::ASSISTANT != 0;
            match head & !code::ASSISTANT {
                code::PASS if !assistant => at += 1,
                code::PARTS => {
                    let first = at + 2;
                    let part_count = tape
                        .get(at + 1)
                        .and_then(|&n| usize::try_from(n).ok())
                        .filter(|&n| first.checked_add(n).is_some_and(|end| end <= tape.len()))
                        .ok_or(TapeError { position: at + 1 })?;
                    let values = &tape[first..first + part_count];
                    // Checked without a branch a part; a tape that breaks the
                    // grammar (never one the binding wrote) is read again for
                    // the error's position.
                    let mut valid = true;
                    let mut has_call = false;
                    let mut id_count = prompt.id_count;
                    for &value in values {
                        valid &= Part::check(value, &mut id_count, new_ids);
                        has_call |= value & code::KIND_MASK == code::TOOL_CALL;
                    }
                    if !valid {
                        let mut id_count = prompt.id_count;
                        let bad = values.iter().position(|&value| !Part::check(value, &mut id_count, new_ids));
                        return Err(TapeError { position: first + bad.unwrap_or(0) });
                    }
                    prompt.id_count = id_count;
                    if WITH_STEPS && assistant && has_call {
                        prompt.steps.push(first..first + part_count);
                    }
                    at = first + part_count;
                }
                content if content & !code::EMPTY == code::TEXT_CONTENT => {
                    if assistant && prompt.string_assistant.is_none() {
                        prompt.string_assistant = Some(index);
                    }
                    at += 1;
                }
                _ => return Err(TapeError { position: at }),
            }
        }
        if at != tape.len() {
            return Err(TapeError { position: at });
        }
        Ok(prompt)
    }

    pub(super) fn messages(&self) -> Messages<'a> {
        Messages { tape: self.tape, at: 1, left: self.tape[0] as usize }
    }
}
