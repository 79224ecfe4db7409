//! The strings a model reads from `ToolSearchProcessor` that Rust chooses or
//! composes: the instruction, `search_tools`' description, the injected
//! catalog and the messages in the meta-tools' results. (The fixed strings
//! of the meta-tools' schemas are the protocol's `schemas`, which JavaScript
//! puts in them.) They are behaviour, byte for byte the reference's.
//!
//! With `search: { syntax: 'regex' }` (this package's own) the strings that
//! tell the model what `search_tools` takes say it takes a pattern: the
//! instruction, `search_tools`' description and query, the injected
//! catalog's header, and the answers to a pattern that finds nothing or does
//! not compile. The default syntax's are the reference's.
//!
//! The reference's answers echo the model's query or names whole, and so do
//! ours; the answers of our own echo a pattern (and what is wrong with it)
//! as [`echo()`] cuts it, so a pattern of megabytes is not sent back whole.

use super::options::Syntax;
use crate::js::JsString;
use crate::protocol::tool_search::{echo, echo_str, schemas};
use crate::search::{truncate_description, PatternError, SearchHit};

pub const INSTRUCTION: &str = "To discover available tools, call search_tools with a keyword query. \
To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. \
Tools must be loaded before they can be used.";

pub const INSTRUCTION_AUTO_LOAD: &str = "To discover available tools, call search_tools with a keyword query. \
Matching tools are loaded automatically and become available on your next turn — \
there is no separate load step. After searching, use the tool directly.";

pub const SEARCH_DESCRIPTION: &str = "Search for available tools by keyword. \
Use this when you need a capability you don't currently have. \
Returns a list of matching tools with their names and descriptions. \
After finding a useful tool, use load_tool to make it available.";

pub const SEARCH_DESCRIPTION_AUTO_LOAD: &str = "Search for available tools by keyword. \
Use this when you need a capability you don't currently have. \
Returns a list of matching tools, which are loaded automatically and \
become available on your next turn — no separate load step is required.";

pub const INSTRUCTION_PATTERN: &str = "To discover available tools, call search_tools with a regular expression \
matched against tool names, descriptions and parameters. \
To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. \
Tools must be loaded before they can be used.";

pub const INSTRUCTION_PATTERN_AUTO_LOAD: &str = "To discover available tools, call search_tools with a regular \
expression matched against tool names, descriptions and parameters. \
Matching tools are loaded automatically and become available on your next turn — \
there is no separate load step. After searching, use the tool directly.";

pub const SEARCH_DESCRIPTION_PATTERN: &str = "Search for available tools with a regular expression, \
matched case-insensitively against each tool's name, description and parameters. \
Use this when you need a capability you don't currently have. \
Returns a list of matching tools with their names and descriptions, those whose name matches first. \
After finding a useful tool, use load_tool to make it available.";

pub const SEARCH_DESCRIPTION_PATTERN_AUTO_LOAD: &str = "Search for available tools with a regular expression, \
matched case-insensitively against each tool's name, description and parameters. \
Use this when you need a capability you don't currently have. \
Returns a list of matching tools, those whose name matches first, which are loaded automatically and \
become available on your next turn — no separate load step is required.";

/// The system instruction of a step, for the mode and the syntax.
pub fn instruction(auto_load: bool, syntax: Syntax) -> &'static str {
    match (syntax, auto_load) {
        (Syntax::Words, false) => INSTRUCTION,
        (Syntax::Words, true) => INSTRUCTION_AUTO_LOAD,
        (Syntax::Regex, false) => INSTRUCTION_PATTERN,
        (Syntax::Regex, true) => INSTRUCTION_PATTERN_AUTO_LOAD,
    }
}

/// `search_tools`' description, for the mode and the syntax.
pub fn search_description(auto_load: bool, syntax: Syntax) -> &'static str {
    match (syntax, auto_load) {
        (Syntax::Words, false) => SEARCH_DESCRIPTION,
        (Syntax::Words, true) => SEARCH_DESCRIPTION_AUTO_LOAD,
        (Syntax::Regex, false) => SEARCH_DESCRIPTION_PATTERN,
        (Syntax::Regex, true) => SEARCH_DESCRIPTION_PATTERN_AUTO_LOAD,
    }
}

/// The description of `search_tools`' `query`, for the syntax.
pub fn search_query_description(syntax: Syntax) -> &'static str {
    match syntax {
        Syntax::Words => schemas::SEARCH_QUERY_DESCRIPTION,
        Syntax::Regex => schemas::SEARCH_PATTERN_DESCRIPTION,
    }
}

/// Introduces the injected catalog (`injectCatalog`) when `load_tool` is offered.
pub const CATALOG_HEADER: &str = "The following tools are available to load. \
Call load_tool with a toolName or toolNames array to add one or more before using them — \
no search step is required. search_tools is also available if you need to rediscover tools by keyword.";

/// Introduces the injected catalog in `autoLoad` mode.
pub const CATALOG_HEADER_AUTO_LOAD: &str = "The following tools are available. \
Call search_tools with a keyword to load one — \
matching tools are loaded automatically and become available on your next turn.";

/// [`CATALOG_HEADER`] when `search_tools` takes a pattern.
pub const CATALOG_HEADER_PATTERN: &str = "The following tools are available to load. \
Call load_tool with a toolName or toolNames array to add one or more before using them — \
no search step is required. search_tools is also available if you need to rediscover tools with a regular expression.";

/// [`CATALOG_HEADER_AUTO_LOAD`] when `search_tools` takes a pattern.
pub const CATALOG_HEADER_PATTERN_AUTO_LOAD: &str = "The following tools are available. \
Call search_tools with a regular expression matching a tool's name to load it — \
matching tools are loaded automatically and become available on your next turn.";

/// Between the catalog header and its lines.
pub const CATALOG_LIST_INTRO: &str = "\n\nAvailable tools:\n";

pub const EMPTY_TOOL_NAMES: &str = "toolNames array must not be empty.";

pub const NOTHING_TO_LOAD: &str = "You must provide either toolName (string) or toolNames (array) to load.";

/// Builds a message from literal pieces and JavaScript strings.
#[derive(Default)]
struct Message(Vec<u16>);

impl Message {
    fn text(mut self, text: &str) -> Self {
        self.0.extend(text.encode_utf16());
        self
    }

    fn js(mut self, text: &JsString) -> Self {
        self.0.extend_from_slice(text.units());
        self
    }

    fn units(mut self, units: &[u16]) -> Self {
        self.0.extend_from_slice(units);
        self
    }

    fn number(self, n: usize) -> Self {
        self.text(&n.to_string())
    }

    fn list(mut self, names: &[JsString]) -> Self {
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                self = self.text(", ");
            }
            self = self.js(name);
        }
        self
    }

    fn done(self) -> JsString {
        JsString::from(self.0)
    }
}

pub fn no_tools_found(query: &[u16], syntax: Syntax) -> JsString {
    match syntax {
        Syntax::Words => Message::default()
            .text("No tools found matching \"")
            .units(query)
            .text("\". Try different keywords.")
            .done(),
        Syntax::Regex => Message::default()
            .text("No tools found matching the pattern \"")
            .units(&echo(query))
            .text("\". Try a broader pattern.")
            .done(),
    }
}

/// The answer to a `search_tools` pattern that does not compile.
pub fn invalid_pattern(query: &[u16], error: &PatternError) -> JsString {
    Message::default()
        .text("Invalid pattern \"")
        .units(&echo(query))
        .text("\": ")
        .text(&echo_str(&error.to_string()))
        .text(". search_tools takes a regular expression, e.g. \"weather\", \"^github_\" or \"send.*(email|mail)\".")
        .done()
}

pub fn found(count: usize) -> JsString {
    Message::default()
        .text("Found ")
        .number(count)
        .text(" tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.")
        .done()
}

pub fn found_and_loaded(results: &[SearchHit], some_already_loaded: bool) -> JsString {
    let names: Vec<JsString> = results.iter().map(|r| r.name.clone()).collect();
    let message = Message::default()
        .text("Found and loaded ")
        .number(results.len())
        .text(" tool(s): ")
        .list(&names)
        .text(". They are available on your next turn — call them directly.");
    if some_already_loaded { message.text(" Some were already loaded.") } else { message }.done()
}

pub fn not_found(name: &JsString, suggestions: &[JsString]) -> JsString {
    let message = Message::default().text("Tool \"").js(name).text("\" not found.");
    if suggestions.is_empty() {
        message.text(" Use search_tools to find available tools.").done()
    } else {
        message.text(" Did you mean: ").list(&suggestions[..suggestions.len().min(3)]).text("?").done()
    }
}

pub fn already_loaded(name: &JsString) -> JsString {
    Message::default().text("Tool \"").js(name).text("\" is already loaded and available.").done()
}

pub fn loaded_one(name: &JsString) -> JsString {
    Message::default()
        .text("Tool \"")
        .js(name)
        .text("\" loaded successfully. It will be available on your next turn.")
        .done()
}

pub fn loaded_many(loaded: &[JsString], already_loaded: &[JsString], not_found: &[JsString]) -> JsString {
    let mut parts = Vec::new();
    if !loaded.is_empty() {
        parts.push(Message::default().text("Loaded: ").list(loaded).text(" — available on your next turn"));
    }
    if !already_loaded.is_empty() {
        parts.push(Message::default().text("Already loaded: ").list(already_loaded));
    }
    if !not_found.is_empty() {
        parts.push(Message::default().text("Not found: ").list(not_found));
    }
    let mut message = Message::default();
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            message = message.text(" | ");
        }
        message = message.units(&part.0);
    }
    message.done()
}

/// Appends one line of the injected catalog to `lines` (after a `'\n'` when
/// it is not the first): `` - `name`: description ``, or `` - `name` `` for a
/// tool without a description. The description is truncated like a search
/// result's.
pub fn push_catalog_line(lines: &mut Vec<u16>, name: &[u16], description: &[u16]) {
    if !lines.is_empty() {
        lines.push(u16::from(b'\n'));
    }
    lines.extend("- `".encode_utf16());
    lines.extend_from_slice(name);
    lines.push(u16::from(b'`'));
    if !description.is_empty() {
        lines.extend(": ".encode_utf16());
        lines.extend_from_slice(&truncate_description(description));
    }
}

/// The system message of an injected catalog: the header of the mode and
/// the syntax, then the lines from [`push_catalog_line`].
pub fn catalog(auto_load: bool, syntax: Syntax, lines: &[u16]) -> JsString {
    let header = match (syntax, auto_load) {
        (Syntax::Words, false) => CATALOG_HEADER,
        (Syntax::Words, true) => CATALOG_HEADER_AUTO_LOAD,
        (Syntax::Regex, false) => CATALOG_HEADER_PATTERN,
        (Syntax::Regex, true) => CATALOG_HEADER_PATTERN_AUTO_LOAD,
    };
    Message::default().text(header).text(CATALOG_LIST_INTRO).units(lines).done()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tool_search::echo::MAX_LENGTH;
    use crate::search::Pattern;

    fn text(units: &JsString) -> String {
        units.to_string_lossy()
    }

    #[test]
    fn a_pattern_is_echoed_cut_past_the_limit() {
        const EXAMPLES: &str =
            ". search_tools takes a regular expression, e.g. \"weather\", \"^github_\" or \"send.*(email|mail)\".";
        let long: Vec<u16> = "(".repeat(1 << 20).encode_utf16().collect();
        let error = Pattern::new(&long).unwrap_err();
        assert_eq!(
            text(&invalid_pattern(&long, &error)),
            format!(
                "Invalid pattern \"{}…(cut from 1048576 characters)\": it is longer than 1000 characters{EXAMPLES}",
                "(".repeat(MAX_LENGTH)
            )
        );
        let short: Vec<u16> = "(a".encode_utf16().collect();
        let error = Pattern::new(&short).unwrap_err();
        assert_eq!(
            text(&invalid_pattern(&short, &error)),
            format!("Invalid pattern \"(a\": unclosed group (at character 1){EXAMPLES}")
        );
        let valid: Vec<u16> = "b".repeat(MAX_LENGTH + 1).encode_utf16().collect();
        assert_eq!(
            text(&no_tools_found(&valid, Syntax::Regex)),
            format!(
                "No tools found matching the pattern \"{}…(cut from {} characters)\". Try a broader pattern.",
                "b".repeat(MAX_LENGTH),
                MAX_LENGTH + 1
            )
        );
        // The reference's answer, for words, echoes the query whole.
        assert_eq!(
            text(&no_tools_found(&valid, Syntax::Words)),
            format!("No tools found matching \"{}\". Try different keywords.", "b".repeat(MAX_LENGTH + 1))
        );
    }
}
