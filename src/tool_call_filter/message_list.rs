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
//! that is not rewritten.

use super::prompt::PlanSink;
use super::tape::{model_output_text, JsonAsks, NodeError, Reader, TapeError};
use super::{plan, recent_steps, CallId, CallIdSet, Exclude, FilterError};

/// The codes of the message-list tape (declared in the protocol).
pub use crate::protocol::tool_call_filter::message_list as code;
/// Where the filter keeps, in the processor's per-request `state`, every
/// tool-call id seen in a step's response so far, and per step the ids that
/// first appeared in it.
pub use crate::protocol::tool_call_filter::state_keys::{SEEN as SEEN_STATE_KEY, STEPS as STEPS_STATE_KEY};

/// The constructor options, converted once at the edge.
#[derive(Clone, Copy, Debug)]
pub struct Options {
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
    options: &Options,
    exclude: Exclude,
    tape: &[i32],
    preserve: &CallIdSet,
) -> Result<TapePlan, FilterError> {
    let history = History::read(tape)?;
    plan_history(options, exclude, tape, &history, preserve)
}

/// Decides, for every message, whether it stays, goes or is rebuilt. `tape`
/// is the tape `history` was read from (model outputs are read from it).
pub fn plan_history(
    options: &Options,
    exclude: Exclude,
    tape: &[i32],
    history: &History,
    preserve: &CallIdSet,
) -> Result<TapePlan, FilterError> {
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

/// Whether an entry of a rebuilt message's legacy `content.toolInvocations`
/// stays: the reference keeps one whose id the kept steps hold, or, with an
/// exclude list, one that names no excluded tool and whose call is not an
/// excluded tool's.
pub fn legacy_entry_stays(exclude: Exclude, held: bool, excluded_call: bool, excluded_name: bool) -> bool {
    held || (exclude == Exclude::Listed && !excluded_name && !excluded_call)
}

/// [`legacy_entry_stays`] for every entry's bits, as the plan ends with it
/// (see [`plan::LEGACY_VERDICTS`]): the binding looks each entry up.
pub fn legacy_verdicts(exclude: Exclude) -> [i32; plan::LEGACY_VERDICTS] {
    std::array::from_fn(|bits| {
        let has = |bit: usize| bits & bit != 0;
        let stays = legacy_entry_stays(
            exclude,
            has(plan::LEGACY_HELD_BY_STEPS),
            has(plan::LEGACY_EXCLUDED_CALL),
            has(plan::LEGACY_EXCLUDED_NAME),
        );
        i32::from(stays)
    })
}

/// The kept entries of the legacy lists of the rebuilt messages of a run,
/// read on their own tape (see the module docs) once the run's plan said
/// which messages are rebuilt: per list, the count of entries that stay,
/// then their positions. `excluded_ids` are the excluded tools' call ids the
/// plan ended with (with an exclude list; sorted, as the plan has them), and
/// `preserve` the ids the kept steps hold. The binding asks this only of a
/// list with a `null` entry, which fails; it looks the others up in the
/// plan's verdicts ([`legacy_verdicts`]).
pub fn plan_legacy(
    exclude: Exclude,
    excluded_ids: &[CallId],
    legacy: &[i32],
    preserve: &[CallId],
) -> Result<Vec<i32>, FilterError> {
    let mut out = Vec::with_capacity(legacy.len());
    plan_legacy_into(exclude, excluded_ids, legacy, preserve, &mut out)?;
    Ok(out)
}

/// [`plan_legacy`] into the binding's answer buffer. It builds no set: a
/// run's excluded ids are searched sorted, and the few ids the kept steps
/// hold one by one.
pub fn plan_legacy_into(
    exclude: Exclude,
    excluded_ids: &[CallId],
    legacy: &[i32],
    preserve: &[CallId],
    out: &mut impl PlanSink,
) -> Result<(), FilterError> {
    let listed = exclude == Exclude::Listed;
    if listed && excluded_ids.windows(2).any(|pair| pair[0] > pair[1]) {
        return Err(FilterError::Tape(TapeError { position: 0 }));
    }
    let many = preserve.len() > PRESERVE_SCANNED;
    let preserve_set: CallIdSet = if many { preserve.iter().copied().collect() } else { CallIdSet::default() };
    let preserved = |id: CallId| if many { preserve_set.contains(&id) } else { preserve.contains(&id) };
    let broken = |position: usize| FilterError::Tape(TapeError { position });
    let (&lists, mut rest) = legacy.split_first().ok_or(broken(0))?;
    let lists = usize::try_from(lists).map_err(|_| broken(0))?;
    for _ in 0..lists {
        let at = legacy.len() - rest.len();
        let (message, count, tail) = match *rest {
            [message, count, ref tail @ ..] => (message, count, tail),
            _ => return Err(broken(at)),
        };
        let message = usize::try_from(message).map_err(|_| broken(at))?;
        let entries = usize::try_from(count).ok().and_then(|count| tail.get(..count.checked_mul(2)?));
        let entries = entries.ok_or(broken(at + 1))?;
        rest = &tail[entries.len()..];
        let count_at = out.len();
        out.push(0);
        let mut kept = 0;
        for (position, entry) in entries.chunks_exact(2).enumerate() {
            let call_id = match entry[0] {
                // `filter` skips the holes of a sparse array.
                code::LEGACY_HOLE => continue,
                code::LEGACY_NULL => return Err(FilterError::NullLegacyInvocation { message }),
                id => (id >= 0).then_some(id),
            };
            let excluded = entry[1] != 0;
            let excluded_call = listed && call_id.is_some_and(|id| excluded_ids.binary_search(&id).is_ok());
            let stays = legacy_entry_stays(exclude, call_id.is_some_and(preserved), excluded_call, excluded);
            if stays {
                out.push(position as i32);
                kept += 1;
            }
        }
        out.set(count_at, kept);
    }
    if !rest.is_empty() {
        return Err(broken(legacy.len() - rest.len()));
    }
    Ok(())
}

/// How many ids the kept steps may hold before [`plan_legacy_into`] puts
/// them in a set: a step keeps a few calls.
const PRESERVE_SCANNED: usize = 16;

struct Planner<'a> {
    options: &'a Options,
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
#[path = "message_list_tests.rs"]
mod tests;
