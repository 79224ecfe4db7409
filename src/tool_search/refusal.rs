//! The `TypeError`s for values found in a tools record, worded as the
//! options' are (through [`Given::describe`]). The record's key is named as
//! [`echo()`] cuts it: a key of megabytes is not copied whole into the error.

use crate::given::{Given, Refused};
use crate::js::JsString;
use crate::protocol::tool_search::echo;

/// The refusal of a value JavaScript found in a tools record (`what`, a
/// code of the protocol's `refused`; `key` the record key it was under),
/// or `None` for an unknown code.
pub fn refuse_record_value(what: i32, key: &JsString, found: &Given) -> Option<Refused> {
    use crate::protocol::tool_search::refused::*;
    let key = String::from_utf16_lossy(&echo(key.units()));
    let (subject, expected) = match what {
        OPTIONS => ("options".to_owned(), "an object"),
        TOOLS => ("options.tools".to_owned(), "an object of tools"),
        TOOL => (format!("options.tools.{key}"), "a tool"),
        TOOL_ID => (format!("options.tools.{key}.id"), "a string"),
        TOOL_DESCRIPTION => (format!("options.tools.{key}.description"), "a string"),
        STEP_TOOL => (format!("the step tools.{key}"), "a tool"),
        STEP_TOOL_ID => (format!("the step tools.{key}.id"), "a string"),
        STEP_TOOL_DESCRIPTION => (format!("the step tools.{key}.description"), "a string"),
        _ => return None,
    };
    Some(Refused::new(subject, expected, &found.by_type()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_values_are_refused_by_type_under_their_key() {
        use crate::protocol::tool_search::refused::*;
        let refused = |what, found: Given| refuse_record_value(what, &JsString::from("k"), &found).unwrap().to_string();
        assert_eq!(
            refused(TOOL_DESCRIPTION, Given::Number(42.0)),
            "options.tools.k.description must be a string, got a number"
        );
        assert_eq!(refused(STEP_TOOL_ID, Given::Boolean(true)), "the step tools.k.id must be a string, got a boolean");
        assert_eq!(refused(TOOL, Given::Null), "options.tools.k must be a tool, got null");
        assert_eq!(
            refused(TOOLS, Given::String(JsString::from("x"))),
            "options.tools must be an object of tools, got the string \"x\""
        );
        assert_eq!(refuse_record_value(-1, &JsString::from("k"), &Given::Null), None);
    }

    #[test]
    fn a_long_key_is_named_cut() {
        use crate::protocol::tool_search::{echo::MAX_LENGTH, refused::TOOL};
        let key = JsString::from("k".repeat(1 << 20).as_str());
        assert_eq!(
            refuse_record_value(TOOL, &key, &Given::Null).unwrap().to_string(),
            format!("options.tools.{}…(cut from 1048576 characters) must be a tool, got null", "k".repeat(MAX_LENGTH))
        );
    }
}
