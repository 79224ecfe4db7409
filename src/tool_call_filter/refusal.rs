//! The `TypeError`s for values of the wrong kind, worded here alone: the
//! [`options`](super::options) the reference would quietly coerce or
//! misbehave on (docs/differences.md), and a prompt or message list that is
//! no array where the reference's walk throws too. The binding says what kind of value it was handed (a
//! [`Given`], named as every refusal names a value); the wrapper says where
//! (a [`refused`] code) and reads the options, in the reference's order.

use crate::given::Given;
use crate::protocol::tool_call_filter::refused;

/// The `TypeError`'s message (without the processor's name) for `value`
/// given as `what` (a [`refused`] code), the item `index` of it where that
/// says; `None` for a code that names nothing.
pub fn refusal(what: i32, value: &Given, index: u32) -> Option<String> {
    // Named by type alone, as a tools record's values are: `a number`.
    let value = value.by_type().describe();
    Some(match what {
        refused::OPTIONS => format!("options must be an object, got {value}"),
        refused::EXCLUDE => format!("options.exclude must be an array of tool names, got {value}"),
        refused::FILTER_AFTER_TOOL_STEPS => format!("options.filterAfterToolSteps must be a number, got {value}"),
        refused::PRESERVE_MODEL_OUTPUT => format!("options.preserveModelOutput must be a boolean, got {value}"),
        refused::PROMPT => format!("expected the prompt to be an array of messages, got {value}"),
        refused::PROMPT_MESSAGE => format!("prompt message {index} is {value}"),
        refused::MESSAGES => format!("expected an array of messages, got {value}"),
        _ => return None,
    })
}

/// An option of the wrong kind: its [`refused`] code and the value given,
/// the first in the order [`FilterOptions::check`](super::options::FilterOptions::check) reads them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefusedOption<'a> {
    pub what: i32,
    pub value: &'a Given,
}

impl RefusedOption<'_> {
    /// The `TypeError`'s message (without the processor's name).
    pub fn message(&self) -> String {
        refusal(self.what, self.value, 0).expect("every option's code names a refusal")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;

    const ARRAY: Given = Given::Object { is_array: true };

    fn text(value: &str) -> Given {
        Given::String(JsString::from(value))
    }

    #[test]
    fn values_are_named_as_a_reader_of_the_error_needs() {
        let named = |value: Given| refusal(refused::MESSAGES, &value, 0).unwrap();
        assert_eq!(named(Given::Null), "expected an array of messages, got null");
        assert_eq!(named(ARRAY), "expected an array of messages, got an array");
        assert_eq!(named(text("a \"b\"\n")), r#"expected an array of messages, got the string "a \"b\"\n""#);
        assert_eq!(named(Given::Number(3.0)), "expected an array of messages, got a number");
        assert_eq!(named(Given::Boolean(true)), "expected an array of messages, got a boolean");
        assert_eq!(
            refusal(refused::EXCLUDE, &text("getWeather"), 0).as_deref(),
            Some(r#"options.exclude must be an array of tool names, got the string "getWeather""#)
        );
        assert_eq!(refusal(refused::PROMPT_MESSAGE, &Given::Null, 7).as_deref(), Some("prompt message 7 is null"));
        assert_eq!(refusal(99, &Given::Null, 0), None);
    }
}
