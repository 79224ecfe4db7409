//! The filter's options, checked once when it is made, and the `TypeError`s
//! for values of the wrong kind, worded here alone: the options the
//! reference would quietly coerce or misbehave on (docs/differences.md),
//! and a prompt or message list that is no array where the reference's walk
//! throws too. The binding says what kind of value it was handed (a
//! [`Given`], named as every refusal names a value); the wrapper says where
//! (a [`refused`] code) and reads the options, in the reference's order.

use crate::given::Given;
use crate::protocol::tool_call_filter::refused;
use crate::tool_call_filter::{keeps_any_step, steps_option};

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

/// The constructor's options as the filter reads them, checked once. The
/// `exclude` list itself stays the caller's: the reference reads it on every
/// call, so names pushed into it later count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilterOptions {
    /// `exclude` is a list (a falsy one means every tool, as the reference's `!options.exclude`).
    pub excludes_listed: bool,
    /// `preserveModelOutput === true`.
    pub preserve_model_output: bool,
    /// `filterAfterToolSteps`: `None` for `undefined`, `Some(None)` for `null`.
    pub filter_after_tool_steps: Option<Option<f64>>,
}

/// An option of the wrong kind: its [`refused`] code and the value given,
/// the first in the order [`FilterOptions::check`] reads them.
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

impl FilterOptions {
    /// Checks the options' values (`undefined` and `null` are always
    /// allowed); the first of the wrong kind is refused with its [`refused`]
    /// code and the value, for [`RefusedOption::message`].
    pub fn check<'a>(
        exclude: &'a Given,
        filter_after_tool_steps: &'a Given,
        preserve_model_output: &'a Given,
    ) -> Result<FilterOptions, RefusedOption<'a>> {
        let excludes_listed = *exclude == Given::Object { is_array: true };
        if !exclude.is_nullish() && !excludes_listed {
            return Err(RefusedOption { what: refused::EXCLUDE, value: exclude });
        }
        let steps = match filter_after_tool_steps {
            Given::Undefined => None,
            Given::Null => Some(None),
            Given::Number(steps) => Some(Some(*steps)),
            _ => return Err(RefusedOption { what: refused::FILTER_AFTER_TOOL_STEPS, value: filter_after_tool_steps }),
        };
        if !preserve_model_output.is_nullish() && !matches!(preserve_model_output, Given::Boolean(_)) {
            return Err(RefusedOption { what: refused::PRESERVE_MODEL_OUTPUT, value: preserve_model_output });
        }
        Ok(FilterOptions {
            excludes_listed,
            preserve_model_output: *preserve_model_output == Given::Boolean(true),
            filter_after_tool_steps: steps,
        })
    }

    /// `filterAfterToolSteps` as both stages read it (`null` keeps no
    /// step): how many recent steps keep their calls, `None` where steps
    /// are not filtered.
    pub fn keep_steps(&self) -> Option<f64> {
        steps_option(self.filter_after_tool_steps)
    }

    /// Whether [`Self::keep_steps`] keeps the calls of any step (false where
    /// steps are not filtered).
    pub fn keeps_any_step(&self) -> bool {
        self.keep_steps().is_some_and(keeps_any_step)
    }

    /// Whether the message-list stage's `processInputStep` filters at all.
    pub fn message_list_filters_steps(&self) -> bool {
        self.keep_steps().is_some()
    }

    /// Whether the prompt stage decides by the request's history, which it
    /// then reads and records in the processor's `state`.
    pub fn prompt_filter_uses_history(&self) -> bool {
        self.keep_steps().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;

    const ARRAY: Given = Given::Object { is_array: true };
    const OBJECT: Given = Given::Object { is_array: false };

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

    #[test]
    fn options_of_the_right_kinds_are_read_as_the_reference_reads_them() {
        let options = FilterOptions::check(&ARRAY, &Given::Number(2.0), &Given::Boolean(true)).unwrap();
        assert_eq!(
            options,
            FilterOptions {
                excludes_listed: true,
                preserve_model_output: true,
                filter_after_tool_steps: Some(Some(2.0))
            }
        );
        assert!(options.message_list_filters_steps() && !options.prompt_filter_uses_history());
        assert_eq!((options.keep_steps(), options.keeps_any_step()), (Some(2.0), true));

        let defaults = FilterOptions::check(&Given::Undefined, &Given::Undefined, &Given::Null).unwrap();
        assert_eq!(
            defaults,
            FilterOptions { excludes_listed: false, preserve_model_output: false, filter_after_tool_steps: None }
        );
        assert!(!defaults.message_list_filters_steps() && defaults.prompt_filter_uses_history());
        assert_eq!((defaults.keep_steps(), defaults.keeps_any_step()), (None, false));

        // `null` keeps no steps, and filters them.
        let none_kept = FilterOptions::check(&Given::Null, &Given::Null, &Given::Boolean(false)).unwrap();
        assert_eq!(none_kept.filter_after_tool_steps, Some(None));
        assert!(none_kept.message_list_filters_steps());
        assert_eq!((none_kept.keep_steps(), none_kept.keeps_any_step()), (Some(0.0), false));
    }

    #[test]
    fn options_of_the_wrong_kinds_are_refused_by_name() {
        let refused = |what, value| Err(RefusedOption { what, value });
        let steps = text("2");
        let (text, object, one) = (text("x"), OBJECT, Given::Number(1.0));
        assert_eq!(FilterOptions::check(&text, &Given::Undefined, &Given::Undefined), refused(refused::EXCLUDE, &text));
        assert_eq!(
            FilterOptions::check(&object, &Given::Undefined, &Given::Undefined),
            refused(refused::EXCLUDE, &object)
        );
        assert_eq!(
            FilterOptions::check(&Given::Undefined, &steps, &Given::Undefined),
            refused(refused::FILTER_AFTER_TOOL_STEPS, &steps)
        );
        assert_eq!(
            FilterOptions::check(&Given::Undefined, &Given::Undefined, &one),
            refused(refused::PRESERVE_MODEL_OUTPUT, &one)
        );
        // The first wrong one, in the order they are read, named with its value.
        let (a, b, c) = (OBJECT, ARRAY, Given::Function);
        let first = FilterOptions::check(&a, &Given::Undefined, &c).unwrap_err();
        assert_eq!(first, RefusedOption { what: refused::EXCLUDE, value: &a });
        assert_eq!(first.message(), "options.exclude must be an array of tool names, got an object");
        let second = FilterOptions::check(&b, &Given::Boolean(true), &c).unwrap_err();
        assert_eq!(second.message(), "options.filterAfterToolSteps must be a number, got a boolean");
        let third = FilterOptions::check(&Given::Null, &Given::Null, &c).unwrap_err();
        assert_eq!(third.message(), "options.preserveModelOutput must be a boolean, got a function");
    }
}
