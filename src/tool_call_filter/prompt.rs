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
//! The binding walks the prompt once into a tape (codes in [`code`]):
//!
//! ```text
//! prompt  := count message*
//! message := PASS                            role 'system' or 'user': never read
//!          | PARTS role part_count part*     any other role, content an array
//!          | TEXT_CONTENT role empty         any other role, content a string
//! role    := OTHER_ROLE | ASSISTANT
//! part    := PART_OTHER
//!          | TOOL_CALL call_id excluded
//!          | TOOL_RESULT call_id excluded own_output
//! call_id := NO_CALL_ID | interned id >= 0   (ids are interned in prompt order, from 0)
//! ```
//!
//! `excluded` says the part's `toolName` is in the exclude list, and
//! `own_output` that the result carries its own non-nullish
//! `providerOptions.mastra.modelOutput` (both 0 where they decide nothing).
//! When results must be turned into text, the first answer names them
//! ([`Answer::NeedsOutputs`]) and the binding writes their `output`s as
//! [`super::tape`] nodes, one after another, into a second tape. What the
//! first answer was made from ([`Analysis`]) can answer the second too, so
//! the binding keeps it rather than have the prompt tape read again.

use super::tape::{model_output_text, NodeError, Reader, TapeError};
use super::{keeps_any_step, plan, recent_steps, CallId, Exclude, FilterError};
use crate::releases::PreservedResults;

/// The codes of the prompt tape.
pub mod code {
    pub const PASS: i32 = 0;
    pub const PARTS: i32 = 1;
    pub const TEXT_CONTENT: i32 = 2;

    pub const OTHER_ROLE: i32 = 0;
    pub const ASSISTANT: i32 = 1;

    pub const PART_OTHER: i32 = 0;
    pub const TOOL_CALL: i32 = 1;
    pub const TOOL_RESULT: i32 = 2;

    /// A falsy tool-call id; any negative id reads the same.
    pub const NO_CALL_ID: i32 = -1;
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
    call_id: Option<CallId>,
    excluded: bool,
    own_output: bool,
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
    content: Content,
}

/// A parsed prompt tape.
struct Prompt {
    messages: Vec<Message>,
    parts: Vec<Part>,
    /// One more than the largest interned call id.
    id_count: usize,
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
            let message = match reader.read()? {
                code::PASS => Message { assistant: false, content: Content::Pass },
                kind @ (code::PARTS | code::TEXT_CONTENT) => {
                    let assistant = match reader.read()? {
                        code::OTHER_ROLE => false,
                        code::ASSISTANT => true,
                        _ => return Err(reader.error()),
                    };
                    let content = if kind == code::PARTS {
                        let part_count = reader.count()?;
                        let start = prompt.parts.len();
                        for _ in 0..part_count {
                            let part = prompt.read_part(&mut reader)?;
                            prompt.parts.push(part);
                        }
                        Content::Parts { start, end: prompt.parts.len() }
                    } else {
                        Content::Text { empty: reader.read()? != 0 }
                    };
                    Message { assistant, content }
                }
                _ => return Err(reader.error()),
            };
            prompt.messages.push(message);
        }
        reader.finish()?;
        Ok(prompt)
    }

    fn read_part(&mut self, reader: &mut Reader<'_>) -> Result<Part, TapeError> {
        let kind = match reader.read()? {
            code::PART_OTHER => {
                return Ok(Part { kind: PartKind::Other, call_id: None, excluded: false, own_output: false })
            }
            code::TOOL_CALL => PartKind::Call,
            code::TOOL_RESULT => PartKind::Result,
            _ => return Err(reader.error()),
        };
        let at = reader.position();
        let call_id = reader.call_id()?;
        if let Some(id) = call_id {
            // Ids are interned in prompt order, so a new one is always the next.
            let id = id as usize;
            if id > self.id_count {
                return Err(TapeError { position: at });
            }
            self.id_count = self.id_count.max(id + 1);
        }
        let excluded = reader.read()? != 0;
        let own_output = kind == PartKind::Result && reader.read()? != 0;
        Ok(Part { kind, call_id, excluded, own_output })
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
    /// By call id: the call stays whatever the exclude list says.
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
                vec![false; prompt.id_count]
            }
            Some(known) => {
                if known.len() != prompt.id_count {
                    return Err(TapeError { position: 0 }.into());
                }
                known.iter().map(|&held| held == 0).collect()
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
/// hold tool calls, as a table by call id.
fn recent_step_ids(prompt: &Prompt, keep_steps: f64) -> Result<Vec<bool>, FilterError> {
    let mut preserved = vec![false; prompt.id_count];
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
                let parts = prompt.parts(message);
                if parts.iter().any(|part| part.kind == PartKind::Call) {
                    steps.push(parts);
                }
            }
            Content::Pass => {}
        }
    }
    for parts in recent_steps(&steps, keep_steps) {
        for part in parts.iter().filter(|part| part.kind == PartKind::Call) {
            if let Some(id) = part.call_id {
                preserved[id as usize] = true;
            }
        }
    }
    Ok(preserved)
}

struct Filter<'a> {
    options: &'a Options,
    exclude: Exclude,
    prompt: &'a Prompt,
    /// By call id: the call stays whatever the exclude list says.
    preserved: &'a [bool],
}

/// The text each removed pair leaves, if any, by call id. The strings of
/// every text share one vector, so a prompt's texts take two allocations
/// however many there are.
#[derive(Default)]
struct TextsById {
    by_id: Vec<Option<ResultText>>,
    strings: Vec<i32>,
}

impl TextsById {
    /// The text of call `id`, with its strings.
    fn get(&self, id: usize) -> Option<(&ResultText, &[i32])> {
        let text = self.by_id.get(id)?.as_ref()?;
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
        let mut excluded = vec![false; prompt.id_count];
        let mut any_excluded = false;
        for part in self.tool_parts() {
            let Some(id) = part.call_id else { continue };
            if !self.preserved[id as usize] && (self.exclude == Exclude::All || part.excluded) {
                excluded[id as usize] = true;
                any_excluded = true;
            }
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

        let mut called = vec![false; prompt.id_count];
        for message in prompt.messages.iter().filter(|m| m.assistant) {
            for part in prompt.parts(message).iter().filter(|p| p.kind == PartKind::Call) {
                if let Some(id) = part.call_id {
                    called[id as usize] = true;
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
                let removed = part.kind != PartKind::Other && part.call_id.is_some_and(|id| excluded[id as usize]);
                if !removed {
                    out.push(plan::PART_KEEP);
                    kept += 1;
                    continue;
                }
                changed = true;
                rewritten = true;
                let id = part.call_id.unwrap_or_default() as usize;
                // The text goes where the call was, so roles stay valid; a
                // provider-executed result with no call leaves it in place.
                let emits_text = part.kind == PartKind::Call || (message.assistant && !called[id]);
                match texts.get(id).filter(|_| emits_text) {
                    Some((text, strings)) => {
                        out.extend([plan::PART_RESULT_TEXT, text.message as i32, text.part as i32]);
                        out.push(strings.len() as i32);
                        out.extend_from_slice(strings);
                        kept += 1;
                    }
                    None => out.push(plan::PART_DROP),
                }
            }
            out.truncate(if kept == 0 || !rewritten { header } else { out.len() });
            if kept == 0 {
                out.push(plan::DROP);
            } else if !rewritten {
                out.push(plan::KEEP);
            }
        }
        Ok(if changed { Answer::Changed(out) } else { Answer::Unchanged })
    }

    /// Every tool call and result outside system and user messages.
    fn tool_parts(&self) -> impl Iterator<Item = &Part> {
        self.prompt.parts.iter().filter(|part| part.kind != PartKind::Other)
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
                let removed = part.kind == PartKind::Result && part.call_id.is_some_and(|id| excluded[id as usize]);
                if removed && (every || part.own_output) {
                    wanted.push((m as u32, p as u32, part.call_id.unwrap_or_default()));
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
        texts.by_id.resize_with(self.prompt.id_count, || None);
        let mut needed_json = Vec::new();
        let mut reader = Reader::new(outputs);
        for (message, part, id) in wanted {
            let start = reader.position();
            let first = texts.strings.len();
            model_output_text(outputs, start, &mut texts.strings, &mut needed_json).map_err(|error| match error {
                NodeError::Tape(error) => FilterError::Tape(error),
                NodeError::TooDeep => FilterError::ModelOutputTooDeep { message: message as usize },
            })?;
            reader.skip_node(0)?;
            if texts.strings.len() > first {
                texts.by_id[id as usize] = Some(ResultText { message, part, strings: first..texts.strings.len() });
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
