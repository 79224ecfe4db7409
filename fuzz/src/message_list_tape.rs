//! Target `message_list_tape`: `History::read`, `plan_tape`, `plan_legacy`,
//! `tool_call_ids` and `StepHistory::advance` (the filter of Mastra 1.59).
//!
//! Structured inputs are history tapes as `writeHistory` in
//! `lib/tool-call-filter/message-list-tape.js` writes them, with model outputs
//! from [`crate::model_output`]; raw inputs are arbitrary tapes. Every plan
//! is walked the way `applyPlan` walks it and must fit: it is never longer
//! than its tape (the binding's answer buffer is the tape's size), has one
//! action per message and per part, replaces only results with an output and
//! carries exactly that output's strings (by the oracle), and asks for an
//! unread text only where it decides. The legacy lists of the messages a
//! plan rebuilds, on their own tape, keep invocations by real positions, in
//! order, and fail only on a null entry. A request for JSON names only
//! slots left for later, and once they are filled a second plan never asks
//! again (the binding asks only once). Errors must have their cause on the tape.

use mastra_native_processors::tool_call_filter::message_list::{
    code, plan_legacy, plan_tape, tool_call_ids, History, LegacyRun, Message, MessageListOptions, Part, StepHistory,
    TapePlan, ToolState, TopLevelText,
};
use mastra_native_processors::tool_call_filter::tape::{JsonAsks, Stringified, TapeError};
use mastra_native_processors::tool_call_filter::{keeps_any_step, plan, CallId, CallIdSet, Exclude, FilterError};

use crate::gen::{flag, int, js_number, one_in, pick, raw_tape, size, tape_value, Cursor, Strings, U};
use crate::model_output::{self, decode, encode, gen_node};

/// Call ids come from a small pool, so calls, results and the preserve set meet.
const MAX_ID: i32 = 7;

/// A history tape as the binding writes it.
pub fn gen_history(u: &mut U<'_>, strings: &mut Strings) -> Vec<i32> {
    let mut tape = Vec::new();
    let count = size(u, 0, 10);
    tape.push(count as i32);
    for _ in 0..count {
        match int(u, 0, 9) {
            0 => tape.push(code::UNTOUCHED),
            1 => tape.push(code::HOLE),
            _ => gen_message_with_parts(u, strings, &mut tape),
        }
    }
    tape
}

fn gen_message_with_parts(u: &mut U<'_>, strings: &mut Strings, tape: &mut Vec<i32>) {
    let top_level_text = pick(
        u,
        &[
            code::TEXT_ABSENT,
            code::TEXT_ABSENT,
            code::TEXT,
            code::TEXT_BLANK,
            code::TEXT_NOT_A_STRING,
            code::TEXT_UNREAD,
        ],
    );
    let part_count = size(u, 0, 6);
    tape.extend([code::WITH_PARTS, top_level_text, part_count as i32]);
    for _ in 0..part_count {
        match int(u, 0, 5) {
            0 => tape.push(code::PART_OTHER),
            1 => tape.push(code::HOLE),
            _ => {
                let state = pick(u, &[code::STATE_CALL, code::STATE_RESULT, code::STATE_RESULT, code::STATE_OTHER]);
                let excluded = i32::from(flag(u));
                let call_id = if one_in(u, 8) { code::NO_CALL_ID } else { int(u, 0, MAX_ID) };
                tape.extend([code::PART_TOOL, state, excluded, call_id]);
                if flag(u) {
                    tape.push(code::OUTPUT);
                    encode(&mut gen_node(u, strings, 0), tape);
                } else {
                    tape.push(code::NO_OUTPUT);
                }
            }
        }
    }
}

/// A legacy tape as the binding writes it for these rebuilt messages.
fn gen_legacy(u: &mut U<'_>, rebuilt: &[usize]) -> Vec<i32> {
    let mut tape = vec![0];
    for &message in rebuilt {
        if !one_in(u, 2) {
            continue;
        }
        tape[0] += 1;
        let count = size(u, 1, 4);
        tape.extend([message as i32, count as i32]);
        for _ in 0..count {
            match int(u, 0, 15) {
                0 => tape.extend([code::LEGACY_NULL, 0]),
                1 => tape.extend([code::LEGACY_HOLE, 0]),
                // Every legacy id is interned, falsy ones included.
                _ => tape.extend([int(u, 0, MAX_ID), i32::from(flag(u))]),
            }
        }
    }
    tape
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let mut strings = Strings::default();
    let structured = !one_in(&mut u, 4);
    let mut tape = if structured { gen_history(&mut u, &mut strings) } else { raw_tape(&mut u, 1024) };
    let options = MessageListOptions {
        preserve_model_output: !one_in(&mut u, 4),
        filter_after_tool_steps: flag(&mut u).then(|| js_number(&mut u)),
    };
    let exclude = pick(&mut u, &[Exclude::All, Exclude::Listed, Exclude::Listed, Exclude::Nothing]);
    let preserve: CallIdSet = (0..size(&mut u, 0, 4)).map(|_| int(&mut u, -1, MAX_ID)).collect();

    let history = History::read(&tape);
    if structured {
        assert!(history.is_ok(), "a tape the binding writes was refused: {history:?}");
    }
    let mut strings = structured.then_some(&mut strings);
    let mut planned = plan_tape(&options, exclude, &tape, &preserve);
    match &history {
        Err(error) => {
            let error = TapeError { position: error.position };
            assert_eq!(planned, Err(FilterError::Tape(error)), "read and plan disagree");
        }
        Ok(history) => {
            if let Ok(TapePlan::NeedsJson(asks)) = &planned {
                let asks = asks.clone();
                assert_ne!(exclude, Exclude::Nothing, "JSON asked for with nothing excluded");
                assert!(!asks.is_empty(), "an empty JSON request");
                model_output::check_asks(&tape, &asks);
                fill(&mut u, &mut tape, &asks, strings.as_deref_mut());
                planned = plan_tape(&options, exclude, &tape, &preserve);
                if let Ok(TapePlan::NeedsJson(again)) = &planned {
                    panic!("JSON asked for again after it was filled in: {again:?}");
                }
            }
            match planned {
                Ok(TapePlan::Ready(plan)) => {
                    let (used, rebuilt, excluded_ids) = check_plan(history, &tape, &plan, &options, exclude, &preserve);
                    if let Some(strings) = strings {
                        strings.check_used(&used);
                    }
                    let legacy = if one_in(&mut u, 8) { raw_tape(&mut u, 64) } else { gen_legacy(&mut u, &rebuilt) };
                    check_legacy(&excluded_ids, &legacy, exclude, &preserve);
                }
                Ok(TapePlan::NeedsJson(_)) => unreachable!(),
                Err(error) => check_error(history, &tape, &error, &options, exclude),
            }
            check_steps(&mut u, history);
        }
    }
}

fn fill(u: &mut U<'_>, tape: &mut [i32], asks: &JsonAsks, strings: Option<&mut Strings>) {
    match strings {
        Some(strings) => model_output::fill_json(u, tape, asks, strings),
        None => {
            asks.run(tape, |_| if flag(u) { Stringified::Undefined } else { Stringified::Json(tape_value(u).max(0)) });
        }
    }
}

/// Walks a plan as `applyPlan` does and checks every action against the
/// history; returns the strings the plan uses, the messages it rebuilds (or
/// may, by a text it asks for) and the excluded calls' ids it ends with.
fn check_plan(
    history: &History,
    tape: &[i32],
    plan: &[i32],
    options: &MessageListOptions,
    exclude: Exclude,
    preserve: &CallIdSet,
) -> (Vec<i32>, Vec<usize>, Vec<i32>) {
    let mut used = Vec::new();
    let mut rebuilt = Vec::new();
    // Without an exclude list only the kept steps keep a legacy entry.
    let directive = match exclude {
        Exclude::Listed => plan::LEGACY_TABLE,
        _ if preserve.is_empty() => plan::LEGACY_NONE_KEPT,
        _ => plan::LEGACY_HELD,
    };
    // The binding's answer buffer is as long as the tape and the legacy verdicts.
    assert!(plan.len() <= tape.len() + plan::LEGACY_VERDICTS, "a plan of {} for a tape of {}", plan.len(), tape.len());
    if exclude == Exclude::Nothing {
        assert!(plan.len() == history.messages.len() && plan.iter().all(|&a| a == plan::KEEP), "{plan:?}");
        return (used, rebuilt, Vec::new());
    }
    let listed = exclude == Exclude::Listed;
    let mut plan = Cursor::new(plan);
    for (index, message) in history.messages.iter().enumerate() {
        let action = plan.read();
        let &Message::WithParts { top_level_text, parts } = message else {
            let expected = if *message == Message::Hole { plan::DROP } else { plan::KEEP };
            assert_eq!(action, expected, "{message:?}");
            continue;
        };
        let parts = history.parts(parts);
        if !parts.iter().any(|part| matches!(part, Part::Tool { .. })) {
            assert_eq!(action, plan::KEEP, "a message without tool parts is left alone");
            continue;
        }
        if action == plan::DROP {
            assert_ne!(top_level_text, TopLevelText::Text, "a message with text of its own was dropped");
            continue;
        }
        if action == plan::ASK_TEXT {
            assert_eq!(top_level_text, TopLevelText::Unread, "a text asked for where it was read");
            let table = plan.take(4);
            // With an exclude list the reference's copy of the content lacks an inherited text.
            let text = if listed { plan::DROP } else { plan::REWRITE };
            assert_eq!(table, [plan::DROP, text, plan::DROP, plan::DROP], "only a non-blank text keeps it");
            let actions = plan.take(parts.len() as i32);
            assert!(actions.iter().all(|&a| a == plan::PART_DROP), "a text asked for while a part stays: {actions:?}");
            assert_eq!(plan.read(), directive, "the legacy directive");
            rebuilt.push(index);
            continue;
        }
        assert_eq!(action, plan::REWRITE, "a message with tool parts is dropped or rebuilt");
        rebuilt.push(index);
        assert!(!(listed && top_level_text == TopLevelText::NotAString), "trimming a non-string should have failed");
        let mut kept = 0;
        for part in parts {
            let action = plan.read();
            let (state, excluded, call_id, model_output) = match *part {
                Part::Hole => {
                    assert_eq!(action, plan::PART_DROP, "a hole stays a hole");
                    continue;
                }
                Part::Other => {
                    assert_eq!(action, plan::PART_KEEP, "a part that is no tool invocation stays");
                    kept += 1;
                    continue;
                }
                Part::Tool { state, excluded, call_id, model_output } => (state, excluded, call_id, model_output),
            };
            let preserved = call_id.is_some_and(|id| preserve.contains(&id));
            if preserved || (listed && (state == ToolState::Other || (state == ToolState::Call && !excluded))) {
                assert_eq!(action, plan::PART_KEEP, "{part:?} must stay");
            }
            if !preserved && (exclude == Exclude::All || (excluded && state != ToolState::Other)) {
                assert_ne!(action, plan::PART_KEEP, "{part:?} must go");
            }
            let output_text = || {
                let position = model_output?;
                let (tree, _) = decode(tape, position).expect("an output the reader accepted decodes");
                Some(model_output::text(&tree).expect("a text the planner gave is not too deep"))
            };
            match action {
                plan::PART_KEEP => kept += 1,
                plan::PART_DROP => {
                    if options.preserve_model_output && state == ToolState::Result {
                        if let Some(text) = output_text() {
                            assert!(text.strings.is_empty(), "a result with output text was dropped: {part:?}");
                        }
                    }
                }
                plan::PART_MODEL_OUTPUT => {
                    assert!(options.preserve_model_output && state == ToolState::Result, "{part:?} became text");
                    let count = plan.read();
                    assert!(count > 0, "a text of no strings");
                    let strings = plan.take(count);
                    let text = output_text().expect("only a result with an output becomes text");
                    assert!(text.asks.is_empty(), "a text made while JSON was missing");
                    assert_eq!(strings, &text.strings[..], "the strings of {part:?}");
                    used.extend_from_slice(strings);
                    kept += 1;
                }
                other => panic!("part action {other} for {part:?}"),
            }
        }
        assert!(kept > 0 || top_level_text == TopLevelText::Text, "an emptied message was rebuilt");
        assert_eq!(plan.read(), directive, "the legacy directive");
    }
    let mut excluded_ids = Vec::new();
    if listed {
        for message in &history.messages {
            if let Message::WithParts { parts, .. } = message {
                for part in history.parts(*parts) {
                    if let Part::Tool { excluded: true, call_id: Some(id), .. } = part {
                        if !excluded_ids.contains(id) {
                            excluded_ids.push(*id);
                        }
                    }
                }
            }
        }
        excluded_ids.sort_unstable();
        let verdicts = plan.take(plan::LEGACY_VERDICTS as i32);
        for (bits, &verdict) in verdicts.iter().enumerate() {
            let has = |bit: usize| bits & bit != 0;
            // The reference's filter of `content.toolInvocations`.
            let stays = has(plan::LEGACY_HELD_BY_STEPS)
                || (!has(plan::LEGACY_EXCLUDED_CALL) && !has(plan::LEGACY_EXCLUDED_NAME));
            assert_eq!(verdict, i32::from(stays), "the legacy verdict for bits {bits:03b}");
        }
        assert_eq!(plan.take(excluded_ids.len() as i32), &excluded_ids[..], "the excluded calls' ids");
    }
    plan.finish();
    (used, rebuilt, excluded_ids)
}

/// Checks `plan_legacy`'s answer for a legacy tape against the tape itself.
fn check_legacy(excluded_ids: &[i32], legacy: &[i32], exclude: Exclude, preserve: &CallIdSet) {
    let preserved: Vec<CallId> = preserve.iter().copied().collect();
    let answer = plan_legacy(LegacyRun { exclude, excluded_ids, legacy, preserve: &preserved });
    // An independent reading of the legacy grammar.
    let mut lists = Vec::new();
    let parsed = (|| {
        let count = usize::try_from(*legacy.first()?).ok()?;
        let mut at = 1;
        for _ in 0..count {
            let message = usize::try_from(*legacy.get(at)?).ok()?;
            let entries = usize::try_from(*legacy.get(at + 1)?).ok()?;
            let end = at + 2 + entries.checked_mul(2)?;
            lists.push((message, legacy.get(at + 2..end)?.chunks(2).map(|e| e[0]).collect::<Vec<_>>()));
            at = end;
        }
        (at == legacy.len()).then_some(())
    })();
    let Ok(answer) = answer else {
        match answer.unwrap_err() {
            FilterError::NullLegacyInvocation { message } => {
                // Reported as it is met, even where the tape breaks later.
                assert!(legacy.contains(&code::LEGACY_NULL), "a null entry reported where there is none");
                if parsed.is_some() {
                    let first_null = lists.iter().find(|(_, ids)| ids.contains(&code::LEGACY_NULL)).map(|(m, _)| *m);
                    assert_eq!(first_null, Some(message), "the null entry's message");
                }
            }
            FilterError::Tape(_) => assert!(parsed.is_none(), "a legacy tape that parses was refused"),
            error => panic!("{error:?} from a legacy tape"),
        }
        return;
    };
    assert!(parsed.is_some(), "a legacy tape that does not parse was answered");
    assert!(lists.iter().all(|(_, ids)| !ids.contains(&code::LEGACY_NULL)), "a null entry answered");
    assert!(answer.len() <= legacy.len(), "an answer of {} for a legacy tape of {}", answer.len(), legacy.len());
    let mut answer = Cursor::new(&answer);
    for (_, ids) in &lists {
        let count = answer.read();
        let positions = answer.take(count);
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "legacy positions out of order: {positions:?}");
        for &position in positions {
            let id = usize::try_from(position).ok().and_then(|p| ids.get(p)).copied();
            let Some(id) = id.filter(|&id| id != code::LEGACY_HOLE) else {
                panic!("legacy position {position} is no invocation: {id:?}");
            };
            let preserved = id >= 0 && preserve.contains(&id);
            if exclude != Exclude::Listed {
                assert!(preserved, "an invocation kept while all go");
            } else {
                assert!(preserved || !excluded_ids.contains(&id), "an excluded call's invocation kept");
            }
        }
    }
    answer.finish();
}

/// An error must have its cause in the history.
fn check_error(history: &History, tape: &[i32], error: &FilterError, options: &MessageListOptions, exclude: Exclude) {
    let listed = exclude == Exclude::Listed;
    let message = |index: usize| history.messages.get(index).copied();
    let with_parts = |index: usize| match message(index) {
        Some(Message::WithParts { top_level_text, parts }) => Some((top_level_text, parts)),
        _ => None,
    };
    match *error {
        FilterError::MissingMessage { message: index } => {
            assert!(listed && message(index) == Some(Message::Hole), "{error:?}")
        }
        FilterError::NonStringTopLevelContent { message: index } => {
            let (top_level_text, _) = with_parts(index).expect("a message with parts");
            assert!(listed && top_level_text == TopLevelText::NotAString, "{error:?}");
        }
        FilterError::ModelOutputTooDeep { message: index } => {
            let (_, parts) = with_parts(index).expect("a message with parts");
            assert!(options.preserve_model_output, "{error:?} without preserveModelOutput");
            let too_deep = history.parts(parts).iter().any(|part| match *part {
                Part::Tool { model_output: Some(position), .. } => {
                    decode(tape, position).is_some_and(|(tree, _)| model_output::text(&tree).is_err())
                }
                _ => false,
            });
            assert!(too_deep, "{error:?} but no output there is too deep");
        }
        _ => panic!("{error:?} from a history the reader accepted"),
    }
}

/// `tool_call_ids` and `StepHistory::advance` as `advanceSteps` uses them.
fn check_steps(u: &mut U<'_>, history: &History) {
    let ids = tool_call_ids(history);
    let first_hole = history.messages.iter().position(|m| *m == Message::Hole);
    let response = match (ids, first_hole) {
        (Err(FilterError::MissingMessage { message }), Some(hole)) => {
            assert_eq!(message, hole);
            return;
        }
        (Ok(ids), None) => {
            let mut expected = Vec::new();
            for message in &history.messages {
                if let Message::WithParts { parts, .. } = message {
                    for part in history.parts(*parts) {
                        if let Part::Tool { call_id: Some(id), .. } = part {
                            if !expected.contains(id) {
                                expected.push(*id);
                            }
                        }
                    }
                }
            }
            assert_eq!(ids, expected, "tool_call_ids");
            ids
        }
        (ids, hole) => panic!("tool_call_ids gave {ids:?} with the first hole at {hole:?}"),
    };
    // `args.state` can hold anything the binding interned, not only this response's ids.
    let response = if one_in(u, 4) { (0..size(u, 0, 8)).map(|_| int(u, -2, MAX_ID + 2)).collect() } else { response };

    let mut steps = StepHistory {
        seen: (0..size(u, 0, 8)).map(|_| int(u, -2, MAX_ID + 2)).collect(),
        steps: (0..size(u, 0, 5)).map(|_| (0..size(u, 0, 4)).map(|_| int(u, -2, MAX_ID + 2)).collect()).collect(),
    };
    let before = steps.clone();
    let keep_steps = js_number(u);
    let kept = steps.advance(&response, keep_steps);

    assert_eq!(steps.steps.len(), before.steps.len() + 1);
    assert_eq!(&steps.steps[..before.steps.len()], &before.steps[..], "earlier steps changed");
    let mut expected_seen: Vec<CallId> = Vec::new();
    for &id in &before.seen {
        if !expected_seen.contains(&id) {
            expected_seen.push(id);
        }
    }
    let mut fresh = Vec::new();
    for &id in &response {
        if !expected_seen.contains(&id) && !fresh.contains(&id) {
            fresh.push(id);
        }
    }
    expected_seen.extend(&fresh);
    assert_eq!(steps.seen, expected_seen, "seen ids");
    assert_eq!(steps.steps.last(), Some(&fresh), "this step's ids");
    let every: CallIdSet = steps.steps.iter().flatten().copied().collect();
    assert!(kept.is_subset(&every), "kept ids that no step holds");
    if !keeps_any_step(keep_steps) {
        assert!(kept.is_empty(), "a count of {keep_steps} kept {kept:?}");
    } else if keep_steps.is_nan() || keep_steps >= steps.steps.len() as f64 {
        assert_eq!(kept, every, "a count of {keep_steps} keeps every step");
    }
}
