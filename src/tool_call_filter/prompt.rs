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
//!          | (id + 1) * CALL_ID_UNIT                ids interned in prompt order, from 0,
//!                                                   or, with a history table, below its length
//! ```
//!
//! With a history table the binding may start from the ids of the history it
//! recorded, in their recorded order, before it walks the prompt: then an id
//! is any of the table's, whatever the order the prompt holds them in.
//!
//! `ASSISTANT` marks role 'assistant', `EMPTY` an empty string content.
//! `EXCLUDED` says the part's `toolName` is in the exclude list, and
//! `OWN_OUTPUT` that the result carries its own non-nullish
//! `providerOptions.mastra.modelOutput` (both left off where they decide
//! nothing). The reference reads `providerOptions` only of the results
//! whose call id goes: where that is known only here (an exclude list, or
//! steps kept), the binding marks every result that may go `OWN_OUTPUT`
//! unread, and, asked for one's output, reads its `providerOptions` then and
//! writes `nothing` (no text) for one without its own model output. A part is one number because a prompt is mostly parts: the
//! binding writes, and the core reads, a quarter as many.
//! When results must be turned into text, the first answer names them
//! ([`Answer::NeedsOutputs`]) and the binding writes their `output`s as
//! [`super::tape`] nodes, one after another, into a second tape, and asks
//! again with both. Or the binding writes, with the first round, the outputs
//! of every `OWN_OUTPUT` result in prompt order ([`input::OUTPUTS_AHEAD`]):
//! excluding every tool under the host rule of 1.71, those are nearly all
//! the results that go, and one round is saved; what the core needs and
//! was not given is asked for as before. Nothing is kept between the two: the prompt tape is read
//! again, which costs less than a call's keeping of what it read (a
//! thread-local slot, and memory of its own to write and read back).

use super::tape::{model_output_text, JsonAsks, NodeError, Reader, TapeError};
use super::{keeps_any_step, plan, recent_steps, Exclude, FilterError};
use crate::releases::PreservedResults;

/// The codes of the prompt tape (declared in the protocol).
pub use crate::protocol::tool_call_filter::prompt as code;
/// Where the filter records, in the processor's per-request `state`, the
/// call ids of the request's first prompt: its history.
pub use crate::protocol::tool_call_filter::state_keys::HISTORY as HISTORY_STATE_KEY;

/// The binding's input for one round, in one `Int32Array` (its layout is
/// declared in the protocol): a head of [`input::HEAD`] numbers, then the
/// prompt tape, the history table and the outputs tape.
pub use crate::protocol::tool_call_filter::prompt_input as input;

/// The layout of the binding's answer for a round ([`Input::answer_into`]).
pub use crate::protocol::tool_call_filter::prompt_answer as answer;

/// One round's input, read from the binding's buffer (see [`input`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Input<'a> {
    pub preserve_model_output: bool,
    pub preserved_results: PreservedResults,
    pub exclude: Exclude,
    pub tape: &'a [i32],
    pub history: Option<&'a [i32]>,
    pub outputs: Option<&'a [i32]>,
    /// Whether `outputs` are those of every `OWN_OUTPUT` result ([`input::OUTPUTS_AHEAD`]).
    pub outputs_ahead: bool,
}

impl<'a> Input<'a> {
    /// Reads a buffer whose head accounts for the parts that follow it.
    pub fn read(buffer: &'a [i32]) -> Result<Input<'a>, TapeError> {
        let head = buffer.get(..input::HEAD).ok_or(TapeError { position: 0 })?;
        let flags = head[input::FLAGS];
        if flags & !(input::PRESERVE_MODEL_OUTPUT | input::EVERY_RESULT | input::OUTPUTS_AHEAD) != 0 {
            return Err(TapeError { position: input::FLAGS });
        }
        let exclude = match head[input::EXCLUDE_LENGTH] {
            input::ABSENT => None,
            length => Some(u32::try_from(length).map_err(|_| TapeError { position: input::EXCLUDE_LENGTH })?),
        };
        let mut rest = &buffer[input::HEAD..];
        // Each part as long as its length says, or absent.
        let mut take = |at: usize| -> Result<Option<&'a [i32]>, TapeError> {
            let length = head[at];
            if length == input::ABSENT {
                return Ok(None);
            }
            let length = usize::try_from(length).ok().filter(|&n| n <= rest.len()).ok_or(TapeError { position: at })?;
            let (part, tail) = rest.split_at(length);
            rest = tail;
            Ok(Some(part))
        };
        let tape = take(input::TAPE_LENGTH)?.ok_or(TapeError { position: input::TAPE_LENGTH })?;
        let history = take(input::HISTORY_LENGTH)?;
        let outputs = take(input::OUTPUTS_LENGTH)?;
        Ok(Input {
            preserve_model_output: flags & input::PRESERVE_MODEL_OUTPUT != 0,
            preserved_results: if flags & input::EVERY_RESULT != 0 {
                PreservedResults::Every
            } else {
                PreservedResults::WithOwnModelOutput
            },
            exclude: Exclude::for_list(exclude),
            tape,
            history,
            outputs,
            outputs_ahead: flags & input::OUTPUTS_AHEAD != 0,
        })
    }

    /// The options, with `filterAfterToolSteps` as the processor reads it.
    pub fn options(&self, filter_after_tool_steps: Option<f64>) -> Options {
        Options {
            preserve_model_output: self.preserve_model_output,
            filter_after_tool_steps,
            preserved_results: self.preserved_results,
        }
    }

    /// Filters the round into `out` as the protocol's `prompt_answer` lays
    /// the binding's answer out: whether to record the history, the kind of
    /// answer, then the plan (written in place) or what to ask for.
    pub fn answer_into<S: PlanSink>(
        &self,
        filter_after_tool_steps: Option<f64>,
        out: &mut S,
    ) -> Result<(), FilterError> {
        let start = out.len();
        out.extend_from_slice(&[0; answer::HEAD]);
        let options = self.options(filter_after_tool_steps);
        let Decision { record_history, answer: outcome } =
            filter_into(&options, self.exclude, self.tape, self.history, self.outputs, self.outputs_ahead, &mut *out)?;
        let kind = match outcome {
            Answer::Changed(_) => answer::CHANGED,
            Answer::Unchanged => answer::UNCHANGED,
            Answer::NeedsOutputs(parts) => {
                out.truncate(start + answer::HEAD);
                out.push(parts.len() as i32);
                for (message, part) in parts {
                    out.extend_from_slice(&[message as i32, part as i32]);
                }
                answer::NEEDS_OUTPUTS
            }
            Answer::NeedsJson(asks) => {
                out.truncate(start + answer::HEAD);
                out.push(asks.len() as i32);
                for ask in &asks.0 {
                    out.extend_from_slice(&ask.encode());
                }
                answer::NEEDS_JSON
            }
        };
        out.set(start + answer::RECORD_HISTORY, i32::from(record_history));
        out.set(start + answer::KIND, kind);
        Ok(())
    }
}

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
    /// The part's call id as a slot of [`Slots`]: `id + 1`, or
    /// [`NO_ID_SLOT`] for a falsy id and for parts that are not tool parts.
    slot: usize,
    excluded: bool,
    own_output: bool,
}

/// The slot of a falsy call id. It comes first and is always preserved: the
/// reference never removes such parts. Looking up every part, rather than
/// asking first whether it has an id, spares a branch.
const NO_ID_SLOT: usize = 0;

impl Part {
    /// A part of a tape [`Prompt::read`] accepted.
    #[inline]
    fn of(value: i32) -> Part {
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
    fn check(value: i32, id_count: &mut usize, new_ids: usize) -> bool {
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
enum Content<'a> {
    /// System and user messages, which are never read.
    Pass,
    /// The message's parts, as the tape holds them.
    Parts(&'a [i32]),
    /// A string, which `for...of` reads as characters: never a tool part.
    Text { empty: bool },
}

#[derive(Clone, Copy, Debug)]
struct Message<'a> {
    assistant: bool,
    content: Content<'a>,
}

impl<'a> Message<'a> {
    #[inline]
    fn parts(&self) -> impl Iterator<Item = Part> + 'a {
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
struct Prompt<'a> {
    tape: &'a [i32],
    /// One more than the largest interned call id.
    id_count: usize,
    /// Where on the tape the parts of each assistant message holding a tool
    /// call are: the steps `filterAfterToolSteps` counts (read only with it).
    steps: Vec<std::ops::Range<usize>>,
    /// The first assistant message whose content is a string, where the
    /// reference's counting of steps calls `content.filter` and throws.
    string_assistant: Option<usize>,
}

/// The messages of a [`Prompt`], decoded as they are met.
struct Messages<'a> {
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
    fn read<const WITH_STEPS: bool>(tape: &'a [i32], table_ids: Option<usize>) -> Result<Prompt<'a>, TapeError> {
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

    fn messages(&self) -> Messages<'a> {
        Messages { tape: self.tape, at: 1, left: self.tape[0] as usize }
    }
}

/// What the filter has found out about each call, by call id slot
/// ([`Part::slot`]): one byte of flags a call, in one table.
struct Slots(Vec<u8>);

impl Slots {
    /// The call stays whatever the exclude list says.
    const PRESERVED: u8 = 1;
    /// The call and its results go.
    const REMOVED: u8 = 2;
    /// An assistant message holds the call.
    const CALLED: u8 = 4;

    /// Nothing known yet but that the falsy id's parts stay.
    fn new(id_count: usize) -> Slots {
        let mut flags = vec![0; id_count + 1];
        flags[NO_ID_SLOT] = Slots::PRESERVED;
        Slots(flags)
    }

    fn has(&self, slot: usize, flag: u8) -> bool {
        self.0[slot] & flag != 0
    }
}

/// What the filter made of a prompt.
#[derive(Debug, PartialEq, Eq)]
pub struct Decision<P = Vec<i32>> {
    /// The request's state holds no history yet: the binding records this
    /// prompt's call ids there (every interned id, in order), as the
    /// reference does on a request's first model call.
    pub record_history: bool,
    pub answer: Answer<P>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Answer<P = Vec<i32>> {
    /// Nothing to remove: the model gets the prompt as it is.
    Unchanged,
    /// The text of these results is needed, as `(message, part)` positions:
    /// ask again with their outputs.
    NeedsOutputs(Vec<(u32, u32)>),
    /// The text of some outputs may need JSON: fill in the slots of the
    /// outputs tape these asks call for and ask again.
    NeedsJson(JsonAsks),
    /// The new prompt, written into the plan given: per message
    /// [`plan::KEEP`], [`plan::DROP`], or [`plan::REWRITE`], the number of
    /// parts it keeps and one action per part, where
    /// [`plan::PART_RESULT_TEXT`] is followed by the result's message and
    /// part index, the string count and the string indexes.
    Changed(P),
}

/// Where [`filter_into`] writes a plan: a vector, or the binding's answer
/// buffer, written in place.
pub trait PlanSink {
    /// How many numbers have been written.
    fn len(&self) -> usize;
    fn push(&mut self, value: i32);
    fn extend_from_slice(&mut self, values: &[i32]);
    /// Takes back what was written after the first `len` numbers.
    fn truncate(&mut self, len: usize);
    /// Sets a number already written.
    fn set(&mut self, at: usize, value: i32);

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PlanSink for Vec<i32> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn push(&mut self, value: i32) {
        Vec::push(self, value);
    }

    fn extend_from_slice(&mut self, values: &[i32]) {
        Vec::extend_from_slice(self, values);
    }

    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len);
    }

    fn set(&mut self, at: usize, value: i32) {
        self[at] = value;
    }
}

impl<P: PlanSink> PlanSink for &mut P {
    fn len(&self) -> usize {
        (**self).len()
    }

    fn push(&mut self, value: i32) {
        (**self).push(value);
    }

    fn extend_from_slice(&mut self, values: &[i32]) {
        (**self).extend_from_slice(values);
    }

    fn truncate(&mut self, len: usize) {
        (**self).truncate(len);
    }

    fn set(&mut self, at: usize, value: i32) {
        (**self).set(at, value);
    }
}

/// Filters one prompt. `history` is, for each interned call id, whether the
/// request's recorded history holds it, or `None` when nothing is recorded
/// yet; `outputs` is the tape of result outputs asked for by
/// [`Answer::NeedsOutputs`] (the prompt is read again with them, as it was).
pub fn filter(
    options: &Options,
    exclude: Exclude,
    tape: &[i32],
    history: Option<&[i32]>,
    outputs: Option<&[i32]>,
) -> Result<Decision, FilterError> {
    filter_into(options, exclude, tape, history, outputs, false, Vec::new())
}

/// [`filter`], writing a changed prompt's plan into `plan`, which the answer
/// hands back. With `outputs_ahead`, `outputs` holds the output of every
/// `OWN_OUTPUT` result in prompt order ([`input::OUTPUTS_AHEAD`]).
pub fn filter_into<P: PlanSink>(
    options: &Options,
    exclude: Exclude,
    tape: &[i32],
    history: Option<&[i32]>,
    outputs: Option<&[i32]>,
    outputs_ahead: bool,
    plan: P,
) -> Result<Decision<P>, FilterError> {
    // The history decides only without `filterAfterToolSteps`; then the ids are its table's.
    let history = history.filter(|_| options.filter_after_tool_steps.is_none());
    let table_ids = history.map(<[i32]>::len);
    let prompt = match options.filter_after_tool_steps {
        Some(_) => Prompt::read::<true>(tape, table_ids)?,
        None => Prompt::read::<false>(tape, table_ids)?,
    };
    if exclude == Exclude::Nothing {
        // An empty exclude list filters nothing and records nothing.
        return Ok(Decision { record_history: false, answer: Answer::Unchanged });
    }
    let mut slots = Slots::new(prompt.id_count);
    let mut record_history = false;
    match options.filter_after_tool_steps {
        None => match history {
            None => record_history = true,
            Some(known) => {
                for (flags, &held) in slots.0[NO_ID_SLOT + 1..].iter_mut().zip(known) {
                    *flags |= Slots::PRESERVED * u8::from(held == 0);
                }
            }
        },
        Some(keep_steps) => preserve_recent_steps(&prompt, &mut slots, keep_steps)?,
    }
    let filter = Filter { options, exclude, prompt: &prompt };
    let outputs = outputs.map(|tape| Outputs { tape, ahead: outputs_ahead });
    Ok(Decision { record_history, answer: filter.answer(&mut slots, outputs, plan)? })
}

/// Preserves the calls of the last `keep_steps` assistant messages that
/// hold tool calls.
fn preserve_recent_steps(prompt: &Prompt<'_>, slots: &mut Slots, keep_steps: f64) -> Result<(), FilterError> {
    if !keeps_any_step(keep_steps) {
        // A count of zero keeps nothing, and looks at nothing.
        return Ok(());
    }
    if let Some(message) = prompt.string_assistant {
        // `content.filter` is not a function of a string.
        return Err(FilterError::ContentNotAnArray { message });
    }
    for parts in recent_steps(&prompt.steps, keep_steps) {
        for part in prompt.tape[parts.clone()].iter().map(|&value| Part::of(value)) {
            slots.0[part.slot] |= Slots::PRESERVED * u8::from(part.kind == PartKind::Call);
        }
    }
    Ok(())
}

/// The outputs tape of a round, and whether it holds those of every
/// `OWN_OUTPUT` result ([`input::OUTPUTS_AHEAD`]) or those asked for.
#[derive(Clone, Copy)]
struct Outputs<'a> {
    tape: &'a [i32],
    ahead: bool,
}

struct Filter<'a> {
    options: &'a Options,
    exclude: Exclude,
    prompt: &'a Prompt<'a>,
}

/// How a message is planned: whole, in one number, or part by part.
enum MessagePlan<'a> {
    /// [`plan::KEEP`] or [`plan::DROP`].
    Whole(i32),
    /// Some of these parts go.
    PartByPart(&'a [i32]),
}

impl MessagePlan<'_> {
    fn of<'a>(message: &Message<'a>, slots: &Slots) -> MessagePlan<'a> {
        match message.content {
            // A string is read as characters: the message keeps them all
            // unless it is empty, and an empty one goes once anything changed.
            Content::Text { empty: true } => MessagePlan::Whole(plan::DROP),
            Content::Text { empty: false } | Content::Pass => MessagePlan::Whole(plan::KEEP),
            // Left with no parts, as the reference sees it, so it goes.
            Content::Parts([]) => MessagePlan::Whole(plan::DROP),
            Content::Parts(parts) if !parts.iter().any(|&value| slots.has(Part::of(value).slot, Slots::REMOVED)) => {
                MessagePlan::Whole(plan::KEEP)
            }
            Content::Parts(parts) => MessagePlan::PartByPart(parts),
        }
    }
}

/// Writes a prompt's plan: each message whole, in one number, or, where
/// some of its parts go, part by part by `write_parts`.
fn write_plan<P: PlanSink>(
    prompt: &Prompt<'_>,
    slots: &Slots,
    mut out: P,
    mut write_parts: impl FnMut(&Message<'_>, &[i32], &mut P),
) -> Answer<P> {
    let mut changed = false;
    for message in prompt.messages() {
        match MessagePlan::of(&message, slots) {
            MessagePlan::Whole(action) => out.push(action),
            MessagePlan::PartByPart(parts) => {
                changed = true;
                write_parts(&message, parts, &mut out);
            }
        }
    }
    if changed {
        Answer::Changed(out)
    } else {
        Answer::Unchanged
    }
}

/// The plan of a prompt where nothing is left in a removed part's place:
/// each message kept, dropped, or rewritten without its removed parts.
fn write_plan_without_texts<P: PlanSink>(prompt: &Prompt<'_>, slots: &Slots, out: P) -> Answer<P> {
    let removed = |value: i32| slots.has(Part::of(value).slot, Slots::REMOVED);
    write_plan(prompt, slots, out, |_, parts, out| {
        let kept = parts.iter().filter(|&&value| !removed(value)).count();
        if kept == 0 {
            out.push(plan::DROP);
            return;
        }
        out.extend_from_slice(&[plan::REWRITE, kept as i32]);
        for &value in parts {
            out.push(if removed(value) { plan::PART_DROP } else { plan::PART_KEEP });
        }
    })
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

    /// Reads the output at `at` of `outputs` as the text of the result at
    /// (`message`, `part`), whose call is in `slot`, where it has any.
    fn read(
        &mut self,
        outputs: &[i32],
        at: usize,
        needed_json: &mut JsonAsks,
        (message, part, slot): (u32, u32, usize),
    ) -> Result<(), FilterError> {
        let first = self.strings.len();
        model_output_text(outputs, at, &mut self.strings, needed_json).map_err(|error| match error {
            NodeError::Tape(error) => FilterError::Tape(error),
            NodeError::TooDeep => FilterError::ModelOutputTooDeep { message: message as usize },
        })?;
        if self.strings.len() > first {
            self.by_id[slot] = Some(ResultText { message, part, strings: first..self.strings.len() });
        }
        Ok(())
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
    fn answer<P: PlanSink>(
        &self,
        slots: &mut Slots,
        outputs: Option<Outputs<'_>>,
        out: P,
    ) -> Result<Answer<P>, FilterError> {
        let prompt = self.prompt;
        let mut any_removed = false;
        if self.exclude == Exclude::All {
            // Every call goes that is not preserved: decided by slot, with no
            // pass over the parts. Each interned id is some part's, and the
            // falsy id's slot is always preserved.
            for flags in &mut slots.0 {
                let goes = *flags & Slots::PRESERVED == 0;
                *flags |= Slots::REMOVED * u8::from(goes);
                any_removed |= goes;
            }
        } else {
            // A call goes when any of its parts names an excluded tool: by
            // slot, without a branch a part (parts that are not tool parts are
            // in the falsy id's slot, which is always preserved).
            for message in prompt.messages() {
                for part in message.parts() {
                    let goes = !slots.has(part.slot, Slots::PRESERVED) & part.excluded;
                    slots.0[part.slot] |= Slots::REMOVED * u8::from(goes);
                    any_removed |= goes;
                }
            }
        }
        if !any_removed {
            return Ok(Answer::Unchanged);
        }

        let texts = if self.options.preserve_model_output {
            match self.result_texts(slots, outputs)? {
                Ok(texts) => texts,
                Err(asked) => return Ok(asked),
            }
        } else {
            TextsById::default()
        };

        if texts.is_empty() {
            return Ok(write_plan_without_texts(prompt, slots, out));
        }
        // Removed parts may leave a text behind: a message some of whose
        // parts go is written part by part, and taken back if nothing stays.
        Ok(write_plan(prompt, slots, out, |message, parts, out| {
            let header = out.len();
            // The count of kept parts is set once they are all decided.
            out.extend_from_slice(&[plan::REWRITE, 0]);
            let mut kept = 0;
            for part in parts.iter().map(|&value| Part::of(value)) {
                if !slots.has(part.slot, Slots::REMOVED) {
                    out.push(plan::PART_KEEP);
                    kept += 1;
                    continue;
                }
                // The text goes where the call was, so roles stay valid; a
                // provider-executed result with no call leaves it in place.
                let emits_text =
                    part.kind == PartKind::Call || (message.assistant && !slots.has(part.slot, Slots::CALLED));
                match texts.get(part.slot).filter(|_| emits_text) {
                    Some((text, strings)) => {
                        out.extend_from_slice(&[plan::PART_RESULT_TEXT, text.message as i32, text.part as i32]);
                        out.push(strings.len() as i32);
                        out.extend_from_slice(strings);
                        kept += 1;
                    }
                    None => out.push(plan::PART_DROP),
                }
            }
            out.set(header + 1, kept);
            if kept == 0 {
                out.truncate(header);
                out.push(plan::DROP);
            }
        }))
    }

    /// The text each removed pair leaves, by call id: that of the last
    /// removed result of the id whose output has any. `Err` carries what
    /// the binding must supply first. Marks the ids that have a call in an
    /// assistant message on the way, which decides where a text goes.
    fn result_texts<P>(
        &self,
        slots: &mut Slots,
        outputs: Option<Outputs<'_>>,
    ) -> Result<Result<TextsById, Answer<P>>, FilterError> {
        let every = self.options.preserved_results == PreservedResults::Every;
        let outputs = match outputs {
            Some(Outputs { tape, ahead: true }) if !every => return self.result_texts_ahead(slots, tape),
            // Written ahead, they hold only `OWN_OUTPUT` results', where every
            // result is wanted: asked for, as when none were given (the
            // binding writes ahead only under the rule of 1.68 and later).
            Some(Outputs { ahead: true, .. }) => None,
            Some(Outputs { tape, ahead: false }) => Some(tape),
            None => None,
        };
        let mut wanted = Vec::new();
        for (m, message) in self.prompt.messages().enumerate() {
            for (p, part) in message.parts().enumerate() {
                let removed = part.kind == PartKind::Result && slots.has(part.slot, Slots::REMOVED);
                if removed && (every || part.own_output) {
                    wanted.push((m as u32, p as u32, part.slot));
                }
                slots.0[part.slot] |= Slots::CALLED * u8::from(message.assistant & (part.kind == PartKind::Call));
            }
        }
        if wanted.is_empty() {
            return Ok(Ok(TextsById::default()));
        }
        let Some(outputs) = outputs else {
            return Ok(Err(Answer::NeedsOutputs(wanted.iter().map(|&(message, part, _)| (message, part)).collect())));
        };

        let mut texts = TextsById { by_id: Vec::new(), strings: Vec::with_capacity(outputs.len()) };
        texts.by_id.resize_with(self.prompt.id_count + 1, || None);
        let mut needed_json = JsonAsks::default();
        let mut reader = Reader::new(outputs);
        for &item in &wanted {
            texts.read(outputs, reader.position(), &mut needed_json, item)?;
            reader.skip_node(0)?;
        }
        reader.finish()?;
        if !needed_json.is_empty() {
            return Ok(Err(Answer::NeedsJson(needed_json)));
        }
        Ok(Ok(texts))
    }

    /// [`Self::result_texts`] when the outputs were written ahead, in one
    /// pass: each `OWN_OUTPUT` result's output is read as the walk meets it,
    /// as text where the result goes, stepped over where it stays. Only
    /// under the rule of 1.68 and later, where every result whose text is
    /// wanted is one of those.
    fn result_texts_ahead<P>(
        &self,
        slots: &mut Slots,
        outputs: &[i32],
    ) -> Result<Result<TextsById, Answer<P>>, FilterError> {
        let mut texts = TextsById { by_id: Vec::new(), strings: Vec::with_capacity(outputs.len()) };
        texts.by_id.resize_with(self.prompt.id_count + 1, || None);
        let mut needed_json = JsonAsks::default();
        let mut reader = Reader::new(outputs);
        for (m, message) in self.prompt.messages().enumerate() {
            for (p, part) in message.parts().enumerate() {
                slots.0[part.slot] |= Slots::CALLED * u8::from(message.assistant & (part.kind == PartKind::Call));
                if part.kind != PartKind::Result || !part.own_output {
                    continue;
                }
                if slots.has(part.slot, Slots::REMOVED) {
                    texts.read(outputs, reader.position(), &mut needed_json, (m as u32, p as u32, part.slot))?;
                }
                reader.skip_node(0)?;
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
