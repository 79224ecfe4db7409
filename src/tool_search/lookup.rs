//! The one rule by which a name is resolved in a tools record that the
//! caller may edit after construction: **a key is read live, an id through
//! the tables.**
//!
//! The tools record is the caller's object, which the reference keeps and
//! reads at every use, while the BM25 index and the descriptions stay as
//! they were at construction, in the reference too. Here a key is read live:
//! a tool added, replaced or deleted under a key is found, or not, under
//! that key at once. An id is resolved through the catalog's tables, made
//! when the record's tools were read ([`StepCatalog::find`]): a tool whose
//! `id` changed in place, or one added under a key other than its id, is
//! found by that id once the tables are made again (docs/differences.md has
//! the measured reason: reading the ids again is reading the whole record,
//! at every operation). So no operation reads more of the record than the
//! keys of the names it looks up ([`reads`]), and what lists the record (the
//! injected catalog, `load_tool`'s suggestions) lists the keys the tables
//! hold, and looks up only the keys it lists.
//!
//! Where it is applied: over a *live* catalog (the constructor's record, see
//! [`StepCatalog::live`]) each resolution is put to the host as an
//! [`Ask::Resolve`] ([`admission`]), and the host makes the [`reads`] and
//! answers with the tool the record gives now, and whether the hook allows
//! it (`lib/tool-search/operation.js`). A host without a hook may instead
//! trust the tables ([`VerifyAfter`]) and have the binding make the same
//! reads afterwards, running the operation again with questions should any
//! differ. A step's own catalog is made of the record and the step's tools
//! as the step read them, and its tables are the answer.
//!
//! [`StepCatalog::find`]: super::StepCatalog::find
//! [`StepCatalog::live`]: super::StepCatalog::live
//! [`Ask::Resolve`]: super::Ask::Resolve
//! [`admission`]: super::admission
//! [`VerifyAfter`]: super::VerifyAfter

use super::{Found, Lookup};
use crate::protocol::tool_search::operation as code;

/// The reads that resolve a name in the caller's record where the
/// catalog's tables found `found` for a name looked up with `lookup`, in the
/// order the reference looks it up: the key that is the name ([`OWN_KEY`]),
/// and the tool now under the key of the tool the tables found by id, where
/// it still has that id ([`STANDING`]). A name the tables found by no id is
/// not looked for by id (this module's rule). Each read is of one key, so a
/// name costs the same in any record. None: the record gives nothing (a
/// search hit the tables name by no id).
///
/// [`OWN_KEY`]: code::ask::OWN_KEY
/// [`STANDING`]: code::ask::STANDING
pub fn reads(lookup: Lookup, found: &Found) -> &'static [i32] {
    use code::ask::{OWN_KEY, STANDING};
    match (lookup, found) {
        (Lookup::KeyFirst, Found::ById(_)) => &[OWN_KEY, STANDING],
        (Lookup::IdFirst, Found::ById(_)) => &[STANDING, OWN_KEY],
        (Lookup::IdOnly, Found::ById(_)) => &[STANDING],
        (Lookup::KeyFirst | Lookup::IdFirst, Found::ByKey(_) | Found::Missing(_)) => &[OWN_KEY],
        (Lookup::IdOnly, Found::ByKey(_) | Found::Missing(_)) => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;

    #[test]
    fn every_lookup_reads_at_most_two_keys_and_none_by_id_alone_for_a_name_no_tool_had() {
        use code::ask::{OWN_KEY, STANDING};
        for lookup in Lookup::ALL {
            for found in [Found::ByKey(1), Found::ById(1), Found::Missing(JsString::from("x"))] {
                let reads = reads(lookup, &found);
                assert!(reads.len() <= 2, "{lookup:?} {found:?}");
                assert!(reads.iter().all(|&read| read == OWN_KEY || read == STANDING), "{lookup:?} {found:?}");
                // The key of the tool found by id is read only for a tool found by id.
                assert_eq!(reads.contains(&STANDING), matches!(found, Found::ById(_)), "{lookup:?} {found:?}");
                // `findToolById` alone never reads the key that is the name.
                assert_eq!(reads.contains(&OWN_KEY), lookup != Lookup::IdOnly, "{lookup:?} {found:?}");
            }
        }
        // The order the reference looks a name up in: key first without a hook, id first with one.
        assert_eq!(reads(Lookup::KeyFirst, &Found::ById(1)), [OWN_KEY, STANDING]);
        assert_eq!(reads(Lookup::IdFirst, &Found::ById(1)), [STANDING, OWN_KEY]);
    }
}
