use super::*;
use crate::test_rng::Rng;
use crate::tool_call_filter::tape::{node, JsonAsk, JsonAsks};

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

fn options(steps: Option<f64>, preserve: bool, rule: PreservedResults) -> Options {
    Options { preserve_model_output: preserve, filter_after_tool_steps: steps, preserved_results: rule }
}

fn plain() -> Options {
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
    let decision = filter(&plain(), Exclude::All, &two_pairs(), None, None).unwrap();
    assert!(decision.record_history);
    assert_eq!(
        changed(decision),
        vec![plan::KEEP, plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP, plan::DROP, plan::DROP, plan::DROP]
    );
}

#[test]
fn calls_the_run_made_after_the_history_stay() {
    // The history holds id 0 only: id 1 came from the run.
    let decision = filter(&plain(), Exclude::All, &two_pairs(), Some(&[1, 0]), None).unwrap();
    assert!(!decision.record_history);
    assert_eq!(
        changed(decision),
        vec![plan::KEEP, plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP, plan::DROP, plan::KEEP, plan::KEEP]
    );
    // Everything from the run: nothing to do.
    let decision = filter(&plain(), Exclude::All, &two_pairs(), Some(&[0, 0]), None).unwrap();
    assert_eq!(decision.answer, Answer::Unchanged);
}

#[test]
fn an_exclude_list_removes_pairs_by_id() {
    // Only id 1's parts name an excluded tool; its call and result both go.
    let plan = changed(filter(&plain(), Exclude::Listed, &two_pairs(), None, None).unwrap());
    assert_eq!(plan, vec![plan::KEEP, plan::KEEP, plan::KEEP, plan::DROP, plan::DROP]);
    // A result naming an excluded tool takes its call along, whatever the call names.
    let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, true, false)]).build();
    let plan = changed(filter(&plain(), Exclude::Listed, &tape, None, None).unwrap());
    assert_eq!(plan, vec![plan::DROP, plan::DROP]);
}

#[test]
fn recent_tool_steps_stay_with_filter_after_tool_steps() {
    let keep_one = options(Some(1.0), false, PreservedResults::Every);
    let plan = changed(filter(&keep_one, Exclude::All, &two_pairs(), None, None).unwrap());
    assert_eq!(
        plan,
        vec![plan::KEEP, plan::REWRITE, 1, plan::PART_KEEP, plan::PART_DROP, plan::DROP, plan::KEEP, plan::KEEP]
    );
    // Two steps keep everything; zero keeps nothing; NaN keeps everything.
    for (steps, unchanged) in [(2.0, true), (0.0, false), (f64::NAN, true), (-1.0, false)] {
        let decision =
            filter(&options(Some(steps), false, PreservedResults::Every), Exclude::All, &two_pairs(), None, None);
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
    let plan = changed(filter(&keep_one, Exclude::All, &tape, None, None).unwrap());
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
    let plan = changed(filter(&plain(), Exclude::All, &tape, None, None).unwrap());
    assert_eq!(plan, vec![plan::KEEP, plan::DROP, plan::DROP, plan::DROP]);
    // Step filtering calls `content.filter` on the assistant's string.
    let keep_one = options(Some(1.0), false, PreservedResults::Every);
    assert_eq!(filter(&keep_one, Exclude::All, &tape, None, None), Err(FilterError::ContentNotAnArray { message: 0 }));
    // ... unless it keeps no steps, which reads nothing.
    let keep_none = options(Some(0.0), false, PreservedResults::Every);
    assert!(filter(&keep_none, Exclude::All, &tape, None, None).is_ok());
}

#[test]
fn preserved_output_becomes_text_where_the_call_was() {
    let with_outputs = options(None, true, PreservedResults::Every);
    let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
    let decision = filter(&with_outputs, Exclude::All, &tape, None, None).unwrap();
    assert_eq!(decision.answer, Answer::NeedsOutputs(vec![(1, 0)]));
    // The output is the string 7.
    let outputs = [node::STRING, 7, 1];
    let plan = changed(filter(&with_outputs, Exclude::All, &tape, None, Some(&outputs)).unwrap());
    assert_eq!(plan, vec![plan::REWRITE, 1, plan::PART_RESULT_TEXT, 1, 0, 1, 7, plan::DROP]);
    // An output without text leaves nothing.
    let plan = changed(filter(&with_outputs, Exclude::All, &tape, None, Some(&[node::STRING, 7, 0])).unwrap());
    assert_eq!(plan, vec![plan::DROP, plan::DROP]);
}

#[test]
fn from_1_68_only_results_with_their_own_model_output_become_text() {
    let own_only = options(None, true, PreservedResults::WithOwnModelOutput);
    let tape = PromptTape::default()
        .assistant(vec![call(0, false), call(1, false)])
        .tool(vec![result(0, false, false), result(1, false, true)])
        .build();
    assert_eq!(filter(&own_only, Exclude::All, &tape, None, None).unwrap().answer, Answer::NeedsOutputs(vec![(1, 1)]));
    let every = options(None, true, PreservedResults::Every);
    assert_eq!(
        filter(&every, Exclude::All, &tape, None, None).unwrap().answer,
        Answer::NeedsOutputs(vec![(1, 0), (1, 1)])
    );
}

#[test]
fn a_provider_executed_result_without_a_call_keeps_its_text_in_place() {
    let with_outputs = options(None, true, PreservedResults::Every);
    let tape = PromptTape::default().assistant(vec![text(), result(0, false, false)]).build();
    let plan = changed(filter(&with_outputs, Exclude::All, &tape, None, Some(&[node::STRING, 3, 1])).unwrap());
    assert_eq!(plan, vec![plan::REWRITE, 2, plan::PART_KEEP, plan::PART_RESULT_TEXT, 0, 1, 1, 3]);
    // In a tool message it is dropped: only assistant messages may carry the text.
    let tape = PromptTape::default().tool(vec![text(), result(0, false, false)]).build();
    let plan = changed(filter(&with_outputs, Exclude::All, &tape, None, Some(&[node::STRING, 3, 1])).unwrap());
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
    let plan = changed(filter(&with_outputs, Exclude::All, &tape, None, Some(&outputs)).unwrap());
    assert_eq!(plan, vec![plan::REWRITE, 1, plan::PART_RESULT_TEXT, 1, 1, 1, 2, plan::DROP]);
}

#[test]
fn json_left_for_later_is_asked_for() {
    let with_outputs = options(None, true, PreservedResults::Every);
    let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
    // `{ a: 1 }` with its JSON not computed: the slot is position 2 of the outputs tape.
    let outputs = [node::OBJECT, 0, node::JSON_LATER, node::NO_TEXT, 0];
    let decision = filter(&with_outputs, Exclude::All, &tape, None, Some(&outputs)).unwrap();
    assert_eq!(decision.answer, Answer::NeedsJson(JsonAsks(vec![JsonAsk { slot: Some(2), around: None, inside: 0 }])));
}

#[test]
fn each_round_of_outputs_reads_the_prompt_again_to_the_answer_it_asks_for() {
    let with_outputs = options(None, true, PreservedResults::Every);
    let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
    let ask = |outputs: Option<&[i32]>| filter(&with_outputs, Exclude::All, &tape, None, outputs).unwrap().answer;
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
        filter_into(&own_only, Exclude::All, &tape, Some(&history), Some(outputs), true, Vec::new()).map(|d| d.answer)
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
    let asked = filter(&own_only, Exclude::All, &tape, Some(&history), None).unwrap().answer;
    assert_eq!(asked, Answer::NeedsOutputs(vec![(1, 0)]));
    assert_eq!(changed(filter(&own_only, Exclude::All, &tape, Some(&history), Some(&outputs[..3])).unwrap()), expected);
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
    let decision = filter_into(&every, Exclude::All, &tape, None, Some(&[node::NOTHING]), true, Vec::new()).unwrap();
    assert_eq!(decision.answer, Answer::NeedsOutputs(vec![(1, 0), (1, 1)]));
    // Under that rule outputs written ahead are never read, even where they
    // would hold every wanted one.
    let own = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, true)]).build();
    let decision =
        filter_into(&every, Exclude::All, &own, None, Some(&[node::STRING, 5, 1]), true, Vec::new()).unwrap();
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
    let alone = changed(filter(&plain(), Exclude::All, &tape, None, None).unwrap());
    let mut sink = vec![7, 8];
    let decision = filter_into(&plain(), Exclude::All, &tape, None, None, false, &mut sink).unwrap();
    assert!(matches!(decision.answer, Answer::Changed(_)));
    assert_eq!(sink[..2], [7, 8]);
    assert_eq!(sink[2..], alone[..]);
}

#[test]
fn an_unreadable_output_fails_only_when_its_text_is_needed() {
    let with_outputs = options(None, true, PreservedResults::Every);
    let tape = PromptTape::default().assistant(vec![call(0, false)]).tool(vec![result(0, false, false)]).build();
    assert_eq!(
        filter(&with_outputs, Exclude::All, &tape, None, Some(&[node::TOO_DEEP])),
        Err(FilterError::ModelOutputTooDeep { message: 1 })
    );
}

#[test]
fn an_empty_exclude_list_changes_and_records_nothing() {
    let tape = PromptTape::default().assistant(vec![call(0, true)]).tool(vec![result(0, true, false)]).build();
    let decision = filter(&plain(), Exclude::Nothing, &tape, None, None).unwrap();
    assert_eq!(decision, Decision { record_history: false, answer: Answer::Unchanged });
}

#[test]
fn falsy_ids_are_never_removed() {
    let tape =
        PromptTape::default().assistant(vec![call(NO_ID, false)]).tool(vec![result(NO_ID, false, false)]).build();
    assert_eq!(filter(&plain(), Exclude::All, &tape, None, None).unwrap().answer, Answer::Unchanged);
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
        assert!(matches!(filter(&plain(), Exclude::All, &tape, None, None), Err(FilterError::Tape(_))), "{tape:?}");
    }
    // A history table of the wrong length.
    assert!(filter(&plain(), Exclude::All, &two_pairs(), Some(&[1]), None).is_err());
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
                if filter(options, exclude, &tape, history, outputs).is_ok() {
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
        let plan = changed(filter(&options, Exclude::All, &tape, None, None).unwrap());
        assert_eq!(plan, vec![plan::DROP, plan::DROP, plan::DROP, plan::DROP], "preserveModelOutput {preserve}");
        let decision = filter(&options, Exclude::All, &tape, Some(&[0]), None).unwrap();
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
    let decision = filter(&plain(), Exclude::All, &tape, Some(&[1, 0, 1]), None).unwrap();
    assert!(!decision.record_history);
    assert_eq!(changed(decision), vec![plan::KEEP, plan::KEEP, plan::DROP, plan::DROP]);
    // Without a table, ids must come in prompt order; with one, below its length.
    assert!(matches!(filter(&plain(), Exclude::All, &tape, None, None), Err(FilterError::Tape(_))));
    assert!(matches!(filter(&plain(), Exclude::All, &tape, Some(&[1]), None), Err(FilterError::Tape(_))));
    // With `filterAfterToolSteps` the history is not read, and neither is its table's length.
    let keep_one = options(Some(1.0), false, PreservedResults::WithOwnModelOutput);
    assert!(matches!(filter(&keep_one, Exclude::All, &tape, Some(&[1, 0, 1]), None), Err(FilterError::Tape(_))));
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
