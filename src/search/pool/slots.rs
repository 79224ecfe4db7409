//! A slot's life: a tool new to the pool analysed into a slot the pool
//! chooses ([`ToolPool::add`]), analysed again when it changed
//! ([`ToolPool::analyse`]), emptied when it is gone ([`ToolPool::release`]),
//! or when no recent selection read it ([`ToolPool::note_selection`],
//! [`ToolPool::sweep`]: the protocol's `retention`).

use std::sync::Arc;

use crate::js::to_lower_utf16_into;
use crate::search::catalog::CatalogError;
use crate::search::params::ParamTable;
use crate::search::tokenize::for_each_token;

use super::tool::{pool_tool, PoolTool};
use super::vocabulary::{count_term, reset_local, Numbering};
use super::{IdKey, PoolError, Slot, ToolPool};

impl ToolPool {
    /// Puts a tool new to the pool in a slot of its choosing (the last one
    /// emptied, else the next), and gives the slot: the only way a slot is
    /// filled. The arguments are [`analyse`](Self::analyse)'s.
    pub fn add<'p>(
        &mut self,
        id: Option<&[u16]>,
        description: &[u16],
        parameters: Option<impl IntoIterator<Item = (&'p [u16], &'p [u16])>>,
    ) -> Result<Slot, PoolError> {
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => Slot::try_from(self.tools.len()).map_err(|_| CatalogError::TooLarge)?,
        };
        self.fill(slot, id, description, parameters);
        Ok(slot)
    }

    /// Analyses the tool in `slot` again, as it is now (it changed since):
    /// its analysis is replaced. Only a slot holding a tool can be: the
    /// pool alone chooses where a tool goes ([`add`](Self::add)). `id` is
    /// `tool.id` when it is a string, `description` `tool.description ||
    /// ''`, and `parameters` the tool's, for a ranking that reads them or a
    /// pool that keeps them (ignored otherwise).
    pub fn analyse<'p>(
        &mut self,
        slot: Slot,
        id: Option<&[u16]>,
        description: &[u16],
        parameters: Option<impl IntoIterator<Item = (&'p [u16], &'p [u16])>>,
    ) -> Result<(), PoolError> {
        pool_tool(&self.tools, slot)?;
        self.fill(slot, id, description, parameters);
        Ok(())
    }

    /// Puts the tool's analysis in `slot`: one [`add`](Self::add) chose (an
    /// emptied one, or the next), or one [`analyse`](Self::analyse) found
    /// holding a tool.
    fn fill<'p>(
        &mut self,
        slot: Slot,
        id: Option<&[u16]>,
        description: &[u16],
        parameters: Option<impl IntoIterator<Item = (&'p [u16], &'p [u16])>>,
    ) {
        let at = slot as usize;
        debug_assert!(at <= self.tools.len(), "slot {slot} is past the next");
        let mut tool = PoolTool {
            text: Arc::from([]),
            id_len: id.map(|id| id.len() as u32),
            description_len: description.len() as u32,
            terms: Vec::new(),
            parameters: None,
        };
        if self.keeps_parameters {
            let mut table = ParamTable::new();
            table.push(parameters.into_iter().flatten());
            tool.parameters = Some(table);
        }
        if !self.ranking.reads_parameters() {
            // The reference indexes `"<name> <description>"` lowercased; the
            // space separates, so the two are tokenized apart. Counted here
            // as pairs, later flattened into `terms`.
            let ToolPool { terms, lowered, lower_id, numbering: Numbering { local, met, counts }, .. } = self;
            counts.clear();
            let mut count = |token: &[u16]| count_term(local, met, counts, terms.intern(token), 1);
            if tool.named_by_id() {
                lower_id.clear();
                to_lower_utf16_into(id.unwrap_or_default(), lower_id);
                for_each_token(lower_id, &mut count);
            }
            lowered.clear();
            to_lower_utf16_into(description, lowered);
            for_each_token(lowered, &mut count);
            reset_local(local, met);
            tool.terms = counts.iter().flat_map(|&(term, n)| [term, n]).collect();
        }
        // One allocation of the exact length: the chained slices' lengths are known.
        tool.text = id.unwrap_or_default().iter().chain(description).chain(&self.lower_id).copied().collect();
        self.lower_id.clear();
        if at == self.tools.len() {
            self.tools.push(None);
            self.id_keys.push(None);
            self.read_by.push(0);
        }
        self.id_keys[at] = id.map(IdKey::of);
        if self.tools[at].replace(tool).is_none() {
            self.filled += 1;
        }
    }

    /// Empties `slot`: its tool is gone.
    pub fn release(&mut self, slot: Slot) -> Result<(), PoolError> {
        match self.tools.get_mut(slot as usize) {
            Some(tool @ Some(_)) => {
                *tool = None;
                self.id_keys[slot as usize] = None;
                self.filled -= 1;
                self.free.push(slot);
            }
            Some(None) => return Err(PoolError::EmptySlot(slot)),
            None => return Err(PoolError::SlotOutOfRange(slot)),
        }
        Ok(())
    }

    /// Notes that a selection read the tools in `slots`.
    pub fn note_selection(&mut self, slots: impl IntoIterator<Item = Slot>) {
        self.selections += 1;
        for slot in slots {
            if let Some(read_by) = self.read_by.get_mut(slot as usize) {
                *read_by = self.selections;
            }
        }
    }

    /// Empties the slots whose tools none of the last `kept` selections
    /// read, and gives them.
    pub fn sweep(&mut self, kept: u32) -> Vec<Slot> {
        let keep_from = self.selections.saturating_sub(kept) + 1;
        let unread: Vec<Slot> = (0..self.tools.len())
            .filter(|&at| self.tools[at].is_some() && self.read_by[at] < keep_from)
            .map(|at| at as Slot)
            .collect();
        for &slot in &unread {
            // Each holds a tool, just checked.
            let _ = self.release(slot);
        }
        unread
    }
}

#[cfg(test)]
mod tests {
    use crate::search::pool::tests::*;
    use crate::search::pool::{PoolEntry, PoolError, Slot, ToolPool};
    use crate::search::Ranking;
    use crate::test_rng::Rng;

    #[test]
    fn a_changed_tool_analysed_again_into_its_slot_is_searched_as_it_is_now() {
        let mut pool = ToolPool::new(Ranking::Reference);
        let mut weather =
            Tool { key: u("weather"), id: Some(u("weather")), description: u("Current weather"), parameters: vec![] };
        let email = Tool { key: u("mail"), id: Some(u("send")), description: u("Send an email"), parameters: vec![] };
        assert_eq!([add(&mut pool, &weather), add(&mut pool, &email)], [0, 1]);
        let before = from_pool(&mut pool, &[(0, &weather), (1, &email)]);
        assert_eq!(before.rank(&u("current"), 10.0).len(), 1);
        weather.description = u("Stock quotes");
        weather.id = Some(u("stocks"));
        analyse(&mut pool, 0, &weather);
        assert_eq!(pool.len(), 2);
        let after = from_pool(&mut pool, &[(0, &weather), (1, &email)]);
        assert_same(&after, &from_text(&[&weather, &email], Ranking::Reference), "changed");
        assert!(after.rank(&u("current"), 10.0).is_empty());
        assert_eq!(after.rank(&u("quotes"), 10.0).len(), 1);
        // A catalog made before keeps what it was made of.
        assert_eq!(before.rank(&u("current"), 10.0).len(), 1);
        assert_eq!(before.description(0), &u("Current weather")[..]);
    }

    #[test]
    fn slots_are_released_and_filled_again() {
        let mut rng = Rng::new(3);
        let all = tools(&mut rng, 40);
        let mut pool = pool_of(&all, Ranking::Reference);
        for slot in (0..40).step_by(2) {
            pool.release(slot).unwrap();
        }
        assert_eq!((pool.len(), pool.slot_count()), (20, 40));
        assert!(!pool.holds(0) && pool.holds(1));
        assert_eq!(pool.release(0), Err(PoolError::EmptySlot(0)));
        assert_eq!(pool.release(40), Err(PoolError::SlotOutOfRange(40)));
        let selection = [PoolEntry { slot: 0, key: Some(&[]) }];
        assert!(matches!(pool.catalog(&selection), Err(PoolError::EmptySlot(0))));
        // Only a slot holding a tool is analysed again: the pool alone fills
        // slots, emptied or new.
        let none = None::<[(&[u16], &[u16]); 0]>;
        assert_eq!(pool.analyse(0, None, &[], none), Err(PoolError::EmptySlot(0)));
        assert_eq!(pool.analyse(40, None, &[], none), Err(PoolError::SlotOutOfRange(40)));
        assert_eq!((pool.len(), pool.slot_count(), pool.free_count()), (20, 40, 20));
        // Emptied slots take other tools, the last emptied first; the
        // released ones are not found.
        let others = tools(&mut Rng::new(4), 20);
        let mut picked = Vec::new();
        for (i, tool) in others.iter().enumerate() {
            let slot = add(&mut pool, tool);
            assert_eq!(slot, 38 - 2 * i as Slot);
            picked.push((slot, tool));
            picked.push((slot + 1, &all[slot as usize + 1]));
        }
        assert_eq!((pool.len(), pool.slot_count()), (40, 40));
        let picked = distinct_keys(picked);
        let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
        assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, Ranking::Reference), "refilled");
        // A tool keyed by its id needs one.
        let no_id = Tool { key: u("k"), id: None, description: vec![], parameters: vec![] };
        assert_eq!(add(&mut pool, &no_id), 40);
        assert!(matches!(pool.catalog(&[PoolEntry { slot: 40, key: None }]), Err(PoolError::NoIdForKey(40))));
    }

    #[test]
    fn new_tools_fill_emptied_slots_first_and_unread_tools_are_swept() {
        let all = tools(&mut Rng::new(21), 6);
        let mut pool = ToolPool::new(Ranking::Reference);
        let slots: Vec<Slot> = all[..4].iter().map(|tool| add(&mut pool, tool)).collect();
        assert_eq!(slots, [0, 1, 2, 3]);
        pool.release(1).unwrap();
        pool.release(2).unwrap();
        assert_eq!((pool.len(), pool.slot_count(), pool.free_count()), (2, 4, 2));
        // The last emptied first, then the next new slot.
        assert_eq!([add(&mut pool, &all[4]), add(&mut pool, &all[5]), add(&mut pool, &all[0])], [2, 1, 4]);
        assert_eq!((pool.len(), pool.slot_count(), pool.free_count()), (5, 5, 0));
        // An emptied slot is filled by the pool, not by number.
        pool.release(3).unwrap();
        let none = None::<[(&[u16], &[u16]); 0]>;
        assert_eq!(pool.analyse(3, None, &[], none), Err(PoolError::EmptySlot(3)));
        assert_eq!((add(&mut pool, &all[3]), pool.free_count()), (3, 0));
        // Selections 1 to 3 read slots 0, 1 and 2; keeping the last two, the
        // tools only the first read (0) and those none read (3, 4) go.
        pool.note_selection([0, 1]);
        pool.note_selection([1]);
        pool.note_selection([2, 1]);
        assert_eq!(pool.sweep(2), [0, 3, 4]);
        assert_eq!((pool.len(), pool.free_count()), (2, 3));
        assert_eq!(pool.sweep(2), Vec::<Slot>::new());
    }
}
