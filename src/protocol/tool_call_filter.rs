//! The boundary between `ToolCallFilter`'s two halves: the processor's
//! names, the model-facing text, the `state` keys, and every code of its
//! tapes and plans, declared once in
//! [`tool_call_filter_protocol!`](crate::tool_call_filter_protocol), which
//! makes the constants here and, in the binding, what
//! `toolCallFilterProtocol()` returns to JavaScript (see [`crate::protocol`]).
//! The filter's modules read them under their own names
//! (`message_list::code`, `prompt::code`, `prompt::input`, `tape::node`,
//! `plan`). It imports nothing, so every module of the core can read it.

/// The declaration (see [`crate::protocol`]): hands it to the macro named.
#[macro_export]
macro_rules! tool_call_filter_protocol {
    ($($then:tt)*) => { $($then)*! {
        [$crate::protocol::tool_call_filter]
        #[doc = "Every code, layout, limit and shared string of"]
        #[doc = "`ToolCallFilter`'s boundary."]
        pub fn tool_call_filter_protocol() -> ToolCallFilterProtocol {
            #[doc = "The processor as Mastra's names it."]
            pub mod processor: ToolCallFilterNames {
                pub const ID: &str = "tool-call-filter";
                pub const NAME: &str = "ToolCallFilter";
            }

            #[doc = "What the model reads where `preserveModelOutput` turns a removed"]
            #[doc = "result into text: the tool's name, this, then the output's strings"]
            #[doc = "joined by newlines."]
            pub const RESULT_HEADING: &str = " result:\n";

            #[doc = "Where the filter keeps its per-request record in the processor's `state`."]
            pub mod state_keys: ToolCallFilterStateKeys {
                #[doc = "Message-list stage: every tool-call id seen in a step's response so far."]
                pub const SEEN: &str = "toolCallFilterSeenToolCallIds";
                #[doc = "Message-list stage: per step, the ids that first appeared in it."]
                pub const STEPS: &str = "toolCallFilterStepToolCallIds";
                #[doc = "Prompt stage: the call ids of the request's first prompt, its history."]
                pub const HISTORY: &str = "__toolCallFilterHistoryToolCallIds";
            }

            #[doc = "The codes of the message-list tape (the grammar is"]
            #[doc = "`tool_call_filter::message_list`'s)."]
            pub mod message_list: MessageListTapeCodes {
                pub const UNTOUCHED: i32 = 0;
                pub const WITH_PARTS: i32 = 1;
                #[doc = "A missing item of a sparse array (messages and parts)."]
                pub const HOLE: i32 = 2;

                pub const TEXT_ABSENT: i32 = 0;
                pub const TEXT: i32 = 1;
                pub const TEXT_BLANK: i32 = 2;
                pub const TEXT_NOT_A_STRING: i32 = 3;
                #[doc = "`content.content` is not an own property, and so left unread: the"]
                #[doc = "reference reads it only to drop a message all of whose parts go."]
                pub const TEXT_UNREAD: i32 = 4;

                pub const PART_OTHER: i32 = 0;
                pub const PART_TOOL: i32 = 1;

                pub const STATE_OTHER: i32 = 0;
                pub const STATE_CALL: i32 = 1;
                pub const STATE_RESULT: i32 = 2;

                #[doc = "A falsy tool-call id; any negative id reads the same."]
                pub const NO_CALL_ID: i32 = -1;

                pub const NO_OUTPUT: i32 = 0;
                pub const OUTPUT: i32 = 1;

                #[doc = "Legacy tape: an entry of `content.toolInvocations` that is `null`"]
                #[doc = "or `undefined`, and a hole."]
                pub const LEGACY_NULL: i32 = -3;
                pub const LEGACY_HOLE: i32 = -4;
            }

            #[doc = "The codes of the prompt tape (the grammar is"]
            #[doc = "`tool_call_filter::prompt`'s)."]
            pub mod prompt: PromptTapeCodes {
                #[doc = "The kind of a message, in the low bits of its head."]
                pub const PASS: i32 = 0;
                pub const PARTS: i32 = 1;
                pub const TEXT_CONTENT: i32 = 2;
                #[doc = "Head flag: role 'assistant'."]
                pub const ASSISTANT: i32 = 4;
                #[doc = "Head flag of `TEXT_CONTENT`: the string is empty."]
                pub const EMPTY: i32 = 8;

                #[doc = "The kind of a part, in its low bits."]
                pub const PART_OTHER: i32 = 0;
                pub const TOOL_CALL: i32 = 1;
                pub const TOOL_RESULT: i32 = 2;
                #[doc = "Part flag: the part's `toolName` is in the exclude list."]
                pub const EXCLUDED: i32 = 4;
                #[doc = "Part flag of `TOOL_RESULT`: it carries its own model output, or"]
                #[doc = "may (its `providerOptions` left unread: asked for its output, the"]
                #[doc = "binding reads them then and writes `nothing` where it has none)."]
                pub const OWN_OUTPUT: i32 = 8;

                #[doc = "The low bits of a head or part that hold its kind."]
                pub const KIND_MASK: i32 = 3;
                #[doc = "A part holds its call id above its flags, as `(id + 1) * CALL_ID_UNIT`"]
                #[doc = "(0 for a falsy id)."]
                pub const CALL_ID_UNIT: i32 = 16;
                #[doc = "The largest call id a part can hold."]
                pub const MAX_CALL_ID: i32 = i32::MAX / CALL_ID_UNIT - 1;
            }

            #[doc = "What the live `exclude` option asks for, decided from its length on"]
            #[doc = "each call (`excludeMode`): the reference reads the list every time."]
            pub mod exclude: ExcludeModes {
                #[doc = "No list: every tool."]
                pub const ALL: i32 = 0;
                #[doc = "A non-empty list: the tools named in it."]
                pub const LISTED: i32 = 1;
                #[doc = "An empty list: nothing; the wrapper hands the input back untouched."]
                pub const NOTHING: i32 = 2;
            }

            #[doc = "The prompt filter's input for one round, in one `Int32Array`: a head"]
            #[doc = "of `HEAD` numbers, then the prompt tape, the history table and the"]
            #[doc = "outputs tape, each as long as the head says (`ABSENT` for a table or"]
            #[doc = "tape not given). One buffer crosses rather than three, and no view of"]
            #[doc = "one: on a prompt of a hundred messages the crossing is a good part of"]
            #[doc = "the call, and right after a full collection each Node-API call is"]
            #[doc = "cache misses."]
            pub mod prompt_input: PromptInputLayout {
                #[doc = "Which options are set: `PRESERVE_MODEL_OUTPUT`, `EVERY_RESULT`,"]
                #[doc = "and how the outputs tape is laid out (`OUTPUTS_AHEAD`)."]
                pub const FLAGS: usize = 0;
                #[doc = "The length of the live `exclude` list, or `ABSENT` for none."]
                pub const EXCLUDE_LENGTH: usize = 1;
                pub const TAPE_LENGTH: usize = 2;
                pub const HISTORY_LENGTH: usize = 3;
                pub const OUTPUTS_LENGTH: usize = 4;
                #[doc = "Where the prompt tape starts."]
                pub const HEAD: usize = 5;

                #[doc = "Flag: `preserveModelOutput`."]
                pub const PRESERVE_MODEL_OUTPUT: i32 = 1;
                #[doc = "Flag: the host's rule turns every removed result into text"]
                #[doc = "(`PreservedResults::Every` in the core's `releases`)."]
                pub const EVERY_RESULT: i32 = 2;
                #[doc = "Flag: the outputs tape holds the output of every `OWN_OUTPUT`"]
                #[doc = "result, in prompt order, rather than those an answer asked for."]
                #[doc = "Read only without `EVERY_RESULT`: under that rule the outputs"]
                #[doc = "wanted are asked for."]
                pub const OUTPUTS_AHEAD: i32 = 4;
                #[doc = "A length for what is not given."]
                pub const ABSENT: i32 = -1;
            }

            #[doc = "The prompt filter's answer (`filterPrompt`): `[RECORD_HISTORY, KIND,"]
            #[doc = "...]`, what follows the head as `KIND` says."]
            pub mod prompt_answer: PromptAnswerLayout {
                #[doc = "1 when the wrapper is to record this prompt's call ids as the"]
                #[doc = "request's history, else 0."]
                pub const RECORD_HISTORY: usize = 0;
                pub const KIND: usize = 1;
                #[doc = "Where what the kind says begins."]
                pub const HEAD: usize = 2;

                #[doc = "Hand the prompt to the model as it is."]
                pub const UNCHANGED: i32 = 0;
                #[doc = "`count, (message, part)*`: write these results' outputs and ask"]
                #[doc = "again with them."]
                pub const NEEDS_OUTPUTS: i32 = 1;
                #[doc = "`count, ask*`: fill the JSON slots these asks call for (see"]
                #[doc = "`model_output::JSON_ASK_LENGTH`) and ask again."]
                pub const NEEDS_JSON: i32 = 2;
                #[doc = "The plan for the new prompt follows."]
                pub const CHANGED: i32 = 3;
            }

            #[doc = "The codes of a model output's `node` inside either tape (the"]
            #[doc = "grammar is `tool_call_filter::tape`'s)."]
            pub mod model_output: ModelOutputCodes {
                pub const NOTHING: i32 = 0;
                pub const STRING: i32 = 1;
                pub const ARRAY: i32 = 2;
                pub const OBJECT: i32 = 3;
                pub const PRIMITIVE: i32 = 4;
                pub const TOO_DEEP: i32 = 5;

                #[doc = "Object flag: `type === 'text'`."]
                pub const IS_TEXT_TYPE: i32 = 1;
                #[doc = "Object flag: `'value' in object`; the value's node follows."]
                pub const HAS_VALUE: i32 = 2;

                #[doc = "A JSON slot whose `JSON.stringify` threw or gave `undefined`."]
                pub const NO_JSON: i32 = -1;
                #[doc = "A JSON slot the binding has not computed yet."]
                pub const JSON_LATER: i32 = -2;
                #[doc = "A text slot of an object whose `text` is not a string."]
                pub const NO_TEXT: i32 = -1;

                #[doc = "The JSON a text may need is asked for in asks of this many"]
                #[doc = "values (`tape::JsonAsks`): the slot to fill, the ask it hangs"]
                #[doc = "on, and how many asks hang on it. The binding stringifies an"]
                #[doc = "ask's value when as many of those as hang on it gave no JSON."]
                pub const JSON_ASK_LENGTH: usize = 3;
                pub const JSON_ASK_SLOT: usize = 0;
                pub const JSON_ASK_AROUND: usize = 1;
                pub const JSON_ASK_INSIDE: usize = 2;
                #[doc = "An ask's slot or the ask it hangs on, where there is none."]
                pub const NO_ASK: i32 = -1;

                #[doc = "Model outputs nested deeper than this are refused: the binding"]
                #[doc = "writes `TOO_DEEP` there. It is far past where the reference's"]
                #[doc = "recursive `modelOutputToText` overflows any JavaScript stack (about"]
                #[doc = "2,400 arrays or 7,700 `value`s on Node 20's default one; a stack of"]
                #[doc = "hundreds of megabytes would be needed for a million), so every"]
                #[doc = "output the reference turns into text, ours does too. Nothing"]
                #[doc = "recurses: the limit bounds no stack, only says where an output is"]
                #[doc = "too deep to be anything but a mistake."]
                pub const MAX_DEPTH: usize = 1_000_000;
            }

            #[doc = "The codes of a plan, the filter's answer for a history or prompt,"]
            #[doc = "read by the binding message by message."]
            pub mod plan: PlanCodes {
                #[doc = "Leave the message object as it is."]
                pub const KEEP: i32 = 0;
                #[doc = "Remove the message."]
                pub const DROP: i32 = 1;
                #[doc = "Rebuild the message: one part action per part follows (on the"]
                #[doc = "message list, then the legacy directive below). On the prompt, the"]
                #[doc = "number of parts the message keeps comes first, so the binding makes"]
                #[doc = "the new content array at its size."]
                pub const REWRITE: i32 = 2;
                #[doc = "Message list: every part of the message goes, and its fate hangs on"]
                #[doc = "its `content.content`, left unread (`TEXT_UNREAD`) as the reference"]
                #[doc = "reads it only now. Four actions follow, `DROP` or `REWRITE`, for that"]
                #[doc = "text read and found absent, non-blank, blank or not a string (the"]
                #[doc = "order of the tape's `TEXT` codes), then one `PART_DROP` per part"]
                #[doc = "and the legacy directive."]
                pub const ASK_TEXT: i32 = 3;
                #[doc = "Message list: after the part actions of a rebuilt message (and of"]
                #[doc = "one that asks for its text), what of its legacy `toolInvocations`"]
                #[doc = "stays. `LEGACY_NONE_KEPT`: no entry, whatever its id;"]
                #[doc = "`LEGACY_HELD`: the entries whose ids the kept steps hold (the"]
                #[doc = "`preserve` ids the plan was given); `LEGACY_TABLE`: those the"]
                #[doc = "verdict table the plan ends with keeps. A list with a `null` entry,"]
                #[doc = "which fails, is asked about (`planLegacyLists`) whatever the"]
                #[doc = "directive."]
                pub const LEGACY_NONE_KEPT: i32 = 0;
                pub const LEGACY_TABLE: i32 = 1;
                pub const LEGACY_HELD: i32 = 2;
                #[doc = "Message list, with an exclude list: the plan's last message is"]
                #[doc = "followed by this many verdicts, 1 for an entry that stays and 0"]
                #[doc = "for one that goes, indexed by an entry's `LEGACY_HELD_BY_STEPS |"]
                #[doc = "LEGACY_EXCLUDED_CALL | LEGACY_EXCLUDED_NAME` bits, and then the ids"]
                #[doc = "of the excluded tools' calls, sorted."]
                pub const LEGACY_VERDICTS: usize = 8;
                #[doc = "Its id is one the kept steps hold."]
                pub const LEGACY_HELD_BY_STEPS: usize = 4;
                #[doc = "Its id is among the excluded calls' ids after the verdicts."]
                pub const LEGACY_EXCLUDED_CALL: usize = 2;
                #[doc = "It names an excluded tool."]
                pub const LEGACY_EXCLUDED_NAME: usize = 1;

                #[doc = "Keep the part object as it is."]
                pub const PART_KEEP: i32 = 0;
                #[doc = "Remove the part."]
                pub const PART_DROP: i32 = 1;
                #[doc = "Message list: replace the part with `{ type: 'text', text }`, where"]
                #[doc = "text is its `toolName`, `RESULT_HEADING` and the listed strings"]
                #[doc = "joined by newlines. Followed by the string count and the string"]
                #[doc = "indexes."]
                pub const PART_MODEL_OUTPUT: i32 = 2;
                #[doc = "Prompt: put `{ type: 'text', text }` in the part's place, where"]
                #[doc = "text is the result part's `toolName`, `RESULT_HEADING` and the"]
                #[doc = "listed strings joined by newlines. Followed by the result part's"]
                #[doc = "index in the prompt (counting every part of every message), the"]
                #[doc = "string count and the string indexes."]
                pub const PART_RESULT_TEXT: i32 = 3;
            }

            #[doc = "What a value of the wrong kind was given as: the wrapper names it,"]
            #[doc = "the core words the `TypeError` (`tool_call_filter::refusal`)."]
            pub mod refused: ToolCallFilterRefusals {
                #[doc = "The constructor's options."]
                pub const OPTIONS: i32 = 0;
                pub const EXCLUDE: i32 = 1;
                pub const FILTER_AFTER_TOOL_STEPS: i32 = 2;
                pub const PRESERVE_MODEL_OUTPUT: i32 = 3;
                #[doc = "The prompt `processLLMRequest` is handed (1.60+)."]
                pub const PROMPT: i32 = 4;
                #[doc = "A message of that prompt; its index goes with it."]
                pub const PROMPT_MESSAGE: i32 = 5;
                #[doc = "The message list's messages (1.59)."]
                pub const MESSAGES: i32 = 6;
            }
        }
    }};
}

tool_call_filter_protocol!(crate::protocol::declare);
