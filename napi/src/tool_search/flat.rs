//! What an operation without questions hands the wrapper in the
//! `Int32Array` it reuses, instead of objects: Node-API builds an object one
//! property at a time, which costs more than a search of a small catalog,
//! while the wrapper builds the same objects from this layout for far less.
//! The layout is the protocol's `flat`.

use mastra_native_processors::js::JsString;
use mastra_native_processors::tool_search::{Ask, Found, SearchOutcome, VerifyAfter};
use napi::bindgen_prelude::*;

use super::{internal_error, SearchToolsOutput};
use crate::buffers::Int32Out;

pub use mastra_native_processors::protocol::tool_search::flat::{
    CHECKS, COUNT, DESCRIPTION_LENGTH, HEADER, NAME_LENGTH, RESULT_WORDS, SCORE, UNCHECKED,
};

/// `i32` words per `f64`: where a score may start.
const F64_WORDS: usize = size_of::<f64>() / size_of::<i32>();
const _: () = assert!(
    RESULT_WORDS.is_multiple_of(F64_WORDS) && SCORE.is_multiple_of(F64_WORDS),
    "scores must stay readable as f64"
);

/// The checks of the resolutions `trusted` made (the words from [`COUNT`]
/// on), and the names of those that found nothing, in order.
pub struct Checks {
    pub words: Vec<i32>,
    pub missing: Vec<JsString>,
}

impl Checks {
    /// An answer that trusted nothing.
    pub fn none() -> Checks {
        Checks { words: vec![0], missing: Vec::new() }
    }

    pub fn of(trusted: VerifyAfter) -> Result<Checks> {
        let made = trusted.into_resolutions();
        let mut words = Vec::with_capacity(CHECKS + made.len());
        words.push(i32::try_from(made.len()).map_err(|_| internal_error("too many resolutions"))?);
        let mut missing = Vec::new();
        for ask in made {
            if let Ask::Resolve { found: Found::Missing(name), .. } = &ask {
                missing.push(name.clone());
            }
            words.push(ask.code().ok_or_else(|| internal_error("a tool beyond what a question can carry"))?);
        }
        Ok(Checks { words, missing })
    }

    /// The checks of a `search_tools` answer. It only resolves tools it
    /// found, so no name should be missing; were one, the answer would be
    /// unchecked rather than trusted.
    pub fn of_search(trusted: VerifyAfter) -> Result<Checks> {
        let checks = Checks::of(trusted)?;
        Ok(if checks.missing.is_empty() { checks } else { Checks::unchecked() })
    }

    fn unchecked() -> Checks {
        Checks { words: vec![UNCHECKED], missing: Vec::new() }
    }

    /// Writes the checks into `out`, or [`UNCHECKED`] when they do not fit.
    fn write(self, out: &mut Int32Out<'_>) -> Result<()> {
        let checks = if self.words.len() <= out.len() { self } else { Checks::unchecked() };
        out.write(&[&checks.words], &[])
    }
}

/// `search_tools`' answer after the checks in `out`, its text returned, when
/// it fits there; else (or when the checks are unchecked, as the wrapper
/// then asks again) only the checks are written, and the answer is an
/// object.
pub fn search_answer(
    outcome: SearchOutcome,
    checks: Checks,
    out: &mut Int32Out<'_>,
) -> Result<Either<Utf16String, SearchToolsOutput>> {
    let at = checks.words.len() + HEADER;
    let needed = at.next_multiple_of(F64_WORDS) + RESULT_WORDS * outcome.results.len();
    if checks.words[COUNT] == UNCHECKED || needed > out.len() {
        checks.write(out)?;
        return Ok(Either::B(outcome.into()));
    }
    let mut words = checks.words;
    let text = lay_out(outcome, &mut words)?;
    out.write(&[&words], &[])?;
    Ok(Either::A(text))
}

/// Appends the answer's words to `words` (see the module's docs), and
/// gives its text.
fn lay_out(outcome: SearchOutcome, words: &mut Vec<i32>) -> Result<Utf16String> {
    let length = |units: &JsString| i32::try_from(units.len()).map_err(|_| internal_error("a string too long"));
    words.push(i32::try_from(outcome.results.len()).map_err(|_| internal_error("too many results"))?);
    words.push(length(&outcome.message)?);
    words.resize(words.len().next_multiple_of(F64_WORDS), 0);
    let mut text: Vec<u16> = outcome.message.into_units().into_vec();
    for hit in outcome.results {
        let mut result = [0; RESULT_WORDS];
        result[NAME_LENGTH] = length(&hit.name)?;
        result[DESCRIPTION_LENGTH] = length(&hit.description)?;
        for (word, bytes) in
            result[SCORE..SCORE + F64_WORDS].iter_mut().zip(hit.score.to_ne_bytes().chunks_exact(size_of::<i32>()))
        {
            *word = i32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        words.extend_from_slice(&result);
        text.extend_from_slice(hit.name.units());
        text.extend_from_slice(hit.description.units());
    }
    Ok(Utf16String::from(text))
}
