//! The codes the JavaScript halves write into tapes and read out of plans,
//! handed over from the core that defines them, so neither side repeats a
//! bare number.

use mastra_native_processors::tool_call_filter::message_list::{self, code as list};
use mastra_native_processors::tool_call_filter::plan;
use mastra_native_processors::tool_call_filter::prompt::{self as prompt_stage, code as prompt, input};
use mastra_native_processors::tool_call_filter::tape::{node, MAX_NODE_DEPTH};
use napi_derive::napi;

/// The message-list tape (the core's `tool_call_filter::message_list`).
#[napi(object)]
pub struct MessageListTapeCodes {
    pub untouched: i32,
    pub with_parts: i32,
    pub hole: i32,
    pub text_absent: i32,
    pub text: i32,
    pub text_blank: i32,
    pub text_not_a_string: i32,
    pub part_other: i32,
    pub part_tool: i32,
    pub state_other: i32,
    pub state_call: i32,
    pub state_result: i32,
    pub no_call_id: i32,
    pub no_output: i32,
    pub output: i32,
    pub no_legacy: i32,
    pub legacy: i32,
    pub legacy_null: i32,
    pub legacy_hole: i32,
}

/// The prompt tape (the core's `tool_call_filter::prompt`).
#[napi(object)]
pub struct PromptTapeCodes {
    pub pass: i32,
    pub parts: i32,
    pub text_content: i32,
    pub assistant: i32,
    pub empty: i32,
    pub part_other: i32,
    pub tool_call: i32,
    pub tool_result: i32,
    pub excluded: i32,
    pub own_output: i32,
    pub call_id_unit: i32,
    pub max_call_id: i32,
}

/// The prompt filter's input buffer (the core's `prompt::input`): where its
/// head keeps each field, the flags, and the length of what is not given.
#[napi(object)]
pub struct PromptInputCodes {
    pub flags: u32,
    pub exclude_length: u32,
    pub tape_length: u32,
    pub history_length: u32,
    pub outputs_length: u32,
    pub head: u32,
    pub preserve_model_output: i32,
    pub every_result: i32,
    pub outputs_ahead: i32,
    pub absent: i32,
}

/// A model output inside either tape (the core's `tool_call_filter::tape`).
#[napi(object)]
pub struct ModelOutputCodes {
    pub nothing: i32,
    pub string: i32,
    pub array: i32,
    pub object: i32,
    pub primitive: i32,
    pub too_deep: i32,
    pub is_text_type: i32,
    pub has_value: i32,
    pub no_json: i32,
    pub json_later: i32,
    pub no_text: i32,
    /// Deeper outputs are written as `tooDeep`.
    pub max_depth: u32,
}

/// A filter's plan (the core's `tool_call_filter::plan`).
#[napi(object)]
pub struct PlanCodes {
    pub keep: i32,
    pub drop: i32,
    pub rewrite: i32,
    pub part_keep: i32,
    pub part_drop: i32,
    pub part_model_output: i32,
    pub part_result_text: i32,
}

/// The keys the filter keeps its per-request record under, in the processor's `state`.
#[napi(object)]
pub struct StateKeys {
    /// Message-list stage: every id seen in a step's response.
    pub seen: String,
    /// Message-list stage: the ids new in each step.
    pub steps: String,
    /// Prompt stage: the ids of the request's first prompt.
    pub history: String,
}

/// Every code of `ToolCallFilter`'s tapes and plans, and its state keys.
#[napi(object)]
pub struct ToolCallFilterCodes {
    pub state_keys: StateKeys,
    pub message_list: MessageListTapeCodes,
    pub prompt: PromptTapeCodes,
    pub prompt_input: PromptInputCodes,
    pub model_output: ModelOutputCodes,
    pub plan: PlanCodes,
}

#[napi(catch_unwind)]
pub fn tool_call_filter_codes() -> ToolCallFilterCodes {
    ToolCallFilterCodes {
        state_keys: StateKeys {
            seen: message_list::SEEN_STATE_KEY.into(),
            steps: message_list::STEPS_STATE_KEY.into(),
            history: prompt_stage::HISTORY_STATE_KEY.into(),
        },
        message_list: MessageListTapeCodes {
            untouched: list::UNTOUCHED,
            with_parts: list::WITH_PARTS,
            hole: list::HOLE,
            text_absent: list::TEXT_ABSENT,
            text: list::TEXT,
            text_blank: list::TEXT_BLANK,
            text_not_a_string: list::TEXT_NOT_A_STRING,
            part_other: list::PART_OTHER,
            part_tool: list::PART_TOOL,
            state_other: list::STATE_OTHER,
            state_call: list::STATE_CALL,
            state_result: list::STATE_RESULT,
            no_call_id: list::NO_CALL_ID,
            no_output: list::NO_OUTPUT,
            output: list::OUTPUT,
            no_legacy: list::NO_LEGACY,
            legacy: list::LEGACY,
            legacy_null: list::LEGACY_NULL,
            legacy_hole: list::LEGACY_HOLE,
        },
        prompt: PromptTapeCodes {
            pass: prompt::PASS,
            parts: prompt::PARTS,
            text_content: prompt::TEXT_CONTENT,
            assistant: prompt::ASSISTANT,
            empty: prompt::EMPTY,
            part_other: prompt::PART_OTHER,
            tool_call: prompt::TOOL_CALL,
            tool_result: prompt::TOOL_RESULT,
            excluded: prompt::EXCLUDED,
            own_output: prompt::OWN_OUTPUT,
            call_id_unit: prompt::CALL_ID_UNIT,
            max_call_id: prompt::MAX_CALL_ID,
        },
        prompt_input: PromptInputCodes {
            flags: input::FLAGS as u32,
            exclude_length: input::EXCLUDE_LENGTH as u32,
            tape_length: input::TAPE_LENGTH as u32,
            history_length: input::HISTORY_LENGTH as u32,
            outputs_length: input::OUTPUTS_LENGTH as u32,
            head: input::HEAD as u32,
            preserve_model_output: input::PRESERVE_MODEL_OUTPUT,
            every_result: input::EVERY_RESULT,
            outputs_ahead: input::OUTPUTS_AHEAD,
            absent: input::ABSENT,
        },
        model_output: ModelOutputCodes {
            nothing: node::NOTHING,
            string: node::STRING,
            array: node::ARRAY,
            object: node::OBJECT,
            primitive: node::PRIMITIVE,
            too_deep: node::TOO_DEEP,
            is_text_type: node::IS_TEXT_TYPE,
            has_value: node::HAS_VALUE,
            no_json: node::NO_JSON,
            json_later: node::JSON_LATER,
            no_text: node::NO_TEXT,
            max_depth: MAX_NODE_DEPTH as u32,
        },
        plan: PlanCodes {
            keep: plan::KEEP,
            drop: plan::DROP,
            rewrite: plan::REWRITE,
            part_keep: plan::PART_KEEP,
            part_drop: plan::PART_DROP,
            part_model_output: plan::PART_MODEL_OUTPUT,
            part_result_text: plan::PART_RESULT_TEXT,
        },
    }
}
