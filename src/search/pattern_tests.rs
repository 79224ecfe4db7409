//! The regex syntax's matching and order (`super`).

use super::*;
use crate::search::Catalog;

fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// A tool as the tests write it: its id (and key), description and parameters.
type Tool<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

fn catalog(tools: &[Tool<'_>]) -> Catalog {
    let mut builder = Catalog::builder();
    for (id, description, parameters) in tools {
        let parameters: Vec<(Vec<u16>, Vec<u16>)> = parameters.iter().map(|(n, d)| (u(n), u(d))).collect();
        builder.push_with_parameters(
            &u(id),
            Some(&u(id)),
            &u(description),
            parameters.iter().map(|(n, d)| (&n[..], &d[..])),
        );
    }
    builder.keep_parameters(true);
    builder.build().unwrap()
}

fn names(catalog: &Catalog, pattern: &str) -> Vec<(String, f64)> {
    let pattern = Pattern::new(&u(pattern)).unwrap();
    catalog
        .pattern_texts()
        .candidates(&pattern)
        .into_iter()
        .map(|c| (String::from_utf16_lossy(catalog.doc_name(c.doc)), c.score))
        .collect()
}

fn tools() -> Catalog {
    catalog(&[
        ("send_email", "Send an email to a recipient", &[("to", "Recipient address"), ("subject", "")]),
        ("get_weather", "Get the weather forecast for a city", &[("city", "The city, e.g. Paris")]),
        ("read_inbox", "List the messages of an email inbox", &[]),
        ("convert_units", "Convert between units", &[("unit", "celsius or fahrenheit"), ("value", "")]),
        ("weather_alerts", "Severe storm alerts", &[("region", "")]),
    ])
}

#[test]
fn each_field_adds_its_weight_and_names_come_first() {
    let tools = tools();
    // Name and description; description alone; name alone.
    assert_eq!(names(&tools, "weather"), [("get_weather".into(), 4.0), ("weather_alerts".into(), 3.0)]);
    assert_eq!(
        names(&tools, "email"),
        [("send_email".into(), 4.0), ("read_inbox".into(), 1.0)],
        "the description's match counts too"
    );
    // A parameter's name, a parameter's description.
    assert_eq!(names(&tools, "^city$"), [("get_weather".into(), 1.0)]);
    assert_eq!(names(&tools, "fahrenheit"), [("convert_units".into(), 0.5)]);
    assert_eq!(names(&tools, "paris"), [("get_weather".into(), 0.5)]);
    // Anchors hold within each text.
    assert_eq!(names(&tools, "^get_"), [("get_weather".into(), 3.0)]);
    assert_eq!(names(&tools, "alerts$"), [("weather_alerts".into(), 4.0)]);
    // Every field: best first, equal scores in the catalog's order.
    assert_eq!(
        names(&tools, "e"),
        [
            ("send_email".into(), 5.5),
            ("convert_units".into(), 5.5),
            ("weather_alerts".into(), 5.0),
            ("get_weather".into(), 4.5),
            ("read_inbox".into(), 4.0),
        ]
    );
    assert_eq!(names(&tools, "no such thing"), []);
}

#[test]
fn case_insensitive_unless_the_pattern_says_otherwise() {
    let tools = tools();
    assert_eq!(names(&tools, "SEND"), [("send_email".into(), 4.0)]);
    assert_eq!(names(&tools, "(?-i)SEND"), []);
    assert_eq!(names(&tools, "(?-i)Send"), [("send_email".into(), 1.0)]);
}

#[test]
fn a_name_taken_over_by_a_later_tool_is_matched_once_at_its_place() {
    let tools = catalog(&[("a_tool", "first", &[]), ("b_tool", "second", &[]), ("a_tool", "third", &[])]);
    assert_eq!(names(&tools, "tool"), [("b_tool".into(), 3.0), ("a_tool".into(), 3.0)]);
    assert_eq!(names(&tools, "first"), []);
    assert_eq!(names(&tools, "third"), [("a_tool".into(), 1.0)]);
}

#[test]
fn malformed_patterns_say_what_is_wrong_and_where() {
    let error = |p: &str| Pattern::new(&u(p)).unwrap_err().to_string();
    assert_eq!(error("(weather"), "unclosed group (at character 1)");
    assert_eq!(error("get_[a-"), "unclosed character class (at character 5)");
    assert_eq!(error("*weather"), "repetition operator missing expression (at character 1)");
    assert_eq!(error("a{2,1}"), "invalid repetition count range, the start must be <= the end (at character 2)");
    assert_eq!(error("é("), "unclosed group (at character 2)", "characters are counted, not bytes");
    let nested = format!("{}a{}", "(".repeat(70), ")".repeat(70));
    assert_eq!(error(&nested), "exceed the maximum number of nested parentheses/brackets (64) (at character 65)");
    assert_eq!(error(&"a".repeat(MAX_LENGTH + 1)), format!("it is longer than {MAX_LENGTH} characters"));
    assert_eq!(error(r"\w{1000}{1000}"), "it is too large once compiled; use a shorter or simpler pattern");
    assert!(Pattern::new(&u(&"a".repeat(MAX_LENGTH))).is_ok());
}

#[test]
fn hostile_patterns_compile_and_match_as_any_other() {
    // What makes a backtracking matcher take exponential time: a long
    // run that almost matches.
    let almost = format!("{}b", "a".repeat(64));
    let tools = catalog(&[(&almost, "", &[]), ("aaaa", "", &[])]);
    assert_eq!(names(&tools, "(a+)+$"), [("aaaa".into(), 3.0)]);
    assert_eq!(names(&tools, "^(a+)+c$"), []);
    assert_eq!(names(&tools, "(a|aa)*c"), []);
    assert_eq!(names(&tools, "(a*)*b"), [(almost.clone(), 3.0)]);
    assert_eq!(names(&tools, "(.*a){12}x"), []);
}

#[test]
fn lone_surrogates_are_replacement_characters_on_both_sides() {
    let mut builder = Catalog::builder();
    builder.push(&u("odd"), Some(&u("odd")), &[0x61, 0xD800, 0x62]);
    let tools = builder.build().unwrap();
    let pattern = Pattern::new(&[0x61, 0xDC00]).unwrap();
    let found: Vec<f64> = tools.pattern_texts().candidates(&pattern).iter().map(|c| c.score).collect();
    assert_eq!(found, [1.0]);
}
