//! What the processor reads from a request: the thread whose loaded tools
//! it uses, and the inputs of the meta-tools it is given.
//!
//! The thread is `requestContext.get('mastra__threadId')` when truthy, else
//! the memory thread the Agent puts in the request context
//! (`MastraMemory.thread.id`, read and checked as `@mastra/core` 1.60's
//! `parseMemoryRequestContext` does), else none. Threads are JavaScript
//! strings; an empty one is no thread.

use crate::js::JsString;

use crate::given::{Given, Refused};
use crate::protocol::tool_search::request_context::{MEMORY as MEMORY_KEY, THREAD_ID as THREAD_ID_KEY};

/// The memory context as JavaScript read it: `memory =
/// requestContext.get('MastraMemory')`, `memory?.thread`,
/// `memory?.thread?.id` and `memory?.resourceId`.
#[derive(Clone, Debug)]
pub struct MemoryContext {
    pub memory: Given,
    pub thread: Given,
    pub thread_id: Given,
    pub resource_id: Given,
}

impl MemoryContext {
    /// No memory context in the request.
    pub fn absent() -> MemoryContext {
        MemoryContext {
            memory: Given::Undefined,
            thread: Given::Undefined,
            thread_id: Given::Undefined,
            resource_id: Given::Undefined,
        }
    }
}

/// The request's thread.
///
/// A truthy `mastra__threadId` must be a string. Otherwise the memory context
/// is checked where `parseMemoryRequestContext` throws: a truthy
/// `MastraMemory` must be an object, its `thread` (when present) an object
/// whose `id` is a string, and its `resourceId` (when present) a string.
pub fn request_thread(context_thread: &Given, memory: &MemoryContext) -> Result<Option<JsString>, Refused> {
    let refuse =
        |entry: &str, expected, value: &Given| Refused::new(format!("the request context's {entry}"), expected, value);
    if context_thread.is_truthy() {
        return match context_thread {
            Given::String(thread) => Ok(Some(thread.clone())),
            other => Err(refuse(THREAD_ID_KEY, "a string", other)),
        };
    }
    if !memory.memory.is_truthy() {
        return Ok(None);
    }
    if !matches!(memory.memory, Given::Object { .. }) {
        return Err(refuse(MEMORY_KEY, "an object", &memory.memory));
    }
    let thread = match &memory.thread {
        Given::Undefined => None,
        Given::Object { .. } => match &memory.thread_id {
            Given::String(id) => Some(id),
            other => return Err(refuse(&format!("{MEMORY_KEY}.thread.id"), "a string", other)),
        },
        other => return Err(refuse(&format!("{MEMORY_KEY}.thread"), "an object", other)),
    };
    if !matches!(memory.resource_id, Given::Undefined | Given::String(_)) {
        return Err(refuse(&format!("{MEMORY_KEY}.resourceId"), "a string", &memory.resource_id));
    }
    Ok(thread.filter(|id| !id.is_empty()).cloned())
}

/// The thread `clearState(threadId = 'default')` clears: `None` for the
/// default thread when no id was given; any string, `''` included, literally.
pub fn thread_to_clear(thread: &Given) -> Result<Option<&JsString>, Refused> {
    match thread {
        Given::Undefined => Ok(None),
        Given::String(thread) => Ok(Some(thread)),
        other => Err(Refused::new("clearState's thread id", "a string", other)),
    }
}

/// `search_tools`' `query`: a string.
pub fn search_query(query: Given) -> Result<JsString, Refused> {
    match query {
        Given::String(query) => Ok(query),
        other => Err(Refused::new("search_tools' query", "a string", &other)),
    }
}

/// `load_tool`'s `toolName`: a string, or absent (`undefined` or `null`).
pub fn load_tool_name(name: Given) -> Result<Option<JsString>, Refused> {
    match name {
        name if name.is_nullish() => Ok(None),
        Given::String(name) => Ok(Some(name)),
        other => Err(Refused::new("load_tool's toolName", "a string", &other)),
    }
}

/// `load_tool`'s `toolNames`: absent (`undefined`), or an array of strings,
/// `elements` being its elements when it is an array.
pub fn load_tool_names(names: Given, elements: Option<Vec<Given>>) -> Result<Option<Vec<JsString>>, Refused> {
    if names == Given::Undefined {
        return Ok(None);
    }
    let refused = || Refused::new("load_tool's toolNames", "an array of strings", &names);
    let elements = elements.ok_or_else(refused)?;
    let mut strings = Vec::with_capacity(elements.len());
    for element in elements {
        match element {
            Given::String(name) => strings.push(name),
            _ => return Err(refused()),
        }
    }
    Ok(Some(strings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Given {
        Given::String(JsString::from(s))
    }

    fn memory_thread(id: Given) -> MemoryContext {
        MemoryContext {
            memory: Given::Object { is_array: false },
            thread: Given::Object { is_array: false },
            thread_id: id,
            resource_id: text("res"),
        }
    }

    #[test]
    fn the_context_thread_wins_then_the_memory_thread_then_none() {
        let js = |s: &str| Some(JsString::from(s));
        assert_eq!(request_thread(&text("a"), &memory_thread(text("b"))), Ok(js("a")));
        assert_eq!(request_thread(&text(""), &memory_thread(text("b"))), Ok(js("b")));
        assert_eq!(request_thread(&Given::Undefined, &memory_thread(text("b"))), Ok(js("b")));
        assert_eq!(request_thread(&Given::Undefined, &memory_thread(text(""))), Ok(None));
        assert_eq!(request_thread(&Given::Null, &MemoryContext::absent()), Ok(None));
        // A memory context without a thread is no thread.
        let no_thread =
            MemoryContext { thread: Given::Undefined, thread_id: Given::Undefined, ..memory_thread(text("x")) };
        assert_eq!(request_thread(&Given::Undefined, &no_thread), Ok(None));
        // With a context thread the memory context is not read.
        let broken = MemoryContext { memory: Given::Number(5.0), ..MemoryContext::absent() };
        assert_eq!(request_thread(&text("a"), &broken), Ok(js("a")));
    }

    #[test]
    fn malformed_entries_are_refused_where_parse_memory_request_context_throws() {
        let refused =
            |context: Given, memory: MemoryContext| request_thread(&context, &memory).unwrap_err().to_string();
        assert_eq!(
            refused(Given::Number(7.0), MemoryContext::absent()),
            "the request context's mastra__threadId must be a string, got the number 7"
        );
        assert_eq!(
            refused(Given::Undefined, MemoryContext { memory: text("x"), ..MemoryContext::absent() }),
            "the request context's MastraMemory must be an object, got the string \"x\""
        );
        assert_eq!(
            refused(Given::Undefined, MemoryContext { thread: Given::Null, ..memory_thread(text("x")) }),
            "the request context's MastraMemory.thread must be an object, got null"
        );
        assert_eq!(
            refused(Given::Undefined, memory_thread(Given::Undefined)),
            "the request context's MastraMemory.thread.id must be a string, got undefined"
        );
        assert_eq!(
            refused(Given::Undefined, MemoryContext { resource_id: Given::Number(1.0), ..memory_thread(text("x")) }),
            "the request context's MastraMemory.resourceId must be a string, got the number 1"
        );
        // A falsy memory context is no memory context, whatever its type.
        let falsy = MemoryContext { memory: Given::Number(0.0), ..MemoryContext::absent() };
        assert_eq!(request_thread(&Given::Undefined, &falsy), Ok(None));
    }

    #[test]
    fn clear_state_takes_a_string_or_nothing() {
        assert_eq!(thread_to_clear(&Given::Undefined), Ok(None));
        assert_eq!(thread_to_clear(&text("")), Ok(Some(&JsString::from(""))));
        assert!(thread_to_clear(&Given::Null).is_err());
        assert!(thread_to_clear(&Given::Number(5.0)).is_err());
    }
}
