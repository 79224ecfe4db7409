//! Target `prompt_tape`: `prompt::filter` (the filter of Mastra 1.60 on),
//! driven through the same rounds as `processLLMRequest` in
//! `lib/tool-call-filter/prompt.js`: the prompt tape with an optional history
//! table, then, if asked, the outputs tape, then, if asked, again with its
//! JSON filled in; and once more with the outputs written ahead, as the
//! binding writes them under the rule of 1.68 and later, which must give the
//! same plan.
//!
//! Structured inputs are prompts as `writePrompt` writes them (ids interned
//! in prompt order, or, as when the binding starts from a recorded history's
//! ids, in any order below the history table's length), outputs as
//! `writeModelOutput` writes them; raw inputs
//! are arbitrary tapes. A small parser of its own here reads the prompt
//! grammar independently: the core must refuse exactly the tapes it refuses,
//! and fail only where the history table does not fit or a string content
//! stands where steps are counted. Every answer must be one the binding can
//! follow: requested outputs are removed results that exist, in order; JSON
//! requests name slots left for later and come only once; a plan has one
//! action per message and per part, leaves system and user messages alone,
//! moves calls and results as pairs, and each text carries exactly the
//! strings of the last requested result of its call that has any (by the
//! oracle in [`crate::model_output`]).

use std::collections::HashMap;

use mastra_native_processors::releases::PreservedResults;
use mastra_native_processors::tool_call_filter::prompt::{
    code, filter_into, input, Answer, Decision, Input, PromptOptions,
};
use mastra_native_processors::tool_call_filter::{keeps_any_step, plan, Exclude, FilterError};

use crate::gen::{flag, int, js_number, one_in, pick, raw_tape, size, tape_value, Cursor, Strings, U};
use crate::model_output::{self, decode, encode, gen_node, Text};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Other,
    Call,
    Result,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub kind: Kind,
    pub id: Option<u32>,
    pub excluded: bool,
    pub own_output: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A system or user message.
    Pass,
    Parts {
        assistant: bool,
        parts: Vec<Part>,
    },
    Text {
        assistant: bool,
        empty: bool,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    pub messages: Vec<Message>,
    /// One more than the largest call id.
    pub id_count: usize,
}

impl Prompt {
    fn parts(&self, message: usize) -> &[Part] {
        match &self.messages[message] {
            Message::Parts { parts, .. } => parts,
            _ => &[],
        }
    }

    fn part(&self, message: i32, part: i32) -> Option<&Part> {
        match self.messages.get(usize::try_from(message).ok()?)? {
            Message::Parts { parts, .. } => parts.get(usize::try_from(part).ok()?),
            _ => None,
        }
    }
}

/// A prompt as the binding writes it.
pub fn gen_prompt(u: &mut U<'_>) -> Prompt {
    let mut prompt = Prompt::default();
    for _ in 0..size(u, 0, 10) {
        let assistant = !one_in(u, 3);
        let message = match int(u, 0, 7) {
            0 => Message::Pass,
            1 => Message::Text { assistant, empty: flag(u) },
            _ => {
                let mut parts = Vec::new();
                for _ in 0..size(u, 0, 5) {
                    let kind = pick(u, &[Kind::Other, Kind::Call, Kind::Call, Kind::Result, Kind::Result]);
                    if kind == Kind::Other {
                        parts.push(Part { kind, id: None, excluded: false, own_output: false });
                        continue;
                    }
                    // Ids are interned in prompt order: an id is one seen before or the next.
                    let id = if one_in(u, 10) {
                        None
                    } else {
                        let id = size(u, 0, prompt.id_count);
                        prompt.id_count = prompt.id_count.max(id + 1);
                        Some(id as u32)
                    };
                    let own_output = kind == Kind::Result && flag(u);
                    parts.push(Part { kind, id, excluded: flag(u), own_output });
                }
                Message::Parts { assistant, parts }
            }
        };
        prompt.messages.push(message);
    }
    prompt
}

/// Renumbers the prompt's ids as the binding numbers them when it starts
/// from a recorded history: the history's ids first, in their recorded
/// order, which need not be the prompt's, some of them no longer in it.
/// Returns the number of ids, the history table's length.
pub fn seed_ids(u: &mut U<'_>, prompt: &mut Prompt) -> usize {
    let count = prompt.id_count + size(u, 0, 4);
    let mut order: Vec<u32> = (0..count as u32).collect();
    for i in (1..count).rev() {
        order.swap(i, size(u, 0, i));
    }
    for message in &mut prompt.messages {
        if let Message::Parts { parts, .. } = message {
            for part in parts {
                part.id = part.id.map(|id| order[id as usize]);
            }
        }
    }
    prompt.id_count = count;
    count
}

pub fn encode_prompt(prompt: &Prompt) -> Vec<i32> {
    let mut tape = vec![prompt.messages.len() as i32];
    let flag = |set: bool, code: i32| if set { code } else { 0 };
    for message in &prompt.messages {
        match message {
            Message::Pass => tape.push(code::PASS),
            Message::Text { assistant, empty } => {
                tape.push(code::TEXT_CONTENT | flag(*assistant, code::ASSISTANT) | flag(*empty, code::EMPTY))
            }
            Message::Parts { assistant, parts } => {
                tape.extend([code::PARTS | flag(*assistant, code::ASSISTANT), parts.len() as i32]);
                for part in parts {
                    let id = part.id.map_or(0, |id| (id as i32 + 1) * code::CALL_ID_UNIT);
                    let excluded = flag(part.excluded, code::EXCLUDED);
                    tape.push(match part.kind {
                        Kind::Other => code::PART_OTHER,
                        Kind::Call => code::TOOL_CALL | excluded | id,
                        Kind::Result => code::TOOL_RESULT | excluded | flag(part.own_output, code::OWN_OUTPUT) | id,
                    });
                }
            }
        }
    }
    tape
}

/// The grammar at the top of `prompt.rs`, read independently of the core:
/// ids in prompt order, or, given `table_ids` (a history table's length),
/// any below it.
pub fn parse_prompt(tape: &[i32], table_ids: Option<usize>) -> Option<Prompt> {
    let mut at = 0usize;
    let next = |at: &mut usize| {
        let value = tape.get(*at).copied()?;
        *at += 1;
        Some(value)
    };
    let count = |at: &mut usize| {
        let value = usize::try_from(next(at)?).ok()?;
        (value <= tape.len() - *at).then_some(value)
    };
    let mut prompt = Prompt { id_count: table_ids.unwrap_or(0), ..Prompt::default() };
    for _ in 0..count(&mut at)? {
        let head = next(&mut at)?;
        let assistant = head & code::ASSISTANT != 0;
        let message = if head == code::PASS {
            Message::Pass
        } else if head & !code::ASSISTANT == code::TEXT_CONTENT
            || head & !code::ASSISTANT == code::TEXT_CONTENT | code::EMPTY
        {
            Message::Text { assistant, empty: head & code::EMPTY != 0 }
        } else if head & !code::ASSISTANT == code::PARTS {
            let mut parts = Vec::new();
            for _ in 0..count(&mut at)? {
                let value = next(&mut at)?;
                if value == code::PART_OTHER {
                    parts.push(Part { kind: Kind::Other, id: None, excluded: false, own_output: false });
                    continue;
                }
                // Below the call id: the kind and its flags.
                let low = value.rem_euclid(code::CALL_ID_UNIT);
                let (kind, own_output) = match low & !code::EXCLUDED {
                    k if k == code::TOOL_CALL => (Kind::Call, false),
                    k if k == code::TOOL_RESULT => (Kind::Result, false),
                    k if k == code::TOOL_RESULT | code::OWN_OUTPUT => (Kind::Result, true),
                    _ => return None,
                };
                if value < 0 {
                    return None;
                }
                let id = match value / code::CALL_ID_UNIT {
                    0 => None,
                    field => {
                        let id = (field - 1) as usize;
                        // Seen before or the next; or one of the table's.
                        let bound = if table_ids.is_some() { prompt.id_count } else { prompt.id_count + 1 };
                        if id >= bound {
                            return None;
                        }
                        prompt.id_count = prompt.id_count.max(id + 1);
                        Some(id as u32)
                    }
                };
                parts.push(Part { kind, id, excluded: low & code::EXCLUDED != 0, own_output });
            }
            Message::Parts { assistant, parts }
        } else {
            return None;
        };
        prompt.messages.push(message);
    }
    (at == tape.len()).then_some(prompt)
}

/// How a request's answers are checked: each ask reads the prompt again
/// with the outputs so far, as the binding does.
struct Round<'a> {
    options: &'a PromptOptions,
    exclude: Exclude,
    tape: &'a [i32],
    history: Option<&'a [i32]>,
}

/// The binding's input buffer for a round (see `prompt::input`), with an
/// exclude list of `list_length` names where one is listed.
fn encode_input(round: &Round<'_>, outputs: Option<&[i32]>, ahead: bool, list_length: i32) -> Vec<i32> {
    let mut buffer = vec![0; input::HEAD];
    let flag = |set: bool, code: i32| if set { code } else { 0 };
    buffer[input::FLAGS] = flag(round.options.preserve_model_output, input::PRESERVE_MODEL_OUTPUT)
        | flag(round.options.preserved_results == PreservedResults::Every, input::EVERY_RESULT)
        | flag(ahead, input::OUTPUTS_AHEAD);
    buffer[input::EXCLUDE_LENGTH] = match round.exclude {
        Exclude::All => input::ABSENT,
        Exclude::Listed => list_length,
        Exclude::Nothing => 0,
    };
    let length = |part: Option<&[i32]>| part.map_or(input::ABSENT, |part| part.len() as i32);
    buffer[input::TAPE_LENGTH] = round.tape.len() as i32;
    buffer[input::HISTORY_LENGTH] = length(round.history);
    buffer[input::OUTPUTS_LENGTH] = length(outputs);
    for part in [Some(round.tape), round.history, outputs].into_iter().flatten() {
        buffer.extend_from_slice(part);
    }
    buffer
}

/// An input buffer read as the head says: its parts follow the head, each as
/// long as its length, or it is refused.
fn check_raw_input(buffer: &[i32]) {
    let Ok(read) = Input::read(buffer) else { return };
    let lengths =
        [Some(read.tape), read.history, read.outputs].map(|part| part.map_or(input::ABSENT, |p| p.len() as i32));
    assert_eq!(lengths, [input::TAPE_LENGTH, input::HISTORY_LENGTH, input::OUTPUTS_LENGTH].map(|at| buffer[at]));
    let taken: usize = [Some(read.tape), read.history, read.outputs].into_iter().flatten().map(<[i32]>::len).sum();
    let parts: Vec<i32> =
        [Some(read.tape), read.history, read.outputs].into_iter().flatten().flatten().copied().collect();
    assert_eq!(parts, buffer[input::HEAD..input::HEAD + taken], "the parts follow the head, in order");
}

impl Round<'_> {
    fn ask(&self, outputs: Option<&[i32]>) -> Result<Decision, FilterError> {
        self.ask_with(outputs, false)
    }

    /// [`Self::ask`], the outputs written ahead (`input::OUTPUTS_AHEAD`) where `ahead`.
    fn ask_with(&self, outputs: Option<&[i32]>, ahead: bool) -> Result<Decision, FilterError> {
        // Through the input buffer, as the binding asks.
        let buffer = encode_input(self, outputs, ahead, 1 + self.tape.len() as i32 % 7);
        let read = Input::read(&buffer).expect("an input as the binding writes it is read");
        assert_eq!(
            (read.tape, read.history, read.outputs, read.exclude, read.outputs_ahead),
            (self.tape, self.history, outputs, self.exclude, ahead)
        );
        assert_eq!(
            (read.preserve_model_output, read.preserved_results),
            (self.options.preserve_model_output, self.options.preserved_results)
        );
        let decision = filter_into(&read.options(self.options.filter_after_tool_steps), read.round(), Vec::new());
        if let Ok(decision) = &decision {
            // The run's history is recorded on its first call, unless an empty
            // exclude list returns before the state is read.
            let record = self.exclude != Exclude::Nothing
                && self.options.filter_after_tool_steps.is_none()
                && self.history.is_none();
            assert_eq!(decision.record_history, record, "record_history");
        }
        decision
    }
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let structured = !one_in(&mut u, 4);
    let (tape, generated, seeded) = if structured {
        let mut prompt = gen_prompt(&mut u);
        let seeded = one_in(&mut u, 4).then(|| seed_ids(&mut u, &mut prompt));
        (encode_prompt(&prompt), Some(prompt), seeded)
    } else {
        (raw_tape(&mut u, 512), None, None)
    };
    if let Some(generated) = &generated {
        assert_eq!(parse_prompt(&tape, seeded).as_ref(), Some(generated), "the parser reads what the generator wrote");
    }
    let options = PromptOptions {
        preserve_model_output: !one_in(&mut u, 4),
        filter_after_tool_steps: one_in(&mut u, 3).then(|| js_number(&mut u)),
        preserved_results: pick(&mut u, &[PreservedResults::Every, PreservedResults::WithOwnModelOutput]),
    };
    let exclude = pick(&mut u, &[Exclude::All, Exclude::Listed, Exclude::Listed, Exclude::Nothing]);
    let id_count = match &generated {
        Some(prompt) => prompt.id_count,
        None => parse_prompt(&tape, None).map_or(0, |p| p.id_count),
    };
    let history: Option<Vec<i32>> = if flag(&mut u) {
        None
    } else {
        let len = if one_in(&mut u, 16) { size(&mut u, 0, 16) } else { id_count };
        Some((0..len).map(|_| if one_in(&mut u, 16) { tape_value(&mut u) } else { int(&mut u, 0, 1) }).collect())
    };
    // The history decides only without `filterAfterToolSteps`, and then its
    // table's length bounds the ids.
    let table_ids = history.as_ref().filter(|_| options.filter_after_tool_steps.is_none()).map(Vec::len);
    let parsed = parse_prompt(&tape, table_ids);
    let round = Round { options: &options, exclude, tape: &tape, history: history.as_deref() };
    if one_in(&mut u, 4) {
        check_raw_input(&raw_tape(&mut u, 64));
    }

    if one_in(&mut u, 8) {
        // Outputs the binding never wrote: anything but a panic will do.
        let outputs = raw_tape(&mut u, 256);
        if let Ok(decision) = round.ask(Some(&outputs)) {
            assert!(!matches!(decision.answer, Answer::NeedsOutputs(_)), "outputs asked for when given");
        }
    }

    let first = round.ask(None);
    let Some(prompt) = parsed.as_ref() else {
        assert!(matches!(first, Err(FilterError::Tape(_))), "a tape the grammar refuses gave {first:?}");
        return;
    };
    check_first_error(&round, prompt, &first);
    let Ok(first) = first else { return };
    match first.answer {
        Answer::Unchanged => check_unchanged(&round, prompt),
        Answer::NeedsJson(slots) => panic!("JSON asked for before any output was given: {slots:?}"),
        Answer::Changed(plan) => check_plan(&round, prompt, &plan, &[], &[]),
        Answer::NeedsOutputs(wanted) => {
            check_wanted(&round, prompt, &wanted);
            outputs_round(&mut u, &round, prompt, &wanted, structured);
        }
    }
}

/// The first answer fails exactly where the tape gives a reason.
fn check_first_error(round: &Round<'_>, prompt: &Prompt, first: &Result<Decision, FilterError>) {
    if round.exclude == Exclude::Nothing {
        // The reference returns before it reads the prompt or the state.
        assert!(
            matches!(first, Ok(Decision { record_history: false, answer: Answer::Unchanged })),
            "an empty exclude list gave {first:?}"
        );
        return;
    }
    let string_content = round
        .options
        .filter_after_tool_steps
        .filter(|&steps| keeps_any_step(steps))
        .and_then(|_| prompt.messages.iter().position(|m| matches!(m, Message::Text { assistant: true, .. })));
    // A history table too short for the ids is a tape the grammar refuses.
    match (first, string_content) {
        (Err(FilterError::ContentNotAnArray { message }), Some(index)) => assert_eq!(*message, index),
        (Ok(_), None) => {}
        (first, _) => panic!("{first:?} with string content: {string_content:?}"),
    }
}

/// The outputs requested are removed results that exist, each once, in prompt order.
fn check_wanted(round: &Round<'_>, prompt: &Prompt, wanted: &[(u32, u32)]) {
    assert!(round.options.preserve_model_output, "outputs asked for without preserveModelOutput");
    assert!(!wanted.is_empty(), "an empty request for outputs");
    assert!(wanted.windows(2).all(|w| w[0] < w[1]), "outputs asked for out of order: {wanted:?}");
    for &(message, part) in wanted {
        let found = prompt.part(message as i32, part as i32);
        let Some(&Part { kind: Kind::Result, id: Some(_), own_output, .. }) = found else {
            panic!("output asked for at ({message}, {part}), which is {found:?}");
        };
        if round.options.preserved_results == PreservedResults::WithOwnModelOutput {
            assert!(own_output, "an output asked for a result without its own");
        }
    }
}

/// Writes the requested outputs, asks again (and again with JSON filled in).
fn outputs_round(u: &mut U<'_>, round: &Round<'_>, prompt: &Prompt, wanted: &[(u32, u32)], structured: bool) {
    let mut strings = Strings::default();
    let mut outputs = Vec::new();
    let well_formed = structured && !one_in(u, 16);
    if well_formed {
        for _ in wanted {
            encode(&mut gen_node(u, &mut strings, 0), &mut outputs);
        }
    } else {
        outputs = raw_tape(u, 512);
    }

    let second = round.ask(Some(&outputs));
    let Some(texts) = output_texts(&outputs, wanted.len()) else {
        assert!(second.is_err(), "outputs the grammar refuses gave {second:?}");
        return;
    };
    let texts = match texts {
        Ok(texts) => texts,
        Err(k) => {
            let expected = FilterError::ModelOutputTooDeep { message: wanted[k].0 as usize };
            assert_eq!(second.err(), Some(expected), "output {k} is too deep");
            return;
        }
    };
    let needed = model_output::concat_asks(&texts);
    let second = second.expect("well-formed outputs are answered");
    let (answer, texts) = if needed.is_empty() {
        (second.answer, texts)
    } else {
        assert_eq!(second.answer, Answer::NeedsJson(needed.clone()), "the JSON asks of the outputs");
        model_output::check_asks(&outputs, &needed);
        model_output::fill_json(u, &mut outputs, &needed, &mut strings);
        let third = round.ask(Some(&outputs)).expect("outputs with their JSON filled in are answered");
        let texts = output_texts(&outputs, wanted.len()).and_then(Result::ok).expect("filled outputs still decode");
        assert!(texts.iter().all(|t| t.asks.is_empty()));
        (third.answer, texts)
    };
    let Answer::Changed(plan) = answer else {
        panic!("a request that removes results answered {answer:?}");
    };
    if well_formed && needed.is_empty() {
        ahead_round(u, round, prompt, wanted, &outputs, &mut strings, &plan);
    }
    if well_formed {
        for text in &texts {
            strings.check_used(&text.strings);
        }
    }
    check_plan(round, prompt, &plan, wanted, &texts);
}

/// The outputs written ahead, as the binding writes them under the rule of
/// 1.68 and later (one per `OWN_OUTPUT` result, in prompt order, the wanted
/// ones among them as they were asked for), give the plan the outputs asked
/// for gave; under the rule of every result they are not read, and the
/// outputs are asked for again.
fn ahead_round(
    u: &mut U<'_>,
    round: &Round<'_>,
    prompt: &Prompt,
    wanted: &[(u32, u32)],
    asked: &[i32],
    strings: &mut Strings,
    plan: &[i32],
) {
    let mut spans = HashMap::new();
    let mut at = 0;
    for &position in wanted {
        let (_, end) = decode(asked, at).expect("outputs that were read decode");
        spans.insert(position, at..end);
        at = end;
    }
    let mut outputs = Vec::new();
    for (m, message) in prompt.messages.iter().enumerate() {
        let Message::Parts { parts, .. } = message else { continue };
        for (p, part) in parts.iter().enumerate() {
            if part.kind != Kind::Result || !part.own_output {
                continue;
            }
            match spans.get(&(m as u32, p as u32)) {
                Some(span) => outputs.extend_from_slice(&asked[span.clone()]),
                // A result that stays: its output is stepped over, whatever it is.
                None => encode(&mut gen_node(u, strings, 0), &mut outputs),
            }
        }
    }
    let answer = round.ask_with(Some(&outputs), true).expect("outputs written ahead are answered").answer;
    match round.options.preserved_results {
        PreservedResults::WithOwnModelOutput => assert_eq!(answer, Answer::Changed(plan.to_vec()), "outputs ahead"),
        PreservedResults::Every => {
            let positions = wanted.to_vec();
            assert_eq!(answer, Answer::NeedsOutputs(positions), "outputs ahead under the rule of every result")
        }
    }
}

/// The oracle's text of each of `count` nodes that must fill `outputs`
/// exactly; `None` where they do not, `Err(k)` where node `k` is the first
/// that is too deep.
fn output_texts(outputs: &[i32], count: usize) -> Option<Result<Vec<Text>, usize>> {
    let mut at = 0;
    let mut trees = Vec::new();
    for _ in 0..count {
        let (tree, end) = decode(outputs, at)?;
        trees.push(tree);
        at = end;
    }
    if at != outputs.len() {
        return None;
    }
    let mut texts = Vec::new();
    for (k, tree) in trees.iter().enumerate() {
        match model_output::text(tree) {
            Ok(text) => texts.push(text),
            Err(_) => return Some(Err(k)),
        }
    }
    Some(Ok(texts))
}

/// Nothing is removed only when nothing could be: checked where every call goes.
fn check_unchanged(round: &Round<'_>, prompt: &Prompt) {
    let nothing_kept = round.options.filter_after_tool_steps.is_none() && round.history.is_none();
    if round.exclude == Exclude::All && nothing_kept {
        let any_call = prompt.messages.iter().enumerate().any(|(m, _)| prompt.parts(m).iter().any(|p| p.id.is_some()));
        assert!(!any_call, "every call goes, yet the prompt is unchanged");
    }
}

/// Walks a plan as `applyPlan` does. `wanted` and `texts` are the outputs
/// requested and the oracle's text of each.
fn check_plan(round: &Round<'_>, prompt: &Prompt, plan: &[i32], wanted: &[(u32, u32)], texts: &[Text]) {
    let mut cursor = Cursor::new(plan);
    // Per call id: whether its parts stayed.
    let mut fate: HashMap<u32, bool> = HashMap::new();
    let mut settle = |part: &Part, kept: bool| {
        if let (Some(id), Kind::Call | Kind::Result) = (part.id, part.kind) {
            let first = *fate.entry(id).or_insert(kept);
            assert_eq!(first, kept, "call {id}: its call and results part ways");
        }
    };
    let mut removed_at = Vec::new();
    for (m, message) in prompt.messages.iter().enumerate() {
        let action = cursor.read();
        let parts = match message {
            Message::Pass => {
                assert_eq!(action, plan::KEEP, "a system or user message is never touched");
                continue;
            }
            Message::Text { empty, .. } => {
                assert_eq!(action, if *empty { plan::DROP } else { plan::KEEP }, "{message:?}");
                continue;
            }
            Message::Parts { parts, .. } => parts,
        };
        match action {
            plan::KEEP => {
                for part in parts {
                    settle(part, true);
                }
            }
            plan::DROP => {
                for (p, part) in parts.iter().enumerate() {
                    assert!(part.kind != Kind::Other && part.id.is_some(), "a part that cannot go went: {part:?}");
                    settle(part, false);
                    removed_at.push((m as u32, p as u32));
                }
            }
            plan::REWRITE => {
                let kept_count = cursor.read();
                let (mut kept, mut removed) = (0, 0);
                for (p, part) in parts.iter().enumerate() {
                    let action = cursor.read();
                    if part.kind == Kind::Other || part.id.is_none() {
                        assert_eq!(action, plan::PART_KEEP, "a part that cannot go went: {part:?}");
                    }
                    match action {
                        plan::PART_KEEP => {
                            kept += 1;
                            settle(part, true);
                            continue;
                        }
                        plan::PART_DROP => {}
                        plan::PART_RESULT_TEXT => {
                            kept += 1;
                            let (result_message, result_part) = (cursor.read(), cursor.read());
                            let count = cursor.read();
                            assert!(count > 0, "a text of no strings");
                            let strings = cursor.take(count);
                            let result = prompt.part(result_message, result_part);
                            assert!(
                                matches!(result, Some(r) if r.kind == Kind::Result && r.id == part.id),
                                "the text of {part:?} comes from ({result_message}, {result_part}): {result:?}"
                            );
                            // That of the last requested result of the call with any text.
                            let from = (0..wanted.len())
                                .rev()
                                .find(|&k| {
                                    let (wm, wp) = wanted[k];
                                    !texts[k].strings.is_empty()
                                        && prompt.part(wm as i32, wp as i32).map(|r| r.id) == Some(part.id)
                                })
                                .expect("a text with no output to come from");
                            assert_eq!(wanted[from], (result_message as u32, result_part as u32), "the text's result");
                            assert_eq!(strings, &texts[from].strings[..], "the text's strings");
                        }
                        other => panic!("part action {other} for {part:?}"),
                    }
                    removed += 1;
                    settle(part, false);
                    removed_at.push((m as u32, p as u32));
                }
                assert_eq!(kept_count, kept, "the count of kept parts of a rebuilt message");
                assert!(kept > 0 && removed > 0, "a rebuilt message keeps {kept} and removes {removed}");
            }
            other => panic!("message action {other} for {message:?}"),
        }
    }
    cursor.finish();

    for &at in wanted {
        assert!(removed_at.contains(&at), "the output of {at:?} was asked for, yet it stays");
    }
    let known = round.history.filter(|_| round.options.filter_after_tool_steps.is_none());
    for (&id, &kept) in &fate {
        if kept {
            continue;
        }
        if round.exclude == Exclude::Listed {
            let excluded =
                prompt.messages.iter().enumerate().any(|(m, _)| {
                    prompt.parts(m).iter().any(|p| p.id == Some(id) && p.excluded && p.kind != Kind::Other)
                });
            assert!(excluded, "call {id} went though no part of it names an excluded tool");
        }
        if let Some(known) = known {
            assert_ne!(known[id as usize], 0, "call {id} of this run went");
        }
    }
}
