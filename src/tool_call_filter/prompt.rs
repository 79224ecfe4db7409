//! The filter of Mastra 1.60 and later: `processLLMRequest` rewrites only
//! the provider prompt (`LanguageModelV2Prompt`) of one model call; the
//! message list and memory keep every tool call.
//!
//! Which calls go is decided by call id, as pairs: a call and its result go
//! together, so no dangling call or orphaned result is sent. Without
//! `filterAfterToolSteps` only calls from before the run go: the first prompt
//! of a request is its history, recorded in the processor's per-request
//! `state`, and every call that appears later belongs to the run and stays.
//! With it, the calls of the last N assistant messages holding tool calls
//! stay, history and run alike. A removed pair leaves, where the call was, a
//! text part with the result's model output when `preserveModelOutput` asks
//! for it; a message left with nothing is dropped.
//!
//! The binding walks the prompt once into a tape (codes in [`code`]), one
//! number a message head and one a part:
//!
//! ```text
//! prompt  := count message*
//! message := PASS                                   role 'system' or 'user': never read
//!          | PARTS [| ASSISTANT] part_count part*   any other role, content an array
//!          | TEXT_CONTENT [| ASSISTANT] [| EMPTY]   any other role, content a string
//! part    := PART_OTHER
//!          | TOOL_CALL [| EXCLUDED] + call_id
//!          | TOOL_RESULT [| EXCLUDED] [| OWN_OUTPUT] + call_id
//! call_id := 0                                      a falsy id
//!          | (id + 1) * CALL_ID_UNIT                ids interned in prompt order, from 0
//! ```
//!
//! `ASSISTANT` marks role 'assistant', `EMPTY` an empty string content.
//! `EXCLUDED` says the part's `toolName` is in the exclude list, and
//! `OWN_OUTPUT` that the result carries its own non-nullish
//! `providerOptions.mastra.modelOutput` (both left off where they decide
//! nothing). A part is one number because a prompt is mostly parts: the
//! binding writes, and the core reads, a quarter as many.
//! When results must be turned into text, the first answer names them
//! ([`Answer::NeedsOutputs`]) and the binding writes their `output`s as
//! [`super::tape`] nodes, one after another, into a second tape. What the
//! first answer was made from ([`Analysis`]) can answer the second too, so
//! the binding keeps it rather than have the prompt tape read again.

use super::tape::{model_output_text, NodeError, Reader, TapeError};
use super::{keeps_any_step, plan, recent_steps, Exclude, FilterError};
use crate::releases::PreservedResults;

/// The codes of the prompt tape.
pub mod code {
    /// The kind of a message, in the low bits of its head.
    pub const PASS: i32 = 0;
    pub const PARTS: i32 = 1;
    pub const TEXT_CONTENT: i32 = 2;
    /// Head flag: role 'assistant'.
    pub const ASSISTANT: i32 = 4;
    /// Head flag of `TEXT_CONTENT`: the string is empty.
    pub const EMPTY: i32 = 8;

    /// The kind of a part, in its low bits.
    pub const PART_OTHER: i32 = 0;
    pub const TOOL_CALL: i32 = 1;
    pub const TOOL_RESULT: i32 = 2;
    /// Part flag: the part's `toolName` is in the exclude list.
    pub const EXCLUDED: i32 = 4;
    /// Part flag of `TOOL_RESULT`: it carries its own model output.
    pub const OWN_OUTPUT: i32 = 8;

    /// The low bits of a head or part that hold its kind.
    pub const KIND_MASK: i32 = 3;
    /// A part holds its call id above its flags, as `(id + 1) * CALL_ID_UNIT`
    /// (0 for a falsy id).
    pub const CALL_ID_UNIT: i32 = 16;
    /// The largest call id a part can hold.
    pub const MAX_CALL_ID: i32 = i32::MAX / CALL_ID_UNIT - 1;
}

/// Where the filter records, in the processor's per-request `state`, the
/// call ids of the request's first prompt: its history.
pub const HISTORY_STATE_KEY: &str = "__toolCallFilterHistoryToolCallIds";

/// The constructor options, converted once at the edge.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub preserve_model_output: bool,
    /// `filterAfterToolSteps` as JavaScript gave it; `None` keeps the run's calls.
    pub filter_after_tool_steps: Option<f64>,
    /// The host release's rule for which removed results become text.
    pub preserved_results: PreservedResults,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PartKind {
    Other,
    Call,
    Result,
}

#[derive(Clone, Copy, Debug)]
struct Part {
    kind: PartKind,
    /// The part's call id as a slot of the tables by call id: `id + 1`, or
    /// [`NO_ID_SLOT`] for a falsy id and for parts that are not tool parts.
    slot: u32,
    excluded: bool,
    own_output: bool,
}

/// The slot of a falsy call id. Tables by call id have it first, set so
/// that its parts stay: the reference never removes them. Looking up every
/// part, rather than asking first whether it has an id, spares a branch.
const NO_ID_SLOT: usize = 0;

impl Part {
    /// Decodes a part of the tape, and whether it follows the grammar given
    /// `id_count`, the ids interned before it, which it advances. Branch-free:
    /// the kinds of a prompt's parts follow no pattern a predictor learns.
    #[inline]
    fn decode(value: i32, id_count: &mut usize) -> (Part, bool) {
        const KINDS: [PartKind; 4] = [PartKind::Other, PartKind::Call, PartKind::Result, PartKind::Other];
        // The flags each kind may carry; the fourth kind does not exist.
        const FLAGS: [i32; 4] = [0, code::EXCLUDED, code::EXCLUDED | code::OWN_OUTPUT, 0];
        let kind = (value & code::KIND_MASK) as usize;
        let flags = value & (code::CALL_ID_UNIT - 1) & !code::KIND_MASK;
        let field = (value as u32 / code::CALL_ID_UNIT as u32) as usize;
        let ok = (value >= 0)
            & (kind != code::KIND_MASK as usize)
            & (flags & !FLAGS[kind] == 0)
            & (kind != code::PART_OTHER as usize || field == 0)
            // Ids are interned in prompt order, so a new one is always the next.
            & (field <= *id_count + 1);
        *id_count = (*id_count).max(field);
        let part = Part {
            kind: KINDS[kind],
            slot: field as u32,
            excluded: value & code::EXCLUDED != 0,
            own_output: value & code::OWN_OUTPUT != 0,
        };
        (part, ok)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Content {
    /// System and user messages, which are never read.
    Pass,
    /// Parts `start..end` of [`Prompt::parts`].
    Parts { start: usize, end: usize },
    /// A string, which `for...of` reads as characters: never a tool part.
    Text { empty: bool },
}

#[derive(Clone, Copy, Debug)]
struct Message {
    assistant: bool,
    /// Some part is a tool call: found while decoding, so that finding the
    /// steps reads no part of a message that is not one.
    has_call: bool,
    content: Content,
}

/// A parsed prompt tape.
struct Prompt {
    messages: Vec<Message>,
    parts: Vec<Part>,
    /// One more than the largest interned call id.
    id_count: usize,
}

/// A table by call id slot ([`Part::slot`]), every id `value`, the falsy one `no_id`.
fn slot_table(id_count: usize, value: bool, no_id: bool) -> Vec<bool> {
    let mut table = vec![value; id_count + 1];
    table[NO_ID_SLOT] = no_id;
    table
}

impl Prompt {
    fn read(tape: &[i32]) -> Result<Prompt, TapeError> {
        let mut reader = Reader::new(tape);
        let count = reader.count()?;
        // A part takes at least one number of the tape: room for them all
        // up front spares the growth of a vector pushed to hundreds of times.
        let parts = Vec::with_capacity(tape.len().saturating_sub(count + 1));
        let mut prompt = Prompt { messages: Vec::with_capacity(count), parts, id_count: 0 };
        for _ in 0..count {
            let head = reader.read()?;
            let assistant = head & code::ASSISTANT != 0;
            let message = match (head & code::KIND_MASK, head & !(code::KIND_MASK | code::ASSISTANT)) {
                (code::PASS, 0) if !assistant => Message { assistant, has_call: false, content: Content::Pass },
                (code::PARTS, 0) => {
                    let part_count = reader.count()?;
                    let at = reader.position();
                    let values = &tape[at..at + part_count];
                    let start = prompt.parts.len();
                    // Decoded without a branch a part; a tape that breaks the
                    // grammar (never one the binding wrote) is read again for
                    // the error's position.
                    let mut valid = true;
                    let mut has_call = false;
                    let mut id_count = prompt.id_count;
                    prompt.parts.extend(values.iter().map(|&value| {
                        let (part, ok) = Part::decode(value, &mut id_count);
                        valid &= ok;
                        has_call |= part.kind == PartKind::Call;
                        part
                    }));
                    if !valid {
                        prompt.parts.truncate(start);
                        for _ in 0..part_count {
                            let part = prompt.read_part(&mut reader)?;
                            prompt.parts.push(part);
                        }
                        // The two readers agree on the grammar; should they not, still an error.
                        return Err(TapeError { position: at });
                    }
                    prompt.id_count = id_count;
                    reader = Reader::at(tape, at + part_count);
                    Message { assistant, has_call, content: Content::Parts { start, end: prompt.parts.len() } }
                }
                (code::TEXT_CONTENT, flags @ (0 | code::EMPTY)) => {
                    Message { assistant, has_call: false, content: Content::Text { empty: flags != 0 } }
                }
                _ => return Err(reader.error()),
            };
            prompt.messages.push(message);
        }
        reader.finish()?;
        Ok(prompt)
    }

    fn read_part(&mut self, reader: &mut Reader<'_>) -> Result<Part, TapeError> {
        let value = reader.read()?;
        let (kind, flags) = match value & code::KIND_MASK {
            code::PART_OTHER if value == code::PART_OTHER => {
                return Ok(Part { kind: PartKind::Other, slot: NO_ID_SLOT as u32, excluded: false, own_output: false })
            }
            code::TOOL_CALL => (PartKind::Call, code::EXCLUDED),
            code::TOOL_RESULT => (PartKind::Result, code::EXCLUDED | code::OWN_OUTPUT),
            _ => return Err(reader.error()),
        };
        // Negative values and flags the kind does not have are refused.
        let unknown = (code::CALL_ID_UNIT - 1) & !(code::KIND_MASK | flags);
        if value < 0 || value & unknown != 0 {
            return Err(reader.error());
        }
        let slot = (value / code::CALL_ID_UNIT) as usize;
        // Ids are interned in prompt order, so a new one is always the next.
        if slot > self.id_count + 1 {
            return Err(reader.error());
        }
        self.id_count = self.id_count.max(slot);
        let excluded = value & code::EXCLUDED != 0;
        let own_output = value & code::OWN_OUTPUT != 0;
        Ok(Part { kind, slot: slot as u32, excluded, own_output })
    }

    fn parts(&self, message: &Message) -> &[Part] {
        match message.content {
            Content::Parts { start, end } => &self.parts[start..end],
            _ => &[],
        }
    }
}

/// What the filter made of a prompt.
#[derive(Debug, PartialEq, Eq)]
pub struct Decision {
    /// The request's state holds no history yet: the binding records this
    /// prompt's call ids there (every interned id, in order), as the
    /// reference does on a request's first model call.
    pub record_history: bool,
    pub answer: Answer,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// Nothing to remove: the model gets the prompt as it is.
    Unchanged,
    /// The text of these results is needed, as `(message, part)` positions:
    /// ask again with their outputs.
    NeedsOutputs(Vec<(u32, u32)>),
    /// These slots of the outputs tape need their JSON: fill them in and ask again.
    NeedsJson(Vec<usize>),
    /// The new prompt: per message [`plan::KEEP`], [`plan::DROP`], or
    /// [`plan::REWRITE`] and one action per part, where
    /// [`plan::PART_RESULT_TEXT`] is followed by the result's message and
    /// part index, the string count and the string indexes.
    Changed(Vec<i32>),
}

/// Filters one prompt. `history` is, for each interned call id, whether the
/// request's recorded history holds it, or `None` when nothing is recorded
/// yet; `outputs` is the tape of result outputs asked for by
/// [`Answer::NeedsOutputs`].
pub fn filter(
    options: &Options,
    exclude: Exclude,
    tape: &[i32],
    history: Option<&[i32]>,
    outputs: Option<&[i32]>,
) -> Result<Decision, FilterError> {
    analyse(options, exclude, tape, history)?.answer(options, outputs)
}

/// A prompt read, with the calls that stay whatever the exclude list says:
/// everything [`Analysis::answer`] decides from besides the outputs. An
/// answer that asks for outputs can be given again from the same analysis
/// once they come, without reading the prompt again.
pub struct Analysis {
    prompt: Prompt,
    exclude: Exclude,
    /// By call id slot: the call stays whatever the exclude list says.
    preserved: Vec<bool>,
    record_history: bool,
}

/// Reads a prompt tape and decides which calls are preserved (see [`filter`]).
pub fn analyse(
    options: &Options,
    exclude: Exclude,
    tape: &[i32],
    history: Option<&[i32]>,
) -> Result<Analysis, FilterError> {
    let prompt = Prompt::read(tape)?;
    if exclude == Exclude::Nothing {
        // An empty exclude list filters nothing and records nothing.
        return Ok(Analysis { prompt, exclude, preserved: Vec::new(), record_history: false });
    }
    let mut record_history = false;
    let preserved = match options.filter_after_tool_steps {
        None => match history {
            None => {
                record_history = true;
                slot_table(prompt.id_count, false, true)
            }
            Some(known) => {
                if known.len() != prompt.id_count {
                    return Err(TapeError { position: 0 }.into());
                }
                let mut preserved = slot_table(prompt.id_count, false, true);
                for (slot, &held) in preserved[NO_ID_SLOT + 1..].iter_mut().zip(known) {
                    *slot = held == 0;
                }
                preserved
            }
        },
        Some(keep_steps) => recent_step_ids(&prompt, keep_steps)?,
    };
    Ok(Analysis { prompt, exclude, preserved, record_history })
}

impl Analysis {
    /// The answer for this prompt, given the outputs an earlier answer asked
    /// for, if any. `options` are those the analysis was made with.
    pub fn answer(&self, options: &Options, outputs: Option<&[i32]>) -> Result<Decision, FilterError> {
        if self.exclude == Exclude::Nothing {
            return Ok(Decision { record_history: false, answer: Answer::Unchanged });
        }
        let filter = Filter { options, exclude: self.exclude, prompt: &self.prompt, preserved: &self.preserved };
        Ok(Decision { record_history: self.record_history, answer: filter.answer(outputs)? })
    }
}

/// The ids of the calls in the last `keep_steps` assistant messages that
/// hold tool calls, as a table by call id slot.
fn recent_step_ids(prompt: &Prompt, keep_steps: f64) -> Result<Vec<bool>, FilterError> {
    let mut preserved = slot_table(prompt.id_count, false, true);
    if !keeps_any_step(keep_steps) {
        // A count of zero keeps nothing, and looks at nothing.
        return Ok(preserved);
    }
    let mut steps: Vec<&[Part]> = Vec::new();
    for (index, message) in prompt.messages.iter().enumerate() {
        if !message.assistant {
            continue;
        }
        match message.content {
            // `content.filter` is not a function of a string.
            Content::Text { .. } => return Err(FilterError::ContentNotAnArray { message: index }),
            Content::Parts { .. } => {
                if message.has_call {
                    steps.push(prompt.parts(message));
                }
            }
            Content::Pass => {}
        }
    }
    for parts in recent_steps(&steps, keep_steps) {
        for part in parts.iter().filter(|part| part.kind == PartKind::Call) {
            preserved[part.slot as usize] = true;
        }
    }
    Ok(preserved)
}

struct Filter<'a> {
    options: &'a Options,
    exclude: Exclude,
    prompt: &'a Prompt,
    /// By call id slot: the call stays whatever the exclude list says.
    preserved: &'a [bool],
}

/// The text each removed pair leaves, if any, by call id slot. The strings of
/// every text share one vector, so a prompt's texts take two allocations
/// however many there are.
#[derive(Default)]
struct TextsById {
    by_id: Vec<Option<ResultText>>,
    strings: Vec<i32>,
}

impl TextsById {
    /// Whether no removed pair leaves a text.
    fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// The text of the call in `slot`, with its strings.
    fn get(&self, slot: usize) -> Option<(&ResultText, &[i32])> {
        let text = self.by_id.get(slot)?.as_ref()?;
        Some((text, &self.strings[text.strings.clone()]))
    }
}

/// The text a removed pair leaves: the result it comes from and where its
/// strings are in [`TextsById::strings`].
struct ResultText {
    message: u32,
    part: u32,
    strings: std::ops::Range<usize>,
}

impl Filter<'_> {
    fn answer(&self, outputs: Option<&[i32]>) -> Result<Answer, FilterError> {
        let prompt = self.prompt;
        // By slot, without a branch a part: parts that are not tool parts,
        // and those of falsy ids, are in the slot that is always preserved.
        let mut excluded = slot_table(prompt.id_count, false, false);
        let every_tool = self.exclude == Exclude::All;
        let mut any_excluded = false;
        for part in &prompt.parts {
            let slot = part.slot as usize;
            let goes = !self.preserved[slot] & (every_tool | part.excluded);
            excluded[slot] |= goes;
            any_excluded |= goes;
        }
        if !any_excluded {
            return Ok(Answer::Unchanged);
        }

        let texts = if self.options.preserve_model_output {
            match self.result_texts(&excluded, outputs)? {
                Ok(texts) => texts,
                Err(asked) => return Ok(asked),
            }
        } else {
            TextsById::default()
        };

        // Only where a text may be left does it matter which ids have a call.
        let mut called = slot_table(if texts.is_empty() { 0 } else { prompt.id_count }, false, false);
        if !texts.is_empty() {
            for message in prompt.messages.iter().filter(|m| m.assistant) {
                for part in prompt.parts(message) {
                    called[part.slot as usize] |= part.kind == PartKind::Call;
                }
            }
        }

        let mut out = Vec::with_capacity(prompt.messages.len() + prompt.parts.len());
        let mut changed = false;
        for message in &prompt.messages {
            let Content::Parts { .. } = message.content else {
                // A string is read as characters: the message keeps them all
                // unless it is empty, and an empty one goes once anything changed.
                out.push(if message.content == (Content::Text { empty: true }) { plan::DROP } else { plan::KEEP });
                continue;
            };
            let header = out.len();
            out.push(plan::REWRITE);
            let mut kept = 0;
            let mut rewritten = false;
            for part in prompt.parts(message) {
                let slot = part.slot as usize;
                let removed = excluded[slot];
                rewritten |= removed;
                if texts.is_empty() {
                    // Nothing is left in a removed part's place: decided without a branch.
                    out.push(if removed { plan::PART_DROP } else { plan::PART_KEEP });
                    kept += usize::from(!removed);
                    continue;
                }
                if !removed {
                    out.push(plan::PART_KEEP);
                    kept += 1;
                    continue;
                }
                // The text goes where the call was, so roles stay valid; a
                // provider-executed result with no call leaves it in place.
                let emits_text = part.kind == PartKind::Call || (message.assistant && !called[slot]);
                match texts.get(slot).filter(|_| emits_text) {
                    Some((text, strings)) => {
                        out.extend([plan::PART_RESULT_TEXT, text.message as i32, text.part as i32]);
                        out.push(strings.len() as i32);
                        out.extend_from_slice(strings);
                        kept += 1;
                    }
                    None => out.push(plan::PART_DROP),
                }
            }
            changed |= rewritten;
            out.truncate(if kept == 0 || !rewritten { header } else { out.len() });
            if kept == 0 {
                out.push(plan::DROP);
            } else if !rewritten {
                out.push(plan::KEEP);
            }
        }
        Ok(if changed { Answer::Changed(out) } else { Answer::Unchanged })
    }

    /// The text each removed pair leaves, by call id: that of the last
    /// removed result of the id whose output has any. `Err` carries what
    /// the binding must supply first.
    fn result_texts(
        &self,
        excluded: &[bool],
        outputs: Option<&[i32]>,
    ) -> Result<Result<TextsById, Answer>, FilterError> {
        let every = self.options.preserved_results == PreservedResults::Every;
        let mut wanted = Vec::with_capacity(self.prompt.parts.len());
        for (m, message) in self.prompt.messages.iter().enumerate() {
            for (p, part) in self.prompt.parts(message).iter().enumerate() {
                let removed = part.kind == PartKind::Result && excluded[part.slot as usize];
                if removed && (every || part.own_output) {
                    wanted.push((m as u32, p as u32, part.slot));
                }
            }
        }
        if wanted.is_empty() {
            return Ok(Ok(TextsById::default()));
        }
        let Some(outputs) = outputs else {
            return Ok(Err(Answer::NeedsOutputs(wanted.iter().map(|&(m, p, _)| (m, p)).collect())));
        };

        let mut texts = TextsById { by_id: Vec::new(), strings: Vec::with_capacity(outputs.len()) };
        texts.by_id.resize_with(self.prompt.id_count + 1, || None);
        let mut needed_json = Vec::new();
        let mut reader = Reader::new(outputs);
        for (message, part, slot) in wanted {
            let start = reader.position();
            let first = texts.strings.len();
            model_output_text(outputs, start, &mut texts.strings, &mut needed_json).map_err(|error| match error {
                NodeError::Tape(error) => FilterError::Tape(error),
                NodeError::TooDeep => FilterError::ModelOutputTooDeep { message: message as usize },
            })?;
            reader.skip_node(0)?;
            if texts.strings.len() > first {
                texts.by_id[slot as usize] = Some(ResultText { message, part, strings: first..texts.strings.len() });
            }
        }
        reader.finish()?;
        if !needed_json.is_empty() {
            return Ok(Err(Answer::NeedsJson(needed_json)));
        }
        Ok(Ok(texts))
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
