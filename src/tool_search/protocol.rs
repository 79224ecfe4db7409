//! What both halves of `ToolSearchProcessor` name alike. It imports
//! nothing, so the stores and the processor can both read it.

/// The names of the meta-tools: never searchable, never withheld.
pub const SEARCH_TOOLS: &str = "search_tools";
pub const LOAD_TOOL: &str = "load_tool";

/// Whether a key (or a tool invocation's `toolName`) names a meta-tool.
pub fn is_meta_tool(key: &[u16]) -> bool {
    // Most keys differ in length: the meta-tools' names are ASCII.
    (key.len() == SEARCH_TOOLS.len() && key.iter().copied().eq(SEARCH_TOOLS.encode_utf16()))
        || (key.len() == LOAD_TOOL.len() && key.iter().copied().eq(LOAD_TOOL.encode_utf16()))
}
