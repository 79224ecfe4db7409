//! The prompt ToolCallFilter's core (`prompt::filter_into`, Mastra 1.60 and
//! later) on prompt tapes as the binding writes them for the prompts of
//! `npm run bench`'s ToolCallFilter rows (`__test__/helpers/histories.mjs`):
//! a system message, then turns of a user question, an assistant text with one
//! tool call, its result (every third with its own model output) and an
//! assistant answer; 100, 1,000 and 10,000 messages. What a call costs on
//! Rust's side, apart from the JavaScript walk and the boundary.
//!
//!   cargo bench -p mastra-native-processors --bench tool_call_filter
//!   cargo bench -p mastra-native-processors --bench tool_call_filter -- preserve   (only those)

use divan::{black_box, Bencher};
use mastra_native_processors::protocol::tool_call_filter::model_output as node;
use mastra_native_processors::releases::PreservedResults;
use mastra_native_processors::tool_call_filter::prompt::{code, filter_into, PromptOptions, Round};
use mastra_native_processors::tool_call_filter::Exclude;

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// The tools the turns call, in turn; the exclude list names the first and the third.
const TOOLS: usize = 3;

/// A prompt of about `messages` messages: its tape, how many call ids it
/// interns, and the outputs of its results with their own model output, in
/// prompt order (one string each, as `writeModelOutput` writes a text output).
struct Prompt {
    tape: Vec<i32>,
    ids: usize,
    own_outputs: Vec<i32>,
}

fn prompt(messages: usize, excluded: impl Fn(usize) -> bool) -> Prompt {
    let turns = (messages - 1) / 4;
    let mut tape = vec![(1 + 4 * turns) as i32, code::PASS];
    let mut own_outputs = Vec::new();
    for turn in 0..turns {
        let id = (turn as i32 + 1) * code::CALL_ID_UNIT;
        let flag = if excluded(turn % TOOLS) { code::EXCLUDED } else { 0 };
        let own = turn % 3 == 0;
        tape.push(code::PASS);
        tape.extend([code::PARTS | code::ASSISTANT, 2, code::PART_OTHER, code::TOOL_CALL | flag | id]);
        tape.extend([code::PARTS, 1, code::TOOL_RESULT | flag | if own { code::OWN_OUTPUT } else { 0 } | id]);
        tape.extend([code::PARTS | code::ASSISTANT, 1, code::PART_OTHER]);
        if own {
            own_outputs.extend([node::STRING, own_outputs.len() as i32 / 3, 1]);
        }
    }
    Prompt { tape, ids: turns, own_outputs }
}

fn options(preserve_model_output: bool, filter_after_tool_steps: Option<f64>) -> PromptOptions {
    PromptOptions {
        preserve_model_output,
        filter_after_tool_steps,
        preserved_results: PreservedResults::WithOwnModelOutput,
    }
}

/// Runs one call into a plan buffer kept between calls, as the binding's is.
fn run(
    bencher: Bencher,
    options: PromptOptions,
    exclude: Exclude,
    prompt: &Prompt,
    history: Option<&[i32]>,
    ahead: bool,
) {
    let mut plan = Vec::with_capacity(prompt.tape.len() * 2);
    let outputs = ahead.then_some(prompt.own_outputs.as_slice());
    bencher.bench_local(|| {
        plan.clear();
        let decision = filter_into(
            &options,
            Round { exclude, tape: black_box(&prompt.tape), history, outputs, outputs_ahead: ahead },
            &mut plan,
        )
        .unwrap();
        black_box(decision.record_history);
    });
}

/// Excluding every tool, a request's first call: nothing recorded yet, so its history goes.
#[divan::bench(args = SIZES)]
fn exclude_all_first_call(bencher: Bencher, messages: usize) {
    let prompt = prompt(messages, |_| false);
    run(bencher, options(false, None), Exclude::All, &prompt, None, false);
}

/// Excluding every tool, a later call: the recorded history holds every id.
#[divan::bench(args = SIZES)]
fn exclude_all_later_call(bencher: Bencher, messages: usize) {
    let prompt = prompt(messages, |_| false);
    let history = vec![1; prompt.ids];
    run(bencher, options(false, None), Exclude::All, &prompt, Some(&history), false);
}

#[divan::bench(args = SIZES)]
fn exclude_list(bencher: Bencher, messages: usize) {
    let prompt = prompt(messages, |tool| tool != 1);
    run(bencher, options(false, None), Exclude::Listed, &prompt, None, false);
}

/// `preserveModelOutput` on 1.68+, the outputs written ahead (one round).
#[divan::bench(args = SIZES)]
fn preserve_model_output(bencher: Bencher, messages: usize) {
    let prompt = prompt(messages, |_| false);
    run(bencher, options(true, None), Exclude::All, &prompt, None, true);
}

#[divan::bench(args = SIZES)]
fn filter_after_tool_steps(bencher: Bencher, messages: usize) {
    let prompt = prompt(messages, |_| false);
    run(bencher, options(false, Some(2.0)), Exclude::All, &prompt, None, false);
}
