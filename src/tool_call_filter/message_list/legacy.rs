//! The legacy `content.toolInvocations` lists of the messages a run
//! rebuilds: which entries stay, looked up by their bits in the plan's
//! verdicts ([`legacy_verdicts`]), or planned on their own tape
//! ([`plan_legacy`]) for a list the lookup cannot serve.

use super::super::prompt::PlanSink;
use super::super::tape::TapeError;
use super::super::{plan, CallId, CallIdSet, Exclude, FilterError};
use super::code;

/// Whether an entry of a rebuilt message's legacy `content.toolInvocations`
/// stays: the reference keeps one whose id the kept steps hold, or, with an
/// exclude list, one that names no excluded tool and whose call is not an
/// excluded tool's.
pub fn legacy_entry_stays(exclude: Exclude, held: bool, excluded_call: bool, excluded_name: bool) -> bool {
    held || (exclude == Exclude::Listed && !excluded_name && !excluded_call)
}

/// [`legacy_entry_stays`] for every entry's bits, as the plan ends with it
/// (see [`plan::LEGACY_VERDICTS`]): the binding looks each entry up.
pub fn legacy_verdicts(exclude: Exclude) -> [i32; plan::LEGACY_VERDICTS] {
    std::array::from_fn(|bits| {
        let has = |bit: usize| bits & bit != 0;
        let stays = legacy_entry_stays(
            exclude,
            has(plan::LEGACY_HELD_BY_STEPS),
            has(plan::LEGACY_EXCLUDED_CALL),
            has(plan::LEGACY_EXCLUDED_NAME),
        );
        i32::from(stays)
    })
}

/// The legacy lists of the messages a run rebuilds, on their own tape
/// (`legacy`, see the module docs), and what decides their entries: the
/// run's `exclude`, the excluded tools' call ids its plan ended with
/// (`excluded_ids`: with an exclude list; sorted, as the plan has them), and
/// the ids the kept steps hold (`preserve`).
#[derive(Clone, Copy, Debug)]
pub struct LegacyRun<'a> {
    pub exclude: Exclude,
    pub excluded_ids: &'a [CallId],
    pub legacy: &'a [i32],
    pub preserve: &'a [CallId],
}

/// The kept entries of the legacy lists of the rebuilt messages of a run,
/// once the run's plan said which messages are rebuilt: per list, the count
/// of entries that stay, then their positions. The binding asks this only
/// of a list with a `null` entry, which fails; it looks the others up in the
/// plan's verdicts ([`legacy_verdicts`]).
pub fn plan_legacy(run: LegacyRun<'_>) -> Result<Vec<i32>, FilterError> {
    let mut out = Vec::with_capacity(run.legacy.len());
    plan_legacy_into(run, &mut out)?;
    Ok(out)
}

/// [`plan_legacy`] into the binding's answer buffer. It builds no set: a
/// run's excluded ids are searched sorted, and the few ids the kept steps
/// hold one by one.
pub fn plan_legacy_into(run: LegacyRun<'_>, out: &mut impl PlanSink) -> Result<(), FilterError> {
    let LegacyRun { exclude, excluded_ids, legacy, preserve } = run;
    let listed = exclude == Exclude::Listed;
    if listed && excluded_ids.windows(2).any(|pair| pair[0] > pair[1]) {
        return Err(FilterError::Tape(TapeError { position: 0 }));
    }
    let many = preserve.len() > PRESERVE_SCANNED;
    let preserve_set: CallIdSet = if many { preserve.iter().copied().collect() } else { CallIdSet::default() };
    let preserved = |id: CallId| if many { preserve_set.contains(&id) } else { preserve.contains(&id) };
    let broken = |position: usize| FilterError::Tape(TapeError { position });
    let (&lists, mut rest) = legacy.split_first().ok_or(broken(0))?;
    let lists = usize::try_from(lists).map_err(|_| broken(0))?;
    for _ in 0..lists {
        let at = legacy.len() - rest.len();
        let (message, count, tail) = match *rest {
            [message, count, ref tail @ ..] => (message, count, tail),
            _ => return Err(broken(at)),
        };
        let message = usize::try_from(message).map_err(|_| broken(at))?;
        let entries = usize::try_from(count).ok().and_then(|count| tail.get(..count.checked_mul(2)?));
        let entries = entries.ok_or(broken(at + 1))?;
        rest = &tail[entries.len()..];
        let count_at = out.len();
        out.push(0);
        let mut kept = 0;
        for (position, entry) in entries.chunks_exact(2).enumerate() {
            let call_id = match entry[0] {
                // `filter` skips the holes of a sparse array.
                code::LEGACY_HOLE => continue,
                code::LEGACY_NULL => return Err(FilterError::NullLegacyInvocation { message }),
                id => (id >= 0).then_some(id),
            };
            let excluded = entry[1] != 0;
            let excluded_call = listed && call_id.is_some_and(|id| excluded_ids.binary_search(&id).is_ok());
            let stays = legacy_entry_stays(exclude, call_id.is_some_and(preserved), excluded_call, excluded);
            if stays {
                out.push(position as i32);
                kept += 1;
            }
        }
        out.set(count_at, kept);
    }
    if !rest.is_empty() {
        return Err(broken(legacy.len() - rest.len()));
    }
    Ok(())
}

/// How many ids the kept steps may hold before [`plan_legacy_into`] puts
/// them in a set: a step keeps a few calls.
const PRESERVE_SCANNED: usize = 16;
