//! The context store's memory of the message lists it has read.
//!
//! An agent run hands every step the previous step's messages (the same
//! objects) plus a few new ones, and the context store derives the loaded
//! names from all of them each step. The JavaScript half remembers, for a
//! few recent lists, what it read from each message, and on the next step
//! checks that the messages still hold it (see `lib/context-history.js`);
//! here, for the same lists, are the names their `search_tools` /
//! `load_tool` parts activated and how many names there were after each
//! part. A step then continues a list: the first `kept` parts it had still
//! stand, and only the parts after them (those of new or changed messages)
//! cross and are read.
//!
//! Because [`NameSet`] keeps first-insertion order and names are only ever
//! added, the names of a list's first `k` parts are exactly the first
//! `ends[k - 1]` names of the whole list: dropping parts from the end is a
//! truncation, and the answer equals [`activated_names_from_messages`] over
//! all of the parts.

use std::fmt;

use super::facts::{activate, ToolResultFacts};
use super::NameSet;
use crate::protocol::tool_search::message_facts::REMEMBERED_LISTS;

#[cfg(doc)]
use super::facts::activated_names_from_messages;

/// The names activated by one remembered list's meta-tool parts.
#[derive(Default)]
struct RememberedList {
    names: NameSet,
    /// `ends[i]`: how many names there were after part `i`.
    ends: Vec<usize>,
}

/// The lists of one processor, by slot.
pub struct RememberedLists {
    slots: Vec<RememberedList>,
}

impl Default for RememberedLists {
    fn default() -> RememberedLists {
        RememberedLists { slots: (0..REMEMBERED_LISTS).map(|_| RememberedList::default()).collect() }
    }
}

/// A step's messages as the continuation of a remembered list: the list in
/// `slot`, whose first `kept` meta-tool parts still stand, and the `parts`
/// that follow them.
#[derive(Clone, Copy)]
pub struct Continuation<'p> {
    pub slot: usize,
    pub kept: usize,
    pub parts: &'p [ToolResultFacts],
}

/// A continuation that does not fit what is remembered: a slot past
/// [`REMEMBERED_LISTS`], or more parts kept than the list has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContinueError {
    pub slot: usize,
    pub kept: usize,
}

impl fmt::Display for ContinueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "remembered list {} cannot keep {} parts", self.slot, self.kept)
    }
}

impl std::error::Error for ContinueError {}

impl RememberedLists {
    /// Continues the list in `slot`: its first `kept` parts stand (0 starts
    /// the slot afresh), `parts` follow them. Gives the names the whole list
    /// activates, in message order.
    pub fn continue_list(
        &mut self,
        slot: usize,
        kept: usize,
        parts: &[ToolResultFacts],
    ) -> Result<&NameSet, ContinueError> {
        let list = self.slots.get_mut(slot).ok_or(ContinueError { slot, kept })?;
        if kept == 0 {
            // A fresh start gives back what a longer list held.
            *list = RememberedList::default();
        } else if kept > list.ends.len() {
            return Err(ContinueError { slot, kept });
        } else {
            list.names.truncate(list.ends[kept - 1]);
            list.ends.truncate(kept);
        }
        list.ends.reserve(parts.len());
        for part in parts {
            activate(&mut list.names, part);
            list.ends.push(list.names.len());
        }
        Ok(&list.names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;
    use crate::protocol::tool_search::meta_tools::{LOAD_TOOL, SEARCH_TOOLS};
    use crate::stores::activated_names_from_messages;
    use crate::test_rng::Rng;

    fn random_part(rng: &mut Rng) -> ToolResultFacts {
        let name = |rng: &mut Rng| JsString::from(format!("t{}", rng.next() % 12).as_str());
        ToolResultFacts {
            tool_name: Some(JsString::from(if rng.next().is_multiple_of(2) { SEARCH_TOOLS } else { LOAD_TOOL })),
            is_result_state: !rng.next().is_multiple_of(4),
            result_names: (0..rng.next() % 3).map(|_| name(rng)).collect(),
            loaded: (0..rng.next() % 3).map(|_| name(rng)).collect(),
            result_tool_name: rng.next().is_multiple_of(2).then(|| name(rng)),
            success: rng.next().is_multiple_of(2),
        }
    }

    #[test]
    fn a_continued_list_names_what_a_whole_reading_names() {
        let mut rng = Rng::new(0xc0ffee);
        let mut lists = RememberedLists::default();
        // What each slot's list is now, part by part.
        let mut whole: Vec<Vec<ToolResultFacts>> = vec![Vec::new(); REMEMBERED_LISTS];
        for _ in 0..5_000 {
            let slot = (rng.next() as usize) % REMEMBERED_LISTS;
            let list = &mut whole[slot];
            let kept = match rng.next() % 4 {
                0 => 0,
                1 => (rng.next() as usize) % (list.len() + 1),
                _ => list.len(),
            };
            list.truncate(kept);
            let added: Vec<ToolResultFacts> = (0..rng.next() % 4).map(|_| random_part(&mut rng)).collect();
            list.extend(added.iter().cloned());
            let names = lists.continue_list(slot, kept, &added).unwrap();
            let expected = activated_names_from_messages(list.iter());
            assert_eq!(names.iter().collect::<Vec<_>>(), expected.iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn continuations_that_do_not_fit_are_errors() {
        let mut lists = RememberedLists::default();
        let part =
            ToolResultFacts { tool_name: Some(JsString::from(LOAD_TOOL)), is_result_state: true, ..Default::default() };
        assert!(lists.continue_list(0, 0, &[part.clone(), part.clone()]).is_ok());
        assert_eq!(lists.continue_list(0, 3, &[]).err(), Some(ContinueError { slot: 0, kept: 3 }));
        assert!(lists.continue_list(0, 2, &[]).is_ok());
        assert_eq!(
            lists.continue_list(REMEMBERED_LISTS, 0, &[]).err(),
            Some(ContinueError { slot: REMEMBERED_LISTS, kept: 0 })
        );
        // A failed continuation leaves the list as it was.
        assert_eq!(lists.slots[0].ends, vec![0, 0]);
    }
}
