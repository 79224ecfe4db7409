//! JavaScript values as the binding hands them over, before anything is
//! decided about them.
//!
//! Options, request-context entries and method arguments arrive as whatever
//! the caller put there. The binding only classifies each value ([`Given`]);
//! the rules that read them (`??` defaults, `||` fallbacks, which types are
//! accepted) live with the code that uses them, and a refusal names the value
//! through [`Given::describe`].

use std::borrow::Cow;
use std::fmt::{self, Write};

use crate::js::JsString;

/// A JavaScript value, classified. Strings keep their UTF-16 units; other
/// values keep what the rules that read them need: a number's value, and for
/// the rest their `typeof` and truthiness.
#[derive(Clone, Debug, PartialEq)]
pub enum Given {
    Undefined,
    Null,
    Boolean(bool),
    Number(f64),
    String(JsString),
    /// `typeof value === 'object'` and not `null`.
    Object {
        is_array: bool,
    },
    Function,
    /// A symbol or a bigint (`bigint` keeps its truthiness: `0n` is falsy).
    Other {
        type_of: &'static str,
        truthy: bool,
    },
}

impl Given {
    /// `value == null`: where `??` takes its default.
    pub fn is_nullish(&self) -> bool {
        matches!(self, Given::Undefined | Given::Null)
    }

    /// `!!value`.
    pub fn is_truthy(&self) -> bool {
        match self {
            Given::Undefined | Given::Null => false,
            Given::Boolean(b) => *b,
            Given::Number(n) => *n != 0.0 && !n.is_nan(),
            Given::String(s) => !s.is_empty(),
            Given::Object { .. } | Given::Function => true,
            Given::Other { truthy, .. } => *truthy,
        }
    }

    /// `typeof value`.
    pub fn type_of(&self) -> &'static str {
        match self {
            Given::Undefined => "undefined",
            Given::Null | Given::Object { .. } => "object",
            Given::Boolean(_) => "boolean",
            Given::Number(_) => "number",
            Given::String(_) => "string",
            Given::Function => "function",
            Given::Other { type_of, .. } => type_of,
        }
    }

    /// The value for an error message: `null`, `an array`, `the string "x"`,
    /// `the number 5`, `a function`, ...
    pub fn describe(&self) -> String {
        match self {
            Given::Undefined => "undefined".into(),
            Given::Null => "null".into(),
            Given::Boolean(b) => format!("the boolean {b}"),
            Given::Number(n) => format!("the number {}", js_number(*n)),
            Given::String(s) => format!("the string {}", quoted(s, 80)),
            Given::Object { is_array: true } => "an array".into(),
            Given::Object { is_array: false } => "an object".into(),
            Given::Function => "a function".into(),
            Given::Other { type_of, .. } => format!("a {type_of}"),
        }
    }
}

impl Given {
    /// The value as its type alone names it: a number or a boolean without
    /// its value (`a number`), everything else as it is. A tools record's
    /// values are refused so.
    pub fn by_type(&self) -> Given {
        match self {
            Given::Boolean(_) => Given::Other { type_of: "boolean", truthy: self.is_truthy() },
            Given::Number(_) => Given::Other { type_of: "number", truthy: self.is_truthy() },
            other => other.clone(),
        }
    }
}

/// A value of the wrong type or content, refused with a message naming it:
/// `options.search.topK must be a number, got the string "3"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    /// What was refused, e.g. `options.search.topK`.
    pub subject: Cow<'static, str>,
    /// What it must be, e.g. `a number`.
    pub expected: &'static str,
    /// The value found, [described](Given::describe).
    pub found: String,
}

impl Refused {
    pub fn new(subject: impl Into<Cow<'static, str>>, expected: &'static str, found: &Given) -> Refused {
        Refused { subject: subject.into(), expected, found: found.describe() }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} must be {}, got {}", self.subject, self.expected, self.found)
    }
}

impl std::error::Error for Refused {}

/// A number as JavaScript prints it, for the usual cases.
fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n == n.trunc() && n.abs() < 1e21 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    }
}

/// `JSON.stringify(text)`, cut after `max` characters of the text.
fn quoted(text: &JsString, max: usize) -> String {
    let mut out = String::from("\"");
    for (i, c) in char::decode_utf16(text.units().iter().copied()).enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        match c {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok(c) if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            Ok(c) => out.push(c),
            Err(e) => {
                let _ = write!(out, "\\u{:04x}", e.unpaired_surrogate());
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truthiness_and_typeof_follow_javascript() {
        let falsy = [
            Given::Undefined,
            Given::Null,
            Given::Boolean(false),
            Given::Number(0.0),
            Given::Number(-0.0),
            Given::Number(f64::NAN),
            Given::String(JsString::from("")),
            Given::Other { type_of: "bigint", truthy: false },
        ];
        assert!(falsy.iter().all(|v| !v.is_truthy()));
        let truthy = [
            Given::Boolean(true),
            Given::Number(-1.5),
            Given::String(JsString::from("0")),
            Given::Object { is_array: true },
            Given::Function,
            Given::Other { type_of: "symbol", truthy: true },
        ];
        assert!(truthy.iter().all(Given::is_truthy));
        assert_eq!(Given::Null.type_of(), "object");
        assert_eq!(Given::Function.type_of(), "function");
        assert!(Given::Null.is_nullish() && Given::Undefined.is_nullish() && !Given::Number(0.0).is_nullish());
    }

    #[test]
    fn descriptions_name_the_value() {
        assert_eq!(Given::Number(5.0).describe(), "the number 5");
        assert_eq!(Given::Number(2.5).describe(), "the number 2.5");
        assert_eq!(Given::Number(f64::NAN).describe(), "the number NaN");
        assert_eq!(Given::String(JsString::from("a\"b\n")).describe(), "the string \"a\\\"b\\n\"");
        // JSON.stringify's escapes.
        assert_eq!(Given::String(JsString::from("\t\r\u{8}\u{c}\u{1}")).describe(), r#"the string "\t\r\b\f\u0001""#);
        assert_eq!(Given::String(JsString::from(&[0xD800u16][..])).describe(), "the string \"\\ud800\"");
        assert_eq!(Given::String(JsString::from("x".repeat(100).as_str())).describe().chars().count(), 11 + 80 + 3);
        assert_eq!(Given::Object { is_array: true }.describe(), "an array");
        assert_eq!(Given::Other { type_of: "symbol", truthy: true }.describe(), "a symbol");
    }
}
