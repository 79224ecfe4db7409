//! The filter hook's vocabulary, shared by the processor's decisions and the
//! [`operation`](super::operation)s that put them to the host: where the hook
//! is asked ([`Phase`]) and what it answered ([`Verdict`]), how a name is
//! looked up ([`Lookup`]) and what the catalog's tables say it resolves to
//! ([`Found`]), the questions and answers ([`Ask`], [`Answer`]), and the host
//! itself ([`ToolFilter`], with [`NoFilter`] and [`VerifyAfter`] for a host
//! without a hook).

use std::cell::RefCell;
use std::future::Future;

use crate::js::JsString;

use crate::protocol::tool_search as protocol;

/// Where the filter hook is asked: the `phase` the hook receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `search_tools` results and the injected catalog.
    Search,
    /// `load_tool`, and its "did you mean" suggestions.
    Load,
    /// Loaded tools, as each step hands them to the model.
    Active,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Search, Phase::Load, Phase::Active];

    /// The `phase` string the hook receives.
    pub fn name(self) -> &'static str {
        protocol::PHASES[self as usize]
    }
}

/// What the hook answered. A hook that threw or rejected does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Denied,
    Failed,
}

impl Verdict {
    pub fn allows(self) -> bool {
        self == Verdict::Allowed
    }
}

/// A tool as the host knows it: `i` for the entry `i` of the catalog's
/// record (the constructor's tools, or a step's merged record of them and
/// its resolved tools), and beyond those whatever tools the host adds: a
/// tool the caller put in the record since. Never negative.
pub type ToolRef = i32;

/// How a name is looked up in a tools record, as the reference looks it up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// `findToolForDynamicName` without a hook: `tools[name] ?? findToolById(name)`.
    KeyFirst,
    /// `findToolForDynamicName` with a hook: `findToolById(name) ?? tools[name]`.
    IdFirst,
    /// `findToolById(name)`: the first tool, in key order, whose `id` is `name`.
    IdOnly,
}

impl Lookup {
    pub const ALL: [Lookup; 3] = [Lookup::KeyFirst, Lookup::IdFirst, Lookup::IdOnly];
}

/// What a catalog's tables say a name resolves to: the tables made when the
/// record's tools were read (at construction for the constructor's record,
/// at a step's start for a step's own); [`lookup`](super::lookup) says when
/// they are the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The tool under the record key that is the name.
    ByKey(ToolRef),
    /// The first tool whose `id` is the name.
    ById(ToolRef),
    /// Nothing: the name, for a host that reads the key it names.
    Missing(JsString),
}

impl Found {
    /// The tool the tables resolve the name to, if any.
    pub fn tool(&self) -> Option<ToolRef> {
        match *self {
            Found::ByKey(tool) | Found::ById(tool) => Some(tool),
            Found::Missing(_) => None,
        }
    }
}

/// A question for the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Whether the hook allows this tool. Asked only when there is a hook,
    /// or when the operation awaits as the reference does.
    Tool(ToolRef),
    /// Which tool the caller's record (the constructor's, which the
    /// reference keeps) gives for a name now, where the catalog's tables
    /// say `found`, and whether the hook (if any) allows it: the host makes
    /// the reads [`lookup::reads`](super::lookup::reads) lists. A record
    /// that gives no tool does not allow: the reference skips a tool it does
    /// not find exactly as one the hook denies.
    Resolve { lookup: Lookup, found: Found },
}

/// The host's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub verdict: Verdict,
    /// For [`Ask::Resolve`], the tool the record gives when it is not the one
    /// the tables found (or they found none): one put under its key since.
    pub tool: Option<ToolRef>,
}

impl Answer {
    pub const ALLOWED: Answer = Answer { verdict: Verdict::Allowed, tool: None };
    pub const DENIED: Answer = Answer { verdict: Verdict::Denied, tool: None };

    pub fn verdict(verdict: Verdict) -> Answer {
        Answer { verdict, tool: None }
    }
}

/// The host: the request-aware filter hook, and the caller's tools record.
pub trait ToolFilter {
    /// Answers `ask`, in `phase`.
    fn check(&self, ask: Ask, phase: Phase) -> impl Future<Output = Answer>;

    /// Whether the operation awaits as the reference does (see
    /// [`operation`](super::operation)): it then asks about every tool it
    /// finds, hook or not.
    fn awaits(&self) -> bool {
        false
    }

    /// Where the reference awaits a value that is no promise: the host
    /// awaits once, when the operation [`awaits`](Self::awaits).
    fn tick(&self) -> impl Future<Output = ()> {
        std::future::ready(())
    }

    /// How many questions may be out at once (see [`ahead`](super::ahead)): 1, one at a
    /// time in order, unless the host says otherwise.
    fn concurrency(&self) -> usize {
        1
    }
}

/// No hook, and the catalog's tables are the record: everything they find
/// is allowed, immediately.
pub struct NoFilter;

impl ToolFilter for NoFilter {
    fn check(&self, ask: Ask, _phase: Phase) -> impl Future<Output = Answer> {
        std::future::ready(trusted(&ask))
    }
}

/// What trusting the tables answers.
fn trusted(ask: &Ask) -> Answer {
    match ask {
        Ask::Tool(_) => Answer::ALLOWED,
        Ask::Resolve { found, .. } if found.tool().is_some() => Answer::ALLOWED,
        Ask::Resolve { .. } => Answer::DENIED,
    }
}

/// No hook: the catalog's tables are trusted as by [`NoFilter`], and each
/// resolution is written down for the binding to check against the caller's
/// record afterwards (it runs the operation again with questions if any
/// resolution no longer holds, which is safe as long as the operation
/// changed nothing: see [`ToolSearch::asks_as_it_goes`](super::ToolSearch::asks_as_it_goes)).
#[derive(Default)]
pub struct VerifyAfter {
    resolutions: RefCell<Vec<Ask>>,
}

impl VerifyAfter {
    /// The resolutions made (each an [`Ask::Resolve`]), in order.
    pub fn into_resolutions(self) -> Vec<Ask> {
        self.resolutions.into_inner()
    }
}

impl ToolFilter for VerifyAfter {
    fn check(&self, ask: Ask, _phase: Phase) -> impl Future<Output = Answer> {
        let answer = trusted(&ask);
        if let Ask::Resolve { .. } = ask {
            self.resolutions.borrow_mut().push(ask);
        }
        std::future::ready(answer)
    }
}
