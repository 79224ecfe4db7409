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
//!
//! Here: the options, the decision ([`filter_into`]) and the plan it writes;
//! beside it, in `prompt/`, the tape's reading (`reading.rs`), one round of
//! the binding's call ([`Input`], `round.rs`), and the texts removed results
//! leave (`texts.rs`).

mod reading;
mod round;
mod texts;

use super::tape::JsonAsks;
use super::{keeps_any_step, plan, recent_steps, Exclude, FilterError};
use crate::releases::PreservedResults;
use reading::{Content, Message, Part, PartKind, Prompt, NO_ID_SLOT};
pub use round::Input;
use texts::TextsById;

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

/// The constructor options, converted once at the edge.
#[derive(Clone, Copy, Debug)]
pub struct PromptOptions {
    pub preserve_model_output: bool,
    /// `filterAfterToolSteps` as JavaScript gave it; `None` keeps the run's calls.
    pub filter_after_tool_steps: Option<f64>,
    /// The host release's rule for which removed results become text.
    pub preserved_results: PreservedResults,
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

/// One prompt to filter, and what is known of it: the tools whose calls go
/// (`exclude`), the prompt's `tape`, and
/// - `history`: for each interned call id, whether the request's recorded
///   history holds it, or `None` when nothing is recorded yet;
/// - `outputs`: the tape of result outputs asked for by
///   [`Answer::NeedsOutputs`] (the prompt is read again with them, as it
///   was), or with `outputs_ahead` the output of every `OWN_OUTPUT` result
///   in prompt order ([`input::OUTPUTS_AHEAD`]).
///
/// [`Input::round`] is the round a binding's buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round<'a> {
    pub exclude: Exclude,
    pub tape: &'a [i32],
    pub history: Option<&'a [i32]>,
    pub outputs: Option<&'a [i32]>,
    pub outputs_ahead: bool,
}

/// Filters one prompt (see [`Round`]).
pub fn filter(options: &PromptOptions, round: Round<'_>) -> Result<Decision, FilterError> {
    filter_into(options, round, Vec::new())
}

/// [`filter`], writing a changed prompt's plan into `plan`, which the answer
/// hands back.
pub fn filter_into<P: PlanSink>(
    options: &PromptOptions,
    round: Round<'_>,
    plan: P,
) -> Result<Decision<P>, FilterError> {
    let Round { exclude, tape, history, outputs, outputs_ahead } = round;
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
    options: &'a PromptOptions,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use crate::tool_call_filter::tape::{node, JsonAsk, JsonAsks};

    /// A round whose outputs (if any) are those asked for.
    fn round<'a>(
        exclude: Exclude,
        tape: &'a [i32],
        history: Option<&'a [i32]>,
        outputs: Option<&'a [i32]>,
    ) -> Round<'a> {
        Round { exclude, tape, history, outputs, outputs_ahead: false }
    }

    /// Builds prompt tapes the way the binding does.
    #[derive(Default)]
    struct PromptTape {
        tape: Vec<i32>,
        count: i32,
    }

    /// A call id as a part holds it: [`NO_ID`] for a falsy one.
    fn id_field(id: i32) -> i32 {
        if id == NO_ID {
            0
        } else {
            (id + 1) * code::CALL_ID_UNIT
        }
    }

    /// A falsy call id.
    const NO_ID: i32 = -1;

    fn call(id: i32, excluded: bool) -> Vec<i32> {
        vec![code::TOOL_CALL | if excluded { code::EXCLUDED } else { 0 } | id_field(id)]
    }

    fn result(id: i32, excluded: bool, own_output: bool) -> Vec<i32> {
        let flags = if excluded { code::EXCLUDED } else { 0 } | if own_output { code::OWN_OUTPUT } else { 0 };
        vec![code::TOOL_RESULT | flags | id_field(id)]
    }

    fn text() -> Vec<i32> {
        vec![code::PART_OTHER]
    }

    fn role(assistant: bool) -> i32 {
        if assistant {
            code::ASSISTANT
        } else {
            0
        }
    }

    impl PromptTape {
        fn pass(mut self) -> Self {
            self.tape.push(code::PASS);
            self.count += 1;
            self
        }

        fn message(mut self, assistant: bool, parts: Vec<Vec<i32>>) -> Self {
            self.tape.extend([code::PARTS | role(assistant), parts.len() as i32]);
            self.tape.extend(parts.into_iter().flatten());
            self.count += 1;
            self
        }

        fn assistant(self, parts: Vec<Vec<i32>>) -> Self {
            self.message(true, parts)
        }

        fn tool(self, parts: Vec<Vec<i32>>) -> Self {
            self.message(false, parts)
        }

        fn string_content(mut self, assistant: bool, empty: bool) -> Self {
            self.tape.push(code::TEXT_CONTENT | role(assistant) | if empty { code::EMPTY } else { 0 });
            self.count += 1;
            self
        }

        fn build(self) -> Vec<i32> {
            let mut tape = vec![self.count];
            tape.extend(self.tape);
            tape
        }
    }

    fn options(steps: Option<f64>, preserve: bool, rule: PreservedResults) -> PromptOptions {
        PromptOptions { preserve_model_output: preserve, filter_after_tool_steps: steps, preserved_results: rule }
    }

    fn plain() -> PromptOptions {
        options(None, false, PreservedResults::WithOwnModelOutput)
    }

    fn changed(decision: Decision) -> Vec<i32> {
        match decision.answer {
            Answer::Changed(plan) => plan,
            other => panic!("expected a new prompt, got {other:?}"),
        }
    }

    /// user, assistant [text, call 0], tool [result 0], assistant [call 1], tool [result 1]
    fn two_pairs() -> Vec<i32> {
        PromptTape::default()
            .pass()
            .assistant(vec![text(), call(0, false)])
            .tool(vec![result(0, false, false)])
            .assistant(vec![call(1, true)])
            .tool(vec![result(1, true, false)])
            .build()
    }

    #[test]
    fn the_first_prompt_of_a_request_is_its_history_and_goes() {
        let decision = filter(&plain(), round(Exclude::All, &two_pairs(), None, None)).unwrap();
        assert!(decision.record_history);
        assert_eq!(
            changed(decision),
            vec![plan::KEEP, plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP, plan::DROP, plan::DROP, plan::DROP]
        );
    }

    #[test]
    fn calls_the_run_made_after_the_history_stay() {
        // The history holds id 0 only: id 1 came from the run.
        let decision = filter(&plain(), round(Exclude::All, &two_pairs(), Some(&[1, 0]), None)).unwrap();
        assert!(!decision.record_history);
        assert_eq!(
            changed(decision),
            vec![plan::KEEP, plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP, plan::DROP, plan::KEEP, plan::KEEP]
        );
        // Everything from the run: nothing to do.
        let decision = filter(&plain(), round(Exclude::All, &two_pairs(), Some(&[0, 0]), None)).unwrap();
        assert_eq!(decision.answer, Answer::Unchanged);
    }

    #[test]
    fn an_exclude_list_removes_pairs_by_id() {
        // Only id 1's parts name an excluded tool; its call and result both go.
        let plan = changed(filter(&plain(), round(Exclude::Listed, &two_pairs(), None, None)).unwrap());
        assert_eq!(plan, vec![plan::KEEP, plan::KEEP, plan::KEEP, plan::DROP, plan::DROP]);
        // A result naming an excluded tool takes its call along, whatever the call names.
        let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, true, false)]).build();
        let plan = changed(filter(&plain(), round(Exclude::Listed, &tape, None, None)).unwrap());
        assert_eq!(plan, vec![plan::DROP, plan::DROP]);
    }

    #[test]
    fn recent_tool_steps_stay_with_filter_after_tool_steps() {
        let keep_one = options(Some(1.0), false, PreservedResults::Every);
        let plan = changed(filter(&keep_one, round(Exclude::All, &two_pairs(), None, None)).unwrap());
        assert_eq!(
            plan,
            vec![plan::KEEP, plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP, plan::DROP, plan::KEEP, plan::KEEP]
        );
        // Two steps keep everything; zero keeps nothing; NaN keeps everything.
        for (steps, unchanged) in [(2.0, true), (0.0, false), (f64::NAN, true), (-1.0, false)] {
            let decision = filter(
                &options(Some(steps), false, PreservedResults::Every),
                round(Exclude::All, &two_pairs(), None, None),
            );
            assert_eq!(decision.unwrap().answer == Answer::Unchanged, unchanged, "{steps}");
        }
    }

    #[test]
    fn steps_count_assistant_messages_not_tool_messages() {
        // A tool message holding a call is no step: the assistant's call is the last one.
        let tape = PromptTape::default()
            .assistant(vec![call(0, false)])
            .tool(vec![call(1, false), result(0, false, false)])
            .build();
        let keep_one = options(Some(1.0), false, PreservedResults::Every);
        let plan = changed(filter(&keep_one, round(Exclude::All, &tape, None, None)).unwrap());
        assert_eq!(plan, vec![plan::KEEP, plan::REWRITE, 1, plan::PART_DROP, plan::PART_KEEP]);
    }

    #[test]
    fn a_string_content_is_read_as_characters() {
        let tape = PromptTape::default()
            .string_content(true, false)
            .string_content(false, true)
            .assistant(vec![call(0, false)])
            .tool(vec![result(0, false, false)])
            .build();
        // Once anything changes, an empty content leaves with its message.
        let plan = changed(filter(&plain(), round(Exclude::All, &tape, None, None)).unwrap());
        assert_eq!(plan, vec![plan::KEEP, plan::DROP, plan::DROP, plan::DROP]);
        // Step filtering calls `content.filter` on the assistant's string.
        let keep_one = options(Some(1.0), false, PreservedResults::Every);
        assert_eq!(
            filter(&keep_one, round(Exclude::All, &tape, None, None)),
            Err(FilterError::ContentNotAnArray { message: 0 })
        );
        // ... unless it keeps no steps, which reads nothing.
        let keep_none = options(Some(0.0), false, PreservedResults::Every);
        assert!(filter(&keep_none, round(Exclude::All, &tape, None, None)).is_ok());
    }

    #[test]
    fn preserved_output_becomes_text_where_the_call_was() {
        let with_outputs = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
        let decision = filter(&with_outputs, round(Exclude::All, &tape, None, None)).unwrap();
        assert_eq!(decision.answer, Answer::NeedsOutputs(vec![(1, 0)]));
        // The output is the string 7.
        let outputs = [node::STRING, 7, 1];
        let plan = changed(filter(&with_outputs, round(Exclude::All, &tape, None, Some(&outputs))).unwrap());
        assert_eq!(plan, vec![plan::REWRITE, 1, plan::PART_RESULT_TEXT, 1, 0, 1, 7, plan::DROP]);
        // An output without text leaves nothing.
        let plan =
            changed(filter(&with_outputs, round(Exclude::All, &tape, None, Some(&[node::STRING, 7, 0]))).unwrap());
        assert_eq!(plan, vec![plan::DROP, plan::DROP]);
    }

    #[test]
    fn from_1_68_only_results_with_their_own_model_output_become_text() {
        let own_only = options(None, true, PreservedResults::WithOwnModelOutput);
        let tape = PromptTape::default()
            .assistant(vec![call(0, false), call(1, false)])
            .tool(vec![result(0, false, false), result(1, false, true)])
            .build();
        assert_eq!(
            filter(&own_only, round(Exclude::All, &tape, None, None)).unwrap().answer,
            Answer::NeedsOutputs(vec![(1, 1)])
        );
        let every = options(None, true, PreservedResults::Every);
        assert_eq!(
            filter(&every, round(Exclude::All, &tape, None, None)).unwrap().answer,
            Answer::NeedsOutputs(vec![(1, 0), (1, 1)])
        );
    }

    #[test]
    fn a_provider_executed_result_without_a_call_keeps_its_text_in_place() {
        let with_outputs = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default().assistant(vec![text(), result(0, false, false)]).build();
        let plan =
            changed(filter(&with_outputs, round(Exclude::All, &tape, None, Some(&[node::STRING, 3, 1]))).unwrap());
        assert_eq!(plan, vec![plan::REWRITE, 2, plan::PART_KEEP, plan::PART_RESULT_TEXT, 0, 1, 1, 3]);
        // In a tool message it is dropped: only assistant messages may carry the text.
        let tape = PromptTape::default().tool(vec![text(), result(0, false, false)]).build();
        let plan =
            changed(filter(&with_outputs, round(Exclude::All, &tape, None, Some(&[node::STRING, 3, 1]))).unwrap());
        assert_eq!(plan, vec![plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP]);
    }

    #[test]
    fn the_last_result_with_text_names_the_pair() {
        // Two results for id 0: the second has text, the third has none.
        let with_outputs = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default()
            .assistant(vec![call(0, false)])
            .tool(vec![result(0, false, false), result(0, false, false), result(0, false, false)])
            .build();
        let outputs = [node::STRING, 1, 1, node::STRING, 2, 1, node::NOTHING];
        let plan = changed(filter(&with_outputs, round(Exclude::All, &tape, None, Some(&outputs))).unwrap());
        assert_eq!(plan, vec![plan::REWRITE, 1, plan::PART_RESULT_TEXT, 1, 1, 1, 2, plan::DROP]);
    }

    #[test]
    fn json_left_for_later_is_asked_for() {
        let with_outputs = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
        // `{ a: 1 }` with its JSON not computed: the slot is position 2 of the outputs tape.
        let outputs = [node::OBJECT, 0, node::JSON_LATER, node::NO_TEXT, 0];
        let decision = filter(&with_outputs, round(Exclude::All, &tape, None, Some(&outputs))).unwrap();
        assert_eq!(
            decision.answer,
            Answer::NeedsJson(JsonAsks(vec![JsonAsk { slot: Some(2), around: None, inside: 0 }]))
        );
    }

    #[test]
    fn each_round_of_outputs_reads_the_prompt_again_to_the_answer_it_asks_for() {
        let with_outputs = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
        let ask =
            |outputs: Option<&[i32]>| filter(&with_outputs, round(Exclude::All, &tape, None, outputs)).unwrap().answer;
        assert_eq!(ask(None), Answer::NeedsOutputs(vec![(1, 0)]));
        let mut outputs = vec![node::OBJECT, 0, node::JSON_LATER, node::NO_TEXT, 0];
        assert_eq!(
            ask(Some(&outputs)),
            Answer::NeedsJson(JsonAsks(vec![JsonAsk { slot: Some(2), around: None, inside: 0 }]))
        );
        // The JSON filled in: string 4.
        outputs[2] = 4;
        assert_eq!(
            ask(Some(&outputs)),
            Answer::Changed(vec![plan::REWRITE, 1, plan::PART_RESULT_TEXT, 1, 0, 1, 4, plan::DROP])
        );
    }

    #[test]
    fn outputs_written_ahead_are_every_own_output_result_in_prompt_order() {
        let own_only = options(None, true, PreservedResults::WithOwnModelOutput);
        // Call 0 goes; call 1 is in the history's preserved part and stays. Both
        // results carry their own output, so both outputs come ahead; only the
        // first is read into a text.
        let tape = PromptTape::default()
            .assistant(vec![call(0, false), call(1, false)])
            .tool(vec![result(0, false, true), result(1, false, true)])
            .build();
        let history = [1, 0];
        let outputs = [node::STRING, 5, 1, node::TOO_DEEP];
        let ahead = |outputs: &[i32]| {
            filter_into(
                &own_only,
                Round { outputs_ahead: true, ..round(Exclude::All, &tape, Some(&history), Some(outputs)) },
                Vec::new(),
            )
            .map(|d| d.answer)
        };
        let expected = vec![
            plan::REWRITE,
            2,
            plan::PART_RESULT_TEXT,
            1,
            0,
            1,
            5,
            plan::PART_KEEP,
            plan::REWRITE,
            1,
            plan::PART_DROP,
            plan::PART_KEEP,
        ];
        assert_eq!(ahead(&outputs), Ok(Answer::Changed(expected.clone())));
        // The same as the answer that asks for the one it needs.
        let asked = filter(&own_only, round(Exclude::All, &tape, Some(&history), None)).unwrap().answer;
        assert_eq!(asked, Answer::NeedsOutputs(vec![(1, 0)]));
        assert_eq!(
            changed(filter(&own_only, round(Exclude::All, &tape, Some(&history), Some(&outputs[..3]))).unwrap()),
            expected
        );
        // One output short, or one too many: the tape does not account for the results.
        assert!(ahead(&outputs[..3]).is_err());
        assert!(ahead(&[node::STRING, 5, 1, node::NOTHING, node::NOTHING]).is_err());
    }

    #[test]
    fn a_wanted_result_without_its_own_output_is_asked_for_even_with_outputs_ahead() {
        // Under the rule of every result, one without its own output is wanted
        // too, and outputs written ahead do not hold it.
        let every = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default()
            .assistant(vec![call(0, false), call(1, false)])
            .tool(vec![result(0, false, false), result(1, false, true)])
            .build();
        let decision = filter_into(
            &every,
            Round { outputs_ahead: true, ..round(Exclude::All, &tape, None, Some(&[node::NOTHING])) },
            Vec::new(),
        )
        .unwrap();
        assert_eq!(decision.answer, Answer::NeedsOutputs(vec![(1, 0), (1, 1)]));
        // Under that rule outputs written ahead are never read, even where they
        // would hold every wanted one.
        let own = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, true)]).build();
        let decision = filter_into(
            &every,
            Round { outputs_ahead: true, ..round(Exclude::All, &own, None, Some(&[node::STRING, 5, 1])) },
            Vec::new(),
        )
        .unwrap();
        assert_eq!(decision.answer, Answer::NeedsOutputs(vec![(1, 0)]));
    }

    #[test]
    fn a_plan_is_written_after_what_its_sink_holds() {
        // The binding writes the answer's head first and the plan after it.
        let tape = PromptTape::default()
            .pass()
            .assistant(vec![text(), call(0, false)])
            .tool(vec![result(0, false, false)])
            .build();
        let alone = changed(filter(&plain(), round(Exclude::All, &tape, None, None)).unwrap());
        let mut sink = vec![7, 8];
        let decision =
            filter_into(&plain(), Round { outputs_ahead: false, ..round(Exclude::All, &tape, None, None) }, &mut sink)
                .unwrap();
        assert!(matches!(decision.answer, Answer::Changed(_)));
        assert_eq!(sink[..2], [7, 8]);
        assert_eq!(sink[2..], alone[..]);
    }

    #[test]
    fn an_unreadable_output_fails_only_when_its_text_is_needed() {
        let with_outputs = options(None, true, PreservedResults::Every);
        let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
        assert_eq!(
            filter(&with_outputs, round(Exclude::All, &tape, None, Some(&[node::TOO_DEEP]))),
            Err(FilterError::ModelOutputTooDeep { message: 1 })
        );
    }

    #[test]
    fn an_empty_exclude_list_changes_and_records_nothing() {
        let tape = PromptTape::default().assistant(vec![call(0, true)]).tool(vec![result(0, true, false)]).build();
        let decision = filter(&plain(), round(Exclude::Nothing, &tape, None, None)).unwrap();
        assert_eq!(decision, Decision { record_history: false, answer: Answer::Unchanged });
    }

    #[test]
    fn falsy_ids_are_never_removed() {
        let tape =
            PromptTape::default().assistant(vec![call(NO_ID, false)]).tool(vec![result(NO_ID, false, false)]).build();
        assert_eq!(filter(&plain(), round(Exclude::All, &tape, None, None)).unwrap().answer, Answer::Unchanged);
    }

    #[test]
    fn broken_tapes_are_errors() {
        let broken = [
            vec![],
            vec![1],
            vec![1, 9],
            vec![2, code::PASS],
            // Id 5 where the next new id is 0.
            vec![1, code::PARTS, 1, code::TOOL_CALL | (6 * code::CALL_ID_UNIT)],
            // Flags a kind does not have, an unknown kind, a negative part.
            vec![1, code::PASS | code::ASSISTANT],
            vec![1, code::PARTS | code::EMPTY, 0],
            vec![1, code::PARTS, 1, code::PART_OTHER | code::EXCLUDED],
            vec![1, code::PARTS, 1, code::PART_OTHER | code::CALL_ID_UNIT],
            vec![1, code::PARTS, 1, code::TOOL_CALL | code::OWN_OUTPUT],
            vec![1, code::PARTS, 1, code::KIND_MASK],
            vec![1, code::PARTS, 1, -1],
            vec![1, code::PARTS, 1, code::TOOL_RESULT | 32],
        ];
        for tape in broken {
            assert!(
                matches!(filter(&plain(), round(Exclude::All, &tape, None, None)), Err(FilterError::Tape(_))),
                "{tape:?}"
            );
        }
        // A history table of the wrong length.
        assert!(filter(&plain(), round(Exclude::All, &two_pairs(), Some(&[1]), None)).is_err());
    }

    #[test]
    fn arbitrary_tapes_give_answers_or_errors_never_panics() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let small = |rng: &mut Rng| (rng.next() % 7) as i32 - 2;
        let all_options = [
            plain(),
            options(Some(1.0), true, PreservedResults::Every),
            options(None, true, PreservedResults::WithOwnModelOutput),
        ];
        let mut answered = 0;
        for _ in 0..50_000 {
            let len = (rng.next() % 24) as usize;
            let mut tape: Vec<i32> = (0..len).map(|_| small(&mut rng)).collect();
            if let Some(first) = tape.first_mut() {
                *first = first.abs() % 4;
            }
            let history: Vec<i32> = (0..(rng.next() % 3)).map(|_| small(&mut rng)).collect();
            let outputs: Vec<i32> = (0..(rng.next() % 8)).map(|_| small(&mut rng)).collect();
            for options in &all_options {
                for exclude in [Exclude::All, Exclude::Listed] {
                    let history = rng.next().is_multiple_of(2).then_some(history.as_slice());
                    let outputs = rng.next().is_multiple_of(2).then_some(outputs.as_slice());
                    if filter(options, round(exclude, &tape, history, outputs)).is_ok() {
                        answered += 1;
                    }
                }
            }
        }
        assert!(answered > 1_000, "too few valid tapes to mean anything: {answered}");
    }

    #[test]
    fn an_input_buffer_is_a_head_then_the_parts_it_measures() {
        let tape = two_pairs();
        let mut buffer = vec![input::PRESERVE_MODEL_OUTPUT, 2, tape.len() as i32, 2, input::ABSENT];
        buffer.extend(&tape);
        buffer.extend([1, 0]);
        // What follows the parts is not read: the buffer may be longer.
        buffer.extend([9, 9, 9]);
        let read = Input::read(&buffer).unwrap();
        assert_eq!(
            read,
            Input {
                preserve_model_output: true,
                preserved_results: PreservedResults::WithOwnModelOutput,
                exclude: Exclude::Listed,
                tape: &tape,
                history: Some(&[1, 0]),
                outputs: None,
                outputs_ahead: false,
            }
        );
        assert_eq!(read.options(Some(2.0)).filter_after_tool_steps, Some(2.0));

        let everything = [input::EVERY_RESULT, input::ABSENT, 1, 0, 1, 0, 7];
        let read = Input::read(&everything).unwrap();
        assert_eq!((read.exclude, read.preserved_results), (Exclude::All, PreservedResults::Every));
        assert_eq!((read.tape, read.history, read.outputs), (&[0][..], Some(&[][..]), Some(&[7][..])));
        assert_eq!(Input::read(&[0, 0, 1, -1, -1, 0]).unwrap().exclude, Exclude::Nothing);
        assert!(Input::read(&[input::OUTPUTS_AHEAD, -1, 1, -1, 0, 0]).unwrap().outputs_ahead);
    }

    #[test]
    fn an_input_whose_head_does_not_account_for_it_is_refused() {
        let refused: [&[i32]; 7] = [
            &[],
            &[0, -1, 0, -1],
            // An unknown flag, a negative list length, no tape, lengths past the end.
            &[8, -1, 0, -1, -1],
            &[0, -2, 0, -1, -1],
            &[0, -1, -1, -1, -1],
            &[0, -1, 2, -1, -1, 0],
            &[0, -1, 1, 1, -1, 0],
        ];
        for buffer in refused {
            assert!(Input::read(buffer).is_err(), "{buffer:?}");
        }
    }

    #[test]
    fn a_message_with_no_parts_goes_once_anything_changed() {
        // The reference drops every message whose content ends up empty, and one
        // that was empty already is no exception; with nothing removed the prompt
        // is handed back as it was, the empty message in it.
        let tape = PromptTape::default()
            .assistant(vec![])
            .assistant(vec![call(0, false)])
            .tool(vec![])
            .tool(vec![result(0, false, false)])
            .build();
        for preserve in [false, true] {
            let options = options(None, preserve, PreservedResults::WithOwnModelOutput);
            let plan = changed(filter(&options, round(Exclude::All, &tape, None, None)).unwrap());
            assert_eq!(plan, vec![plan::DROP, plan::DROP, plan::DROP, plan::DROP], "preserveModelOutput {preserve}");
            let decision = filter(&options, round(Exclude::All, &tape, Some(&[0]), None)).unwrap();
            assert_eq!(decision.answer, Answer::Unchanged, "preserveModelOutput {preserve}");
        }
    }

    #[test]
    fn with_a_history_table_the_ids_are_the_tables_in_any_order() {
        // The binding starts from the recorded history's ids, so the prompt may
        // hold them in another order, and not all of them: id 2 is history no
        // longer in the prompt, id 1 the run's own (not held).
        let tape = PromptTape::default()
            .assistant(vec![call(1, false)])
            .tool(vec![result(1, false, false)])
            .assistant(vec![call(0, false)])
            .tool(vec![result(0, false, false)])
            .build();
        let decision = filter(&plain(), round(Exclude::All, &tape, Some(&[1, 0, 1]), None)).unwrap();
        assert!(!decision.record_history);
        assert_eq!(changed(decision), vec![plan::KEEP, plan::KEEP, plan::DROP, plan::DROP]);
        // Without a table, ids must come in prompt order; with one, below its length.
        assert!(matches!(filter(&plain(), round(Exclude::All, &tape, None, None)), Err(FilterError::Tape(_))));
        assert!(matches!(filter(&plain(), round(Exclude::All, &tape, Some(&[1]), None)), Err(FilterError::Tape(_))));
        // With `filterAfterToolSteps` the history is not read, and neither is its table's length.
        let keep_one = options(Some(1.0), false, PreservedResults::WithOwnModelOutput);
        assert!(matches!(
            filter(&keep_one, round(Exclude::All, &tape, Some(&[1, 0, 1]), None)),
            Err(FilterError::Tape(_))
        ));
    }

    #[test]
    fn a_rounds_answer_is_laid_out_as_the_protocol_says() {
        let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
        let round = |preserve_model_output, history, outputs| Input {
            preserve_model_output,
            preserved_results: PreservedResults::Every,
            exclude: Exclude::All,
            tape: &tape,
            history,
            outputs,
            outputs_ahead: false,
        };
        let answer_of = |round: Input<'_>| {
            // Written after whatever the buffer holds already.
            let mut out = vec![-9];
            round.answer_into(None, &mut out).unwrap();
            out
        };
        // No history yet: record this one; the plan follows the head.
        assert_eq!(answer_of(round(false, None, None)), vec![-9, 1, answer::CHANGED, plan::DROP, plan::DROP]);
        // The call is not the history's (made in this request's loop): nothing changes.
        assert_eq!(answer_of(round(false, Some(&[0]), None)), vec![-9, 0, answer::UNCHANGED]);
        // The output of the result in message 1, part 0 is wanted.
        assert_eq!(answer_of(round(true, None, None)), vec![-9, 1, answer::NEEDS_OUTPUTS, 1, 1, 0]);
        // An object without text wants its JSON, left in slot 2 of the outputs tape.
        let outputs = [node::OBJECT, 0, node::JSON_LATER, node::NO_TEXT, 0];
        // One ask: slot 2, hanging on no other, with none hanging on it.
        assert_eq!(answer_of(round(true, None, Some(&outputs))), vec![-9, 1, answer::NEEDS_JSON, 1, 2, -1, 0]);
    }
}
