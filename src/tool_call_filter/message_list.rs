//! The filter of Mastra 1.59 and earlier: `processInput` and
//! `processInputStep` rewrite the message list itself.
//!
//! The binding walks the stored messages (`MastraDBMessage`, format 2) once
//! and hands over a tape that records only what a decision depends on: the
//! shape of each message, each tool part's state, whether its tool name is
//! excluded, an interned tool-call id, and any model output (see
//! [`super::tape`]). Grammar, every symbol one `i32` (codes in [`code`]):
//!
//! ```text
//! history  := count message*
//! message  := UNTOUCHED                          string content, or no parts
//!           | HOLE                               a hole in a sparse array
//!           | WITH_PARTS top_text part_count part*
//! top_text := TEXT_ABSENT | TEXT | TEXT_BLANK | TEXT_NOT_A_STRING
//!           | TEXT_UNREAD                        not an own property: not read yet
//! part     := PART_OTHER                         not a tool invocation
//!           | HOLE
//!           | PART_TOOL state excluded call_id output
//! state    := STATE_OTHER | STATE_CALL | STATE_RESULT
//! excluded := 0 | 1                              the tool name is in the exclude list
//! call_id  := NO_CALL_ID | interned id >= 0
//! output   := NO_OUTPUT | OUTPUT node
//! ```
//!
//! Where a field decides nothing the binding may write a fixed value without
//! reading it: `excluded` 0 without an exclude list, `call_id` 0 where no ids
//! are compared (every tool goes, none is kept by step), `output` NO_OUTPUT
//! without `preserveModelOutput`, and, without an exclude list where the part
//! has no model output written, `state` STATE_OTHER (a tool part then goes,
//! or stays by its id, whatever its state). So that it reads only what the
//! reference reads, it does so too for a part whose id the kept steps hold
//! (`state` STATE_OTHER, `output` NO_OUTPUT: the part stays whatever they
//! are), and `output` NO_OUTPUT for a result that does not go.
//!
//! The reference reads two more keys of a message's content only once it
//! knows what happens to its parts: `content.content` when it is not an own
//! key (only to drop a message all of whose parts go; an own key it reads
//! either way, copying the content), and the legacy `content.toolInvocations`
//! only of a message it keeps. The binding leaves both unread on the tape:
//! the plan asks for the text where it decides ([`plan::ASK_TEXT`]), and the
//! binding, rebuilding a message, reads its legacy list. Without an exclude
//! list the plan says which entries stay ([`plan::LEGACY_NONE_KEPT`],
//! [`plan::LEGACY_HELD`]); with one ([`plan::LEGACY_TABLE`]) the binding
//! writes the lists onto a second tape and looks each entry up in the
//! verdicts the plan ends with ([`legacy_verdicts`]), and where an entry is
//! `null` asks [`plan_legacy`] about that tape, which fails as the
//! reference does:
//!
//! ```text
//! legacy   := count list*
//! list     := message count entry*               message: its index in the run
//! entry    := call_id excluded | LEGACY_NULL 0 | LEGACY_HOLE 0
//! ```
//!
//! The answer is a plan ([`super::plan`]) that the binding applies to the
//! original objects, so payloads never leave JavaScript and nothing is copied
//! that is not rewritten. The legacy `content.toolInvocations` lists of the
//! messages it rebuilds are planned in `message_list/legacy.rs`.

mod legacy;

use super::prompt::PlanSink;
use super::tape::{model_output_text, JsonAsks, NodeError, Reader, TapeError};
use super::{plan, recent_steps, CallId, CallIdSet, Exclude, FilterError};
pub use legacy::{legacy_entry_stays, legacy_verdicts, plan_legacy, plan_legacy_into, LegacyRun};

/// The codes of the message-list tape (declared in the protocol).
pub use crate::protocol::tool_call_filter::message_list as code;
/// Where the filter keeps, in the processor's per-request `state`, every
/// tool-call id seen in a step's response so far, and per step the ids that
/// first appeared in it.
pub use crate::protocol::tool_call_filter::state_keys::{SEEN as SEEN_STATE_KEY, STEPS as STEPS_STATE_KEY};

/// The constructor options, converted once at the edge.
#[derive(Clone, Copy, Debug)]
pub struct MessageListOptions {
    pub preserve_model_output: bool,
    /// `filterAfterToolSteps` as JavaScript gave it; `None` leaves agent-loop steps alone.
    pub filter_after_tool_steps: Option<f64>,
}

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
    /// Not an own property, so not read (see the module docs).
    Unread,
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
        call_id: Option<CallId>,
        /// Where `providerMetadata.mastra.modelOutput`'s node starts on the
        /// tape, when there is one.
        model_output: Option<usize>,
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
    },
}

/// A parsed history. The parts of all messages live in one flat list, so
/// reading a tape allocates a handful of vectors however many messages it
/// holds.
#[derive(Debug, Default)]
pub struct History {
    pub messages: Vec<Message>,
    parts: Vec<Part>,
}

impl History {
    pub fn parts(&self, slice: Slice) -> &[Part] {
        &self.parts[slice.range()]
    }

    /// Reads a whole history tape.
    pub fn read(tape: &[i32]) -> Result<History, TapeError> {
        let mut reader = Reader::new(tape);
        let count = reader.count()?;
        let mut history = History { messages: Vec::with_capacity(count), ..History::default() };
        for _ in 0..count {
            let message = history.read_message(&mut reader)?;
            history.messages.push(message);
        }
        reader.finish()?;
        Ok(history)
    }

    fn read_message(&mut self, tape: &mut Reader<'_>) -> Result<Message, TapeError> {
        match tape.read()? {
            code::UNTOUCHED => Ok(Message::Untouched),
            code::HOLE => Ok(Message::Hole),
            code::WITH_PARTS => {
                let top_level_text = match tape.read()? {
                    code::TEXT_ABSENT => TopLevelText::Absent,
                    code::TEXT => TopLevelText::Text,
                    code::TEXT_BLANK => TopLevelText::Blank,
                    code::TEXT_NOT_A_STRING => TopLevelText::NotAString,
                    code::TEXT_UNREAD => TopLevelText::Unread,
                    _ => return Err(tape.error()),
                };
                let part_count = tape.count()?;
                let parts = Slice { start: self.parts.len() as u32, len: part_count as u32 };
                for _ in 0..part_count {
                    let part = read_part(tape)?;
                    self.parts.push(part);
                }
                Ok(Message::WithParts { top_level_text, parts })
            }
            _ => Err(tape.error()),
        }
    }
}

fn read_part(tape: &mut Reader<'_>) -> Result<Part, TapeError> {
    match tape.read()? {
        code::PART_OTHER => Ok(Part::Other),
        code::HOLE => Ok(Part::Hole),
        code::PART_TOOL => {
            let state = match tape.read()? {
                code::STATE_OTHER => ToolState::Other,
                code::STATE_CALL => ToolState::Call,
                code::STATE_RESULT => ToolState::Result,
                _ => return Err(tape.error()),
            };
            let excluded = tape.read()? != 0;
            let call_id = tape.call_id()?;
            let model_output = match tape.read()? {
                code::NO_OUTPUT => None,
                code::OUTPUT => {
                    let start = tape.position();
                    tape.skip_node(0)?;
                    Some(start)
                }
                _ => return Err(tape.error()),
            };
            Ok(Part::Tool { state, excluded, call_id, model_output })
        }
        _ => Err(tape.error()),
    }
}

/// Step history kept between agent-loop steps (the reference keeps it in
/// `args.state`; the binding moves it in and out as interned ids).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct StepHistory {
    /// Every tool-call id seen in a response so far, first sighting first.
    pub seen: Vec<CallId>,
    /// For each step, the ids that first appeared in it.
    pub steps: Vec<Vec<CallId>>,
}

impl StepHistory {
    /// Records this step's response ids and returns the ids whose calls and
    /// results stay: those of the last `filterAfterToolSteps` tool-producing steps.
    pub fn advance(&mut self, response_ids: &[CallId], keep_steps: f64) -> CallIdSet {
        let mut seen: CallIdSet = self.seen.iter().copied().collect();
        let mut deduped_seen = Vec::with_capacity(seen.len());
        let mut first = CallIdSet::with_capacity_and_hasher(self.seen.len(), Default::default());
        for &id in &self.seen {
            if first.insert(id) {
                deduped_seen.push(id);
            }
        }

        let mut fresh = Vec::new();
        let mut in_response = CallIdSet::default();
        for &id in response_ids {
            if in_response.insert(id) && !seen.contains(&id) {
                fresh.push(id);
            }
        }
        for &id in &fresh {
            seen.insert(id);
            deduped_seen.push(id);
        }
        self.seen = deduped_seen;
        self.steps.push(fresh);
        recent_steps(&self.steps, keep_steps).iter().flatten().copied().collect()
    }
}

/// The tool-call ids of every tool part in a history, first sighting first,
/// skipping parts without a (truthy) id.
pub fn tool_call_ids(history: &History) -> Result<Vec<CallId>, FilterError> {
    let mut ids = Vec::new();
    let mut seen = CallIdSet::default();
    for (index, message) in history.messages.iter().enumerate() {
        if *message == Message::Hole {
            return Err(FilterError::MissingMessage { message: index });
        }
        if let Message::WithParts { parts, .. } = message {
            for part in history.parts(*parts) {
                if let Part::Tool { call_id: Some(id), .. } = part {
                    if seen.insert(*id) {
                        ids.push(*id);
                    }
                }
            }
        }
    }
    Ok(ids)
}

/// How many messages one tape may hold, or `None` for the whole history.
///
/// Without an exclude list every message is planned on its own, so a long
/// history may cross in runs: the binding then walks each run twice (to write
/// its tape, then to apply its plan) while its objects are still in the CPU's
/// caches, where a second walk over thousands of messages finds them evicted.
/// An exclude list removes the results of calls found anywhere in the
/// history, so that history crosses whole.
pub fn run_length(exclude: Exclude) -> Option<usize> {
    match exclude {
        Exclude::All | Exclude::Nothing => Some(RUN_MESSAGES),
        Exclude::Listed => None,
    }
}

/// Messages per run where a history may cross in runs: a few hundred
/// messages' objects fit in a core's own cache.
const RUN_MESSAGES: usize = 256;

/// What [`plan_tape`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum TapePlan {
    /// The plan: per message [`plan::KEEP`], [`plan::DROP`], or
    /// [`plan::REWRITE`] (or [`plan::ASK_TEXT`] and its table) followed by
    /// one action per part and the legacy directive; with an exclude list,
    /// then the legacy verdicts and the ids of the excluded tools' calls.
    Ready(Vec<i32>),
    /// JSON that the text of some model output may need: the binding fills
    /// in the slots these asks call for and plans again.
    NeedsJson(JsonAsks),
}

/// Parses a history tape and plans it in one go.
pub fn plan_tape(
    options: &MessageListOptions,
    exclude: Exclude,
    tape: &[i32],
    preserve: &CallIdSet,
) -> Result<TapePlan, FilterError> {
    let history = History::read(tape)?;
    plan_history(options, exclude, HistoryTape { tape, history: &history }, preserve)
}

/// A history tape and the [`History`] read from it: model outputs are read
/// from the tape.
#[derive(Clone, Copy)]
pub struct HistoryTape<'a> {
    pub tape: &'a [i32],
    pub history: &'a History,
}

/// Decides, for every message of `read`, whether it stays, goes or is
/// rebuilt.
pub fn plan_history(
    options: &MessageListOptions,
    exclude: Exclude,
    read: HistoryTape<'_>,
    preserve: &CallIdSet,
) -> Result<TapePlan, FilterError> {
    let HistoryTape { tape, history } = read;
    let messages = &history.messages;
    let mut planner = Planner {
        options,
        exclude,
        tape,
        history,
        preserve,
        excluded_ids: CallIdSet::default(),
        needed_json: JsonAsks::default(),
        // Without an exclude list only the kept steps keep an entry (see `legacy_entry_stays`).
        legacy: match exclude {
            Exclude::Listed => plan::LEGACY_TABLE,
            _ if preserve.is_empty() => plan::LEGACY_NONE_KEPT,
            _ => plan::LEGACY_HELD,
        },
    };
    let mut out = Vec::with_capacity(messages.len() + 8);
    match exclude {
        Exclude::Nothing => out.resize(messages.len(), plan::KEEP),
        Exclude::All => {
            for (index, message) in messages.iter().enumerate() {
                planner.message(index, message, &mut out)?;
            }
        }
        Exclude::Listed => {
            // A result goes with its call even when the result part itself names
            // no excluded tool, so collect the excluded calls' ids first.
            planner.excluded_ids = excluded_call_ids(history)?;
            for (index, message) in messages.iter().enumerate() {
                planner.message(index, message, &mut out)?;
            }
            out.extend(legacy_verdicts(exclude));
            let start = out.len();
            out.extend(&planner.excluded_ids);
            out[start..].sort_unstable();
        }
    }
    if !planner.needed_json.is_empty() {
        return Ok(TapePlan::NeedsJson(planner.needed_json));
    }
    Ok(TapePlan::Ready(out))
}

/// The ids of the calls to excluded tools in a history, which take their
/// results with them wherever those are.
fn excluded_call_ids(history: &History) -> Result<CallIdSet, FilterError> {
    let mut ids = CallIdSet::default();
    for (index, message) in history.messages.iter().enumerate() {
        if *message == Message::Hole {
            return Err(FilterError::MissingMessage { message: index });
        }
        if let Message::WithParts { parts, .. } = message {
            for part in history.parts(*parts) {
                if let Part::Tool { excluded: true, call_id: Some(id), .. } = part {
                    ids.insert(*id);
                }
            }
        }
    }
    Ok(ids)
}

struct Planner<'a> {
    options: &'a MessageListOptions,
    exclude: Exclude,
    tape: &'a [i32],
    history: &'a History,
    preserve: &'a CallIdSet,
    /// With an exclude list: the ids of calls to excluded tools.
    excluded_ids: CallIdSet,
    needed_json: JsonAsks,
    /// The legacy directive of every rebuilt message.
    legacy: i32,
}

impl Planner<'_> {
    fn message(&mut self, index: usize, message: &Message, out: &mut Vec<i32>) -> Result<(), FilterError> {
        let history = self.history;
        let &Message::WithParts { top_level_text, parts } = message else {
            out.push(if *message == Message::Hole { plan::DROP } else { plan::KEEP });
            return Ok(());
        };
        let parts = history.parts(parts);
        if !parts.iter().any(|part| matches!(part, Part::Tool { .. })) {
            out.push(plan::KEEP);
            return Ok(());
        }

        let listed = self.exclude == Exclude::Listed;
        let header = out.len();
        out.push(plan::REWRITE);
        let mut kept_parts = 0usize;
        for part in parts {
            let &Part::Tool { state, excluded, call_id, model_output } = part else {
                if *part == Part::Hole {
                    out.push(plan::PART_DROP);
                } else {
                    out.push(plan::PART_KEEP);
                    kept_parts += 1;
                }
                continue;
            };
            if call_id.is_some_and(|id| self.preserve.contains(&id)) {
                out.push(plan::PART_KEEP);
                kept_parts += 1;
                continue;
            }
            let goes = !listed
                || (state == ToolState::Call && excluded)
                || (state == ToolState::Result
                    && (excluded || call_id.is_some_and(|id| self.excluded_ids.contains(&id))));
            if !goes {
                out.push(plan::PART_KEEP);
                kept_parts += 1;
                continue;
            }
            let text_at = out.len();
            if let Some(position) =
                model_output.filter(|_| self.options.preserve_model_output && state == ToolState::Result)
            {
                out.extend([plan::PART_MODEL_OUTPUT, 0]);
                model_output_text(self.tape, position, out, &mut self.needed_json).map_err(|error| match error {
                    NodeError::Tape(error) => FilterError::Tape(error),
                    NodeError::TooDeep => FilterError::ModelOutputTooDeep { message: index },
                })?;
                let strings = out.len() - text_at - 2;
                if strings > 0 {
                    out[text_at + 1] = strings as i32;
                    kept_parts += 1;
                    continue;
                }
                out.truncate(text_at);
            }
            out.push(plan::PART_DROP);
        }

        if kept_parts == 0 {
            match top_level_text {
                TopLevelText::Text => {}
                // Read now, as the reference reads it. Without an exclude list
                // a non-blank text keeps the message; with one, a text that is
                // not the content's own never does, as the reference checks
                // again the copy it makes of the content, which lacks it.
                TopLevelText::Unread => {
                    let table = [code::TEXT_ABSENT, code::TEXT, code::TEXT_BLANK, code::TEXT_NOT_A_STRING]
                        .map(|text| if text == code::TEXT && !listed { plan::REWRITE } else { plan::DROP });
                    out[header] = plan::ASK_TEXT;
                    out.splice(header + 1..header + 1, table);
                    out.push(self.legacy);
                    return Ok(());
                }
                _ => {
                    out.truncate(header);
                    out.push(plan::DROP);
                    return Ok(());
                }
            }
        }

        out.push(self.legacy);
        // The reference trims `content.content` again at this point when filtering by
        // name, which throws for a truthy non-string.
        if listed && top_level_text == TopLevelText::NotAString {
            return Err(FilterError::NonStringTopLevelContent { message: index });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use crate::tool_call_filter::tape::{self, TapeError, MAX_NODE_DEPTH};

    /// Builds tapes the way the binding does, one message at a time.
    #[derive(Default)]
    struct HistoryTape {
        tape: Vec<i32>,
        count: i32,
    }

    /// A tool part: state (1 call, 2 result), excluded, call id, model output node.
    fn tool(state: i32, excluded: bool, id: i32, output: Option<Vec<i32>>) -> Vec<i32> {
        let mut part = vec![1, state, excluded as i32, id];
        match output {
            None => part.push(0),
            Some(node) => {
                part.push(1);
                part.extend(node);
            }
        }
        part
    }

    fn text_part() -> Vec<i32> {
        vec![0]
    }

    impl HistoryTape {
        fn untouched(mut self) -> Self {
            self.tape.push(0);
            self.count += 1;
            self
        }

        fn message(mut self, top_text: i32, parts: Vec<Vec<i32>>) -> Self {
            self.tape.extend([1, top_text, parts.len() as i32]);
            for part in parts {
                self.tape.extend(part);
            }
            self.count += 1;
            self
        }

        fn build(self) -> Vec<i32> {
            let mut tape = vec![self.count];
            tape.extend(self.tape);
            tape
        }
    }

    /// A plan under an exclude list: the messages' plan, the legacy verdicts and the excluded calls' ids.
    fn listed(messages: &[i32], excluded_ids: &[i32]) -> Vec<i32> {
        let mut plan = messages.to_vec();
        plan.extend(legacy_verdicts(Exclude::Listed));
        plan.extend_from_slice(excluded_ids);
        plan
    }

    fn options(exclude: Exclude, preserve_model_output: bool) -> (MessageListOptions, Exclude) {
        (MessageListOptions { preserve_model_output, filter_after_tool_steps: None }, exclude)
    }

    fn run(
        (options, exclude): (MessageListOptions, Exclude),
        tape: &[i32],
        preserve: &[CallId],
    ) -> Result<Vec<i32>, FilterError> {
        match plan_tape(&options, exclude, tape, &preserve.iter().copied().collect())? {
            TapePlan::Ready(plan) => Ok(plan),
            TapePlan::NeedsJson(slots) => panic!("needs JSON at {slots:?}"),
        }
    }

    #[test]
    fn exclude_all_drops_tool_only_messages_and_rewrites_mixed_ones() {
        let tape = HistoryTape::default()
            .untouched()
            .message(0, vec![text_part(), tool(1, false, 0, None)])
            .message(0, vec![tool(2, false, 0, None)])
            .message(0, vec![text_part()])
            .build();
        let plan = run(options(Exclude::All, false), &tape, &[]).unwrap();
        assert_eq!(plan, vec![plan::KEEP, plan::REWRITE, 0, 1, plan::LEGACY_NONE_KEPT, plan::DROP, plan::KEEP]);
    }

    #[test]
    fn top_level_text_keeps_an_emptied_message() {
        let tape = HistoryTape::default()
            .message(1, vec![tool(2, false, 0, None)])
            .message(2, vec![tool(2, false, 1, None)])
            .build();
        let plan = run(options(Exclude::All, false), &tape, &[]).unwrap();
        assert_eq!(plan, vec![plan::REWRITE, plan::PART_DROP, plan::LEGACY_NONE_KEPT, plan::DROP]);
    }

    #[test]
    fn an_unread_top_level_text_is_asked_for_only_where_it_decides() {
        // Not an own key: asked of an emptied message (a table by the text's
        // kind), never of one that keeps a part.
        let unread = code::TEXT_UNREAD;
        let tape = HistoryTape::default()
            .message(unread, vec![tool(2, false, 0, None), vec![2]])
            .message(unread, vec![text_part(), tool(2, false, 1, None)])
            .build();
        let plan = run(options(Exclude::All, false), &tape, &[]).unwrap();
        let table = [plan::DROP, plan::REWRITE, plan::DROP, plan::DROP];
        let mut expected = vec![plan::ASK_TEXT];
        expected.extend(table);
        expected.extend([
            plan::PART_DROP,
            plan::PART_DROP,
            plan::LEGACY_NONE_KEPT,
            plan::REWRITE,
            plan::PART_KEEP,
            plan::PART_DROP,
            plan::LEGACY_NONE_KEPT,
        ]);
        assert_eq!(plan, expected);
        // The table follows the kinds' codes.
        assert_eq!([code::TEXT_ABSENT, code::TEXT, code::TEXT_BLANK, code::TEXT_NOT_A_STRING], [0, 1, 2, 3]);
        // With an exclude list the reference checks its copy of the content too,
        // which lacks a key that is not the content's own: the message goes
        // whatever the text read.
        let tape = HistoryTape::default().message(unread, vec![tool(2, true, 0, None)]).build();
        assert_eq!(
            run(options(Exclude::Listed, false), &tape, &[]).unwrap(),
            listed(
                &[plan::ASK_TEXT, plan::DROP, plan::DROP, plan::DROP, plan::DROP, plan::PART_DROP, plan::LEGACY_TABLE],
                &[0]
            )
        );
        // Nor does an unread text fail a rebuilt message under an exclude list.
        let tape = HistoryTape::default().message(unread, vec![text_part(), tool(1, true, 0, None)]).build();
        assert_eq!(
            run(options(Exclude::Listed, false), &tape, &[]).unwrap(),
            listed(&[plan::REWRITE, plan::PART_KEEP, plan::PART_DROP, plan::LEGACY_TABLE], &[0])
        );
    }

    #[test]
    fn exclude_list_removes_results_of_excluded_calls_by_id() {
        // Call of an excluded tool in one message, its result (naming another tool)
        // in the next, and an unrelated call that stays.
        let tape = HistoryTape::default()
            .message(0, vec![tool(1, true, 7, None), tool(1, false, 8, None)])
            .message(0, vec![tool(2, false, 7, None)])
            .message(0, vec![tool(2, false, 8, None)])
            .build();
        let plan = run(options(Exclude::Listed, false), &tape, &[]).unwrap();
        assert_eq!(
            plan,
            listed(
                &[
                    plan::REWRITE,
                    plan::PART_DROP,
                    plan::PART_KEEP,
                    plan::LEGACY_TABLE,
                    plan::DROP,
                    plan::REWRITE,
                    plan::PART_KEEP,
                    plan::LEGACY_TABLE
                ],
                &[7]
            )
        );
    }

    #[test]
    fn exclude_list_keeps_calls_in_other_states() {
        // A 'partial-call' of an excluded tool is neither a call nor a result.
        let tape = HistoryTape::default().message(0, vec![tool(0, true, 1, None)]).build();
        let plan = run(options(Exclude::Listed, false), &tape, &[]).unwrap();
        assert_eq!(plan, listed(&[plan::REWRITE, plan::PART_KEEP, plan::LEGACY_TABLE], &[1]));
    }

    #[test]
    fn exclude_nothing_keeps_everything_without_reading_parts() {
        let tape = HistoryTape::default().message(0, vec![tool(1, true, 1, None)]).untouched().build();
        assert_eq!(run(options(Exclude::Nothing, false), &tape, &[]).unwrap(), vec![0, 0]);
    }

    /// A legacy tape: per list, the message's index and its entries.
    fn legacy_tape(lists: &[(i32, &[(i32, bool)])]) -> Vec<i32> {
        let mut tape = vec![lists.len() as i32];
        for (message, entries) in lists {
            tape.extend([*message, entries.len() as i32]);
            for (id, excluded) in *entries {
                tape.extend([*id, *excluded as i32]);
            }
        }
        tape
    }

    #[test]
    fn preserved_ids_survive_and_legacy_entries_follow_them() {
        let tape = HistoryTape::default().message(0, vec![tool(1, false, 0, None), tool(1, false, 1, None)]).build();
        // Without an exclude list the plan says the kept steps' ids keep an entry.
        let plan = run(options(Exclude::All, false), &tape, &[1]).unwrap();
        assert_eq!(plan, vec![plan::REWRITE, plan::PART_DROP, plan::PART_KEEP, plan::LEGACY_HELD]);
        let legacy = legacy_tape(&[(0, &[(0, false), (1, false), (-1, false)])]);
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::All, excluded_ids: &[], legacy: &legacy, preserve: &[1] }),
            Ok(vec![1, 1])
        );

        // With an exclude list the plan ends with the verdicts; no call is an excluded tool's.
        let plan = run(options(Exclude::Listed, false), &tape, &[]).unwrap();
        assert_eq!(plan, listed(&[plan::REWRITE, plan::PART_KEEP, plan::PART_KEEP, plan::LEGACY_TABLE], &[]));
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::Listed, excluded_ids: &[], legacy: &legacy, preserve: &[] }),
            Ok(vec![3, 0, 1, 2])
        );
    }

    #[test]
    fn legacy_entries_go_with_excluded_names_and_calls() {
        // Call 7 is an excluded tool's (the plan ends with it); entry 8 names one itself.
        let tape = HistoryTape::default().message(0, vec![text_part(), tool(1, true, 7, None)]).build();
        let plan = run(options(Exclude::Listed, false), &tape, &[]).unwrap();
        assert_eq!(plan, listed(&[plan::REWRITE, plan::PART_KEEP, plan::PART_DROP, plan::LEGACY_TABLE], &[7]));
        let legacy = legacy_tape(&[(0, &[(7, false), (8, true), (9, false)]), (3, &[]), (4, &[(7, false)])]);
        assert_eq!(
            plan_legacy(LegacyRun {
                exclude: Exclude::Listed,
                excluded_ids: &plan[12..],
                legacy: &legacy,
                preserve: &[]
            }),
            Ok(vec![1, 2, 0, 0])
        );
        // The verdicts, by an entry's bits: held by the kept steps, an excluded call's, an excluded name.
        let [h, c, n] = [plan::LEGACY_HELD_BY_STEPS, plan::LEGACY_EXCLUDED_CALL, plan::LEGACY_EXCLUDED_NAME];
        let verdicts = legacy_verdicts(Exclude::Listed);
        assert_eq!([verdicts[0], verdicts[n], verdicts[c], verdicts[c | n]], [1, 0, 0, 0]);
        assert_eq!([verdicts[h], verdicts[h | n], verdicts[h | c], verdicts[h | c | n]], [1, 1, 1, 1]);
        assert_eq!(legacy_verdicts(Exclude::All), [0, 0, 0, 0, 1, 1, 1, 1]);
        // The kept steps hold on to any entry.
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::Listed, excluded_ids: &[7], legacy: &legacy, preserve: &[7, 8] }),
            Ok(vec![3, 0, 1, 2, 0, 1, 0])
        );
        // However many: past a few they are looked up in a set.
        let many: Vec<CallId> = (7..40).collect();
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::Listed, excluded_ids: &[7], legacy: &legacy, preserve: &many }),
            Ok(vec![3, 0, 1, 2, 0, 1, 0])
        );
        // The excluded ids come sorted, as the plan ends with them; else the tape is broken.
        assert!(matches!(
            plan_legacy(LegacyRun { exclude: Exclude::Listed, excluded_ids: &[9, 7], legacy: &legacy, preserve: &[] }),
            Err(FilterError::Tape(_))
        ));
        // Every entry goes without an exclude list.
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::All, excluded_ids: &[], legacy: &legacy, preserve: &[] }),
            Ok(vec![0, 0, 0])
        );
        // Which the plan says without asking.
        let plan = run(options(Exclude::All, false), &tape, &[]).unwrap();
        assert_eq!(plan, vec![plan::REWRITE, plan::PART_KEEP, plan::PART_DROP, plan::LEGACY_NONE_KEPT]);
    }

    #[test]
    fn a_null_legacy_entry_fails_the_rebuilt_message_and_a_hole_is_skipped() {
        let null = legacy_tape(&[(0, &[(0, false)]), (5, &[(code::LEGACY_NULL, false)])]);
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::All, excluded_ids: &[], legacy: &null, preserve: &[] }),
            Err(FilterError::NullLegacyInvocation { message: 5 })
        );
        let hole = legacy_tape(&[(0, &[(code::LEGACY_HOLE, false), (0, false)])]);
        assert_eq!(
            plan_legacy(LegacyRun { exclude: Exclude::All, excluded_ids: &[], legacy: &hole, preserve: &[0] }),
            Ok(vec![1, 1])
        );
    }

    #[test]
    fn broken_legacy_tapes_are_errors_not_panics() {
        for legacy in [vec![], vec![1], vec![1, -1, 0], vec![1, 0, 2, 0, 0], vec![2, 0, 0], vec![0, 0]] {
            for exclude in [Exclude::All, Exclude::Listed] {
                assert!(matches!(
                    plan_legacy(LegacyRun { exclude, excluded_ids: &[3], legacy: &legacy, preserve: &[] }),
                    Err(FilterError::Tape(TapeError { .. }))
                ));
            }
        }
    }

    #[test]
    fn non_string_top_level_content_fails_a_rebuilt_message_under_an_exclude_list() {
        let tape = HistoryTape::default().message(3, vec![text_part(), tool(1, true, 0, None)]).build();
        assert_eq!(
            run(options(Exclude::Listed, false), &tape, &[]),
            Err(FilterError::NonStringTopLevelContent { message: 0 })
        );
        assert_eq!(
            run(options(Exclude::All, false), &tape, &[]).unwrap(),
            vec![plan::REWRITE, 0, 1, plan::LEGACY_NONE_KEPT]
        );
    }

    #[test]
    fn model_output_replaces_only_results() {
        let output = Some(vec![1, 5, 1]);
        let tape = HistoryTape::default()
            .message(0, vec![tool(1, false, 0, output.clone()), tool(2, false, 0, output)])
            .build();
        let plan = run(options(Exclude::All, true), &tape, &[]).unwrap();
        assert_eq!(plan, vec![plan::REWRITE, plan::PART_DROP, plan::PART_MODEL_OUTPUT, 1, 5, plan::LEGACY_NONE_KEPT]);
        // Without the option the same tape drops the result.
        let plan = run(options(Exclude::All, false), &tape, &[]).unwrap();
        assert_eq!(plan, vec![plan::DROP]);
    }

    fn output_strings(node: Vec<i32>) -> Option<Vec<i32>> {
        let mut out = Vec::new();
        let mut needed = tape::JsonAsks::default();
        tape::model_output_text(&node, 0, &mut out, &mut needed).unwrap();
        assert!(needed.is_empty());
        (!out.is_empty()).then_some(out)
    }

    #[test]
    fn model_output_text_follows_the_reference_preferences() {
        // '' -> nothing; 'x' -> itself; 5 -> String(5).
        assert_eq!(output_strings(vec![1, 0, 0]), None);
        assert_eq!(output_strings(vec![1, 3, 1]), Some(vec![3]));
        assert_eq!(output_strings(vec![4, 9]), Some(vec![9]));
        // Array of '', 'a', null, 7 -> 'a\n7'; array of '' only -> its JSON.
        assert_eq!(output_strings(vec![2, 20, 4, 1, 0, 0, 1, 1, 1, 0, 4, 2]), Some(vec![1, 2]));
        assert_eq!(output_strings(vec![2, 20, 1, 1, 0, 0]), Some(vec![20]));
        // Array whose JSON failed and whose parts are empty -> nothing.
        assert_eq!(output_strings(vec![2, -1, 1, 0]), None);
        // { type: 'text', value: 'v', text: 't' } -> 'v'.
        assert_eq!(output_strings(vec![3, 0b11, 30, 31, 1, 1, 32, 1]), Some(vec![32]));
        // { type: 'text', value: 5, text: 't' } -> 't' (value must be a string).
        assert_eq!(output_strings(vec![3, 0b11, 30, 31, 1, 4, 33]), Some(vec![31]));
        // { type: 'text', value: '', text: 't' } -> '' (stops at the empty value).
        assert_eq!(output_strings(vec![3, 0b11, 30, 31, 1, 1, 32, 0]), None);
        // { value: { text: 't' } } -> 't'; { value: undefined, text: 't' } -> nothing.
        assert_eq!(output_strings(vec![3, 0b10, 30, -1, 0, 3, 0, 40, 41, 1]), Some(vec![41]));
        assert_eq!(output_strings(vec![3, 0b10, 30, 31, 1, 0]), None);
        // { text: 5, other: 1 } -> its JSON; { type: 'json' } whose JSON failed -> nothing.
        assert_eq!(output_strings(vec![3, 0, 50, -1, 0]), Some(vec![50]));
        assert_eq!(output_strings(vec![3, 0, -1, -1, 0]), None);
    }

    #[test]
    fn broken_tapes_are_errors_not_panics() {
        for tape in [vec![], vec![1], vec![1, 9], vec![2, 0], vec![1, 1, 0, 5], vec![1, 0, 0], vec![-1]] {
            assert!(matches!(run(options(Exclude::All, true), &tape, &[]), Err(FilterError::Tape(TapeError { .. }))));
        }
    }

    #[test]
    fn model_outputs_nest_to_any_depth_the_binding_writes() {
        // 100,000 arrays around a string (the reference overflows its stack near
        // 2,500): read and stepped over without recursion.
        let nested = |depth: usize| {
            let mut node = Vec::with_capacity(depth * 3 + 3);
            for _ in 0..depth {
                node.extend([2, -1, 1]);
            }
            node.extend([1, 7, 1]);
            node
        };
        let tape = HistoryTape::default().message(0, vec![tool(2, false, 0, Some(nested(100_000)))]).build();
        assert_eq!(
            run(options(Exclude::All, true), &tape, &[]).unwrap(),
            vec![plan::REWRITE, plan::PART_MODEL_OUTPUT, 1, 7, plan::LEGACY_NONE_KEPT]
        );
        let kept = HistoryTape::default().message(0, vec![tool(2, false, 0, Some(nested(100_000)))]).build();
        assert_eq!(
            run(options(Exclude::Listed, true), &kept, &[]).unwrap(),
            listed(&[plan::REWRITE, plan::PART_KEEP, plan::LEGACY_TABLE], &[])
        );
        // Past MAX_NODE_DEPTH, which the binding never writes, the output is too deep.
        let past = HistoryTape::default().message(0, vec![tool(2, false, 0, Some(nested(MAX_NODE_DEPTH + 1)))]).build();
        assert_eq!(run(options(Exclude::All, true), &past, &[]), Err(FilterError::ModelOutputTooDeep { message: 0 }));
    }

    #[test]
    fn a_model_output_that_cannot_be_read_fails_only_when_its_text_is_needed() {
        // Node 5: the binding found a cycle or too much depth.
        let poisoned = || Some(vec![2, -2, 1, 5]);
        let kept = HistoryTape::default().message(0, vec![tool(2, false, 0, poisoned())]).build();
        assert_eq!(
            run(options(Exclude::Listed, true), &kept, &[]).unwrap(),
            listed(&[plan::REWRITE, plan::PART_KEEP, plan::LEGACY_TABLE], &[])
        );
        let replaced = HistoryTape::default().message(0, vec![tool(2, true, 0, poisoned())]).build();
        assert_eq!(
            run(options(Exclude::Listed, true), &replaced, &[]),
            Err(FilterError::ModelOutputTooDeep { message: 0 })
        );
        // `{ type: 'text', value: <cycle>, text: 't' }` answers with its text without reading the value.
        let text_first =
            HistoryTape::default().message(0, vec![tool(2, false, 0, Some(vec![3, 0b11, -1, 7, 1, 5]))]).build();
        assert_eq!(
            run(options(Exclude::All, true), &text_first, &[]).unwrap(),
            vec![plan::REWRITE, plan::PART_MODEL_OUTPUT, 1, 7, plan::LEGACY_NONE_KEPT]
        );
        // ... and the items after it are still read from the right place:
        // [{ type: 'text', value: { a: 1 }, text: 't' }, 'u'] -> 't\nu'.
        assert_eq!(output_strings(vec![2, -2, 2, 3, 0b11, -1, 7, 1, 3, 0, 8, -1, 0, 1, 9, 1]), Some(vec![7, 9]));
    }

    #[test]
    fn holes_of_sparse_arrays_are_skipped() {
        // A hole in the history, a hole among parts (among legacy entries: see
        // `a_null_legacy_entry_fails_the_rebuilt_message_and_a_hole_is_skipped`).
        let mut tape = HistoryTape::default().message(0, vec![vec![2], text_part(), tool(1, false, 0, None)]).build();
        tape[0] += 1;
        tape.push(2);
        let plan = run(options(Exclude::All, false), &tape, &[0]).unwrap();
        assert_eq!(
            plan,
            vec![plan::REWRITE, plan::PART_DROP, plan::PART_KEEP, plan::PART_KEEP, plan::LEGACY_HELD, plan::DROP]
        );
        // The exclude-list pass and the response walk use `for...of`, which yields the hole.
        assert_eq!(run(options(Exclude::Listed, false), &tape, &[0]), Err(FilterError::MissingMessage { message: 1 }));
        assert_eq!(
            tool_call_ids(&super::History::read(&tape).unwrap()),
            Err(FilterError::MissingMessage { message: 1 })
        );
    }

    #[test]
    fn step_history_keeps_the_most_recent_tool_steps() {
        let mut history = StepHistory::default();
        assert_eq!(history.advance(&[1, 2], 2.0), CallIdSet::from_iter([1, 2]));
        assert_eq!(history.advance(&[2, 3], 2.0), CallIdSet::from_iter([1, 2, 3]));
        assert_eq!(history.advance(&[], 2.0), CallIdSet::from_iter([3]));
        assert_eq!(history.seen, vec![1, 2, 3]);
        assert_eq!(history.steps, vec![vec![1, 2], vec![3], vec![]]);
        assert_eq!(history.clone().advance(&[4], 0.0), CallIdSet::default());
        assert_eq!(history.clone().advance(&[4], -3.0), CallIdSet::default());
        // slice(-NaN) and slice(-0.5) keep every step; slice(-1.5) keeps one.
        assert_eq!(history.clone().advance(&[4], f64::NAN), CallIdSet::from_iter([1, 2, 3, 4]));
        assert_eq!(history.clone().advance(&[4], 0.5), CallIdSet::from_iter([1, 2, 3, 4]));
        assert_eq!(history.clone().advance(&[4], 1.5), CallIdSet::from_iter([4]));
        assert_eq!(history.clone().advance(&[4], f64::INFINITY), CallIdSet::from_iter([1, 2, 3, 4]));
    }

    #[test]
    fn tool_call_ids_are_unique_in_first_seen_order() {
        let tape = HistoryTape::default()
            .message(0, vec![tool(1, false, 5, None), tool(2, false, -1, None), tool(2, false, 3, None)])
            .untouched()
            .message(0, vec![tool(2, false, 5, None), text_part()])
            .build();
        assert_eq!(tool_call_ids(&super::History::read(&tape).unwrap()), Ok(vec![5, 3]));
    }

    fn plan_with((options, exclude): (MessageListOptions, Exclude), tape: &[i32]) -> Result<TapePlan, FilterError> {
        plan_tape(&options, exclude, tape, &CallIdSet::default())
    }

    #[test]
    fn array_json_is_asked_for_only_when_no_item_has_text() {
        // ['', null] with its JSON not computed: the slot (position 10) is needed.
        let tape = HistoryTape::default().message(0, vec![tool(2, false, 0, Some(vec![2, -2, 2, 1, 0, 0, 0]))]).build();
        let ask = tape::JsonAsk { slot: Some(10), around: None, inside: 0 };
        assert_eq!(plan_with(options(Exclude::All, true), &tape), Ok(TapePlan::NeedsJson(tape::JsonAsks(vec![ask]))));
        // ['x'] never needs it.
        let tape = HistoryTape::default().message(0, vec![tool(2, false, 0, Some(vec![2, -2, 1, 1, 4, 1]))]).build();
        assert_eq!(
            plan_with(options(Exclude::All, true), &tape),
            Ok(TapePlan::Ready(vec![plan::REWRITE, plan::PART_MODEL_OUTPUT, 1, 4, plan::LEGACY_NONE_KEPT]))
        );
    }

    /// A small number, often a valid tape symbol.
    fn small(rng: &mut Rng) -> i32 {
        (rng.next() % 9) as i32 - 4
    }

    #[test]
    fn arbitrary_tapes_give_plans_or_errors_never_panics() {
        // Short tapes of small numbers hit every branch of the grammar, valid or not.
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        let all_options = [
            options(Exclude::All, false),
            options(Exclude::All, true),
            options(Exclude::Listed, true),
            options(Exclude::Nothing, false),
        ];
        let mut planned = 0;
        for _ in 0..50_000 {
            let len = (rng.next() % 24) as usize;
            let mut tape: Vec<i32> = (0..len).map(|_| small(&mut rng)).collect();
            if let Some(first) = tape.first_mut() {
                *first = first.abs() % 3;
            }
            let preserve: CallIdSet = (0..3).map(|_| small(&mut rng)).collect();
            for options in &all_options {
                if let Ok(TapePlan::Ready(plan)) = plan_tape(&options.0, options.1, &tape, &preserve) {
                    // The plan is never longer than the tape and the legacy verdicts: the binding's buffer relies on it.
                    assert!(plan.len() <= tape.len() + plan::LEGACY_VERDICTS, "{tape:?} gave {plan:?}");
                    planned += 1;
                }
            }
            let _ = super::History::read(&tape).map(|history| tool_call_ids(&history));
        }
        assert!(planned > 1_000, "too few valid tapes to mean anything: {planned}");
    }

    #[test]
    fn without_an_exclude_list_a_history_planned_in_runs_gives_the_whole_plan() {
        assert_eq!(run_length(Exclude::Listed), None);
        let run_messages = run_length(Exclude::All).unwrap();
        assert!(run_messages > 0);

        // Messages, each a tape of its own: untouched, tool-only, mixed with an unread text, a kept call.
        let messages: Vec<Vec<i32>> = vec![
            HistoryTape::default().untouched().build(),
            HistoryTape::default().message(0, vec![tool(2, false, 0, None)]).build(),
            HistoryTape::default()
                .message(code::TEXT_UNREAD, vec![text_part(), tool(2, false, 1, Some(vec![1, 7, 1]))])
                .build(),
            HistoryTape::default().message(code::TEXT_UNREAD, vec![tool(1, false, 2, None)]).build(),
        ];
        let whole = |indexes: &[usize]| {
            let mut tape = vec![indexes.len() as i32];
            for &i in indexes {
                tape.extend_from_slice(&messages[i][1..]);
            }
            tape
        };
        let history: Vec<usize> = (0..2 * run_messages + 3).map(|i| i % messages.len()).collect();
        for preserve_model_output in [false, true] {
            let options = options(Exclude::All, preserve_model_output);
            let expected = run(options, &whole(&history), &[2]).unwrap();
            let mut in_runs = Vec::new();
            for chunk in history.chunks(run_messages) {
                in_runs.extend(run(options, &whole(chunk), &[2]).unwrap());
            }
            assert_eq!(in_runs, expected);
        }
    }

    #[test]
    fn errors_of_a_run_name_the_message_in_the_whole_history() {
        let error = FilterError::NullLegacyInvocation { message: 3 };
        assert_eq!(error.from_message(256), FilterError::NullLegacyInvocation { message: 259 });
        assert_eq!(FilterError::StepsOff.from_message(5), FilterError::StepsOff);
    }
}
