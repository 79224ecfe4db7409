//! The catalog of a step with tools of its own (`includeResolvedTools`):
//! the constructor's record as it is now merged with the step's resolved
//! tools, made from their text ([`ToolSearch::step_catalog`]) or from the
//! tools the processor's [`ToolPool`] analysed at earlier steps
//! ([`ToolSearch::pool_step_catalog`]). The catalog itself, the tools it is
//! made of and the merge are [`step_catalog`](super::step_catalog)'s.

use std::sync::Arc;

use crate::search::{Catalog, CatalogError, ParamTable, PoolEntry, PoolError, PoolSlot, ToolPool};

use super::step_catalog::{spread, SpreadKey};
use super::{PoolChanges, PoolStep, PooledTool, StepCatalog, ToolEntry, ToolSearch};
use crate::protocol::tool_search as protocol;
use protocol::is_meta_tool;

impl ToolSearch {
    /// The catalog for a step whose agent resolved `resolved` tools (in
    /// `Object.entries` order), with `record` the constructor's tools record
    /// as it is now, from their text (the binding makes it from tools it
    /// analysed before: [`pool_step_catalog`](Self::pool_step_catalog)).
    /// Two requests may carry tools of the same name bound to different
    /// credentials, and one must never get the other's: a catalog names
    /// tools by [`ToolRef`](super::ToolRef) only, and the host hands out its
    /// own. The record's tools are the step's tools `0..record.len()`, and
    /// resolved tool `i` is tool `record.len() + i`.
    pub fn step_catalog(
        &self,
        record: &[ToolEntry<'_>],
        resolved: &[ToolEntry<'_>],
    ) -> Result<StepCatalog, CatalogError> {
        self.step_catalog_with_parameters(record, resolved, None, None)
    }

    /// [`step_catalog`](Self::step_catalog), with the parameters of the
    /// record's tools and of the resolved tools (one list per tool of each)
    /// for a ranking that reads them: read now, as the record's descriptions
    /// are.
    pub fn step_catalog_with_parameters(
        &self,
        record: &[ToolEntry<'_>],
        resolved: &[ToolEntry<'_>],
        record_parameters: Option<&ParamTable>,
        parameters: Option<&ParamTable>,
    ) -> Result<StepCatalog, CatalogError> {
        if !self.options.include_resolved_tools {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, None, true));
        }
        let visible = resolved.iter().enumerate().filter(|(_, t)| is_meta_tool(t.key)).map(|(i, _)| i as u32).collect();
        if resolved.iter().all(|t| is_meta_tool(t.key)) {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, Some(visible), true));
        }

        let record_keys: Vec<&[u16]> = record.iter().map(|t| t.key).collect();
        let resolved_keys: Vec<SpreadKey> = resolved.iter().map(|t| SpreadKey::of(t.key)).collect();
        let order = spread(&record_keys, &resolved_keys, |i| Ok::<_, CatalogError>(resolved[i].key))?;
        let mut builder = Catalog::builder();
        let reads_parameters = self.options.reads_parameters();
        builder.ranking(self.options.ranking).keep_parameters(reads_parameters);
        let mut sources = Vec::with_capacity(order.len());
        for source in order {
            let tool = match (source as usize).checked_sub(record.len()) {
                None => &record[source as usize],
                Some(resolved_index) => &resolved[resolved_index],
            };
            let (key, id, description) = (tool.key, tool.id, tool.description);
            if reads_parameters {
                // A record tool's parameters are in `record_parameters`, a
                // resolved one's in `parameters`, by its index among the
                // resolved tools (see `ToolRef`).
                let source_index = source as usize;
                let params: Vec<(&[u16], &[u16])> = match source_index.checked_sub(record.len()) {
                    None => record_parameters.into_iter().flat_map(|p| p.entry(source_index)).collect(),
                    Some(resolved) => parameters.into_iter().flat_map(|p| p.entry(resolved)).collect(),
                };
                builder.push_with_parameters(key, id, description, params);
            } else {
                builder.push(key, id, description);
            }
            sources.push(source);
        }
        Ok(StepCatalog::new(Arc::new(builder.build()?), Some(sources), Some(visible), false))
    }

    /// [`step_catalog`](Self::step_catalog) from tools analysed once and
    /// kept in the processor's [`ToolPool`] by slot. First the pool is
    /// brought up to date: the step's `added` tools are analysed (a new one
    /// into a slot the pool chooses), then the slots of collected tools are
    /// emptied. The step's selection is noted, and when the pool holds more
    /// than [`retention`](protocol::retention) allows for it, the tools
    /// none of the last few selections read are let go of: their binding
    /// may not learn soon enough that they are gone (a caller that makes
    /// steps without a turn of the event loop), and one that comes back is
    /// analysed again. The catalog is the one `step_catalog` makes of the
    /// tools' ids and descriptions as analysed, searching the same; only its
    /// making is cheaper. No instance is kept: the binding hands out the
    /// step's own tools by [`ToolRef`](super::ToolRef), as for `step_catalog`.
    pub fn pool_step_catalog(&self, step: PoolStep<'_>) -> Result<(StepCatalog, PoolChanges), PoolError> {
        let mut pool = self.pool.lock();
        let mut changes = PoolChanges::default();
        for (i, tool) in step.added.iter().enumerate() {
            let parameters = step.parameters.map(|p| p.entry(i));
            match tool.slot {
                Some(slot) => pool.analyse(slot, tool.id, tool.description, parameters)?,
                None => changes.added.push(pool.add(tool.id, tool.description, parameters)?),
            }
        }
        for &slot in step.released {
            pool.release(u32::try_from(slot).map_err(|_| PoolError::SlotOutOfRange(u32::MAX))?)?;
        }
        let mut new_slots = changes.added.iter().copied();
        let rows = step
            .rows
            .iter()
            .map(|&(slot, key)| {
                let slot = match slot {
                    PoolSlot::Held(slot) => Some(slot),
                    PoolSlot::New => Some(new_slots.next().ok_or(PoolError::NoTool)?),
                    PoolSlot::NoTool => None,
                };
                Ok(PooledTool { slot, key })
            })
            .collect::<Result<Vec<_>, PoolError>>()?;
        pool.note_selection(rows.iter().filter_map(|row| row.slot));
        let bound = protocol::retention::POOL_SWEEP_FLOOR.max(protocol::retention::POOL_SWEEP_FACTOR * rows.len());
        if pool.len() > bound {
            changes.forgotten = pool.sweep(protocol::retention::POOL_KEPT_SELECTIONS as u32);
        }
        let (record, resolved) = rows.split_at(step.record_count.min(rows.len()));
        let catalog = self.pooled_step_catalog(&mut pool, record, resolved)?;
        Ok((catalog, changes))
    }

    /// The catalog of a selection of the pool's tools: `record` and
    /// `resolved` are the slots (and keys) of the record's and the step's
    /// tools.
    fn pooled_step_catalog(
        &self,
        pool: &mut ToolPool,
        record: &[PooledTool<'_>],
        resolved: &[PooledTool<'_>],
    ) -> Result<StepCatalog, PoolError> {
        if !self.options.include_resolved_tools {
            return Ok(StepCatalog::new(self.static_catalog.clone(), None, None, true));
        }
        let (selection, sources, visible) = {
            fn key_of<'k>(pool: &'k ToolPool, tool: &PooledTool<'k>) -> Result<&'k [u16], PoolError> {
                match (tool.key, tool.slot) {
                    (Some(key), _) => Ok(key),
                    (None, Some(slot)) => pool.id_as_key(slot),
                    (None, None) => Err(PoolError::NoTool),
                }
            }
            let pool = &*pool;
            let record_keys = record.iter().map(|tool| key_of(pool, tool)).collect::<Result<Vec<_>, _>>()?;
            // A step's tools are mostly keyed by their ids: what the pool
            // keeps of each id merges it, without reading the tool.
            let resolved_keys = resolved
                .iter()
                .map(|tool| match (tool.key, tool.slot) {
                    (Some(key), _) => Ok(SpreadKey::of(key)),
                    (None, Some(slot)) => SpreadKey::of_id(pool.id_key(slot)?, || pool.id_as_key(slot)),
                    (None, None) => Err(PoolError::NoTool),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let visible: Vec<u32> =
                resolved_keys.iter().enumerate().filter(|(_, key)| key.meta).map(|(i, _)| i as u32).collect();
            if visible.len() == resolved.len() {
                return Ok(StepCatalog::new(self.static_catalog.clone(), None, Some(visible), true));
            }
            let order = spread(&record_keys, &resolved_keys, |i| key_of(pool, &resolved[i]))?;
            let mut selection = Vec::with_capacity(order.len());
            for &source in &order {
                let tool = match (source as usize).checked_sub(record.len()) {
                    None => &record[source as usize],
                    Some(resolved_index) => &resolved[resolved_index],
                };
                selection.push(PoolEntry { slot: tool.slot.ok_or(PoolError::NoTool)?, key: tool.key });
            }
            (selection, order, visible)
        };
        let catalog = pool.catalog(&selection)?;
        Ok(StepCatalog::new(Arc::new(catalog), Some(sources), Some(visible), false))
    }

    /// How many tools the processor's [`ToolPool`] holds, its slots, and
    /// how many of them are free.
    pub fn pool_stats(&self) -> (usize, usize, usize) {
        let pool = self.pool.lock();
        (pool.len(), pool.slot_count(), pool.free_count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{SearchOptions, Slot};
    use crate::tool_search::testing::*;
    use crate::tool_search::{PoolTool, ToolSearchOptions};

    #[test]
    fn resolved_tools_merge_like_an_object_spread() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        let resolved = Tools::new(&[
            ("search_tools", Some("search_tools"), "meta"),
            ("email", Some("mail"), "Resolved mail tool"),
            ("7", None, "array index key"),
            ("memory", None, "Remember things"),
        ]);
        let catalog = search.step_catalog(&tools.entries(), &resolved.entries()).unwrap();
        assert!(!catalog.live, "a step's merged record is its own copy");
        assert_eq!(catalog.visible, Some(vec![0]));
        // Resolved tool `i` is `3 + i`: the constructor had three tools.
        assert_eq!(catalog.sources, Some(vec![5, 0, 4, 2, 6]));
        let keys: Vec<String> =
            (0..catalog.catalog.entry_count()).map(|i| String::from_utf16_lossy(catalog.catalog.key(i))).collect();
        assert_eq!(keys, ["7", "weather", "email", "issue", "memory"]);

        // Only meta-tools resolved: the static catalog serves.
        let meta_only = Tools::new(&[("load_tool", Some("load_tool"), "meta")]);
        let catalog = search.step_catalog(&tools.entries(), &meta_only.entries()).unwrap();
        assert!(catalog.sources.is_none() && catalog.live);
        assert_eq!(catalog.visible, Some(vec![0]));
    }

    #[test]
    fn pooled_step_catalogs_merge_and_search_as_catalogs_from_the_text() {
        let tools = weather_tools();
        let search =
            ToolSearch::new(ToolSearchOptions { include_resolved_tools: true, ..options(false) }, &tools.entries())
                .unwrap();
        // `None` as a slot: a key without a tool (a meta-tool's, as the binding sends it).
        let resolved: [(&str, Option<&str>, &str, bool); 8] = [
            ("search_tools", Some("search_tools"), "meta, keyed by its id", true),
            ("load_tool", None, "meta, no tool", false),
            ("email", Some("mail"), "Resolved mail tool", true),
            ("7", None, "array index key", true),
            ("12", Some("12"), "array index id", true),
            ("getWeather", Some("getWeather"), "Weather by the id of a record tool", true),
            ("issue", Some("issue"), "Resolved issue tool, keyed by its id", true),
            ("memory", None, "Remember things", true),
        ];
        let text_resolved = Tools::new(&resolved.map(|(key, id, description, _)| (key, id, description)));
        let by_text = search.step_catalog(&tools.entries(), &text_resolved.entries()).unwrap();

        // Every tool new to the pool (the record's, then the step's that hold
        // one): the pool gives them slots 0.. in order.
        let all: Vec<_> = tools.0.iter().chain(&text_resolved.0).collect();
        let has_tool = |i: usize| i < 3 || resolved[i - 3].3;
        let added: Vec<PoolTool<'_>> = (0..all.len())
            .filter(|&i| has_tool(i))
            .map(|i| PoolTool { slot: None, id: all[i].1.as_deref(), description: &all[i].2 })
            .collect();
        let rows: Vec<(PoolSlot, Option<&[u16]>)> = (0..all.len())
            .map(|i| {
                let (key, id, _) = all[i];
                let slot = if has_tool(i) { PoolSlot::New } else { PoolSlot::NoTool };
                (slot, (id.as_deref() != Some(&key[..]) || !has_tool(i)).then_some(&key[..]))
            })
            .collect();
        let step = PoolStep { added: &added, parameters: None, released: &[], rows: &rows, record_count: 3 };
        let (by_pool, changes) = search.pool_step_catalog(step).unwrap();
        assert_eq!(changes, PoolChanges { added: (0..added.len() as Slot).collect(), forgotten: vec![] });

        assert_eq!(by_pool.sources, by_text.sources);
        assert_eq!(by_pool.visible, by_text.visible);
        assert_eq!(by_pool.visible, Some(vec![0, 1]));
        assert_eq!((by_pool.live, by_text.live), (false, false));
        let (pooled, text) = (&by_pool.catalog, &by_text.catalog);
        assert_eq!(pooled.entry_count(), text.entry_count());
        for entry in 0..text.entry_count() {
            assert_eq!(pooled.key(entry), text.key(entry));
            assert_eq!(pooled.id(entry), text.id(entry));
            assert_eq!(pooled.description(entry), text.description(entry));
            assert_eq!(pooled.find_by_key(text.key(entry)), text.find_by_key(text.key(entry)));
            assert_eq!(pooled.find_doc(text.name(entry)), text.find_doc(text.name(entry)));
        }
        let keys: Vec<String> = (0..text.entry_count()).map(|i| String::from_utf16_lossy(pooled.key(i))).collect();
        assert_eq!(keys, ["7", "12", "weather", "email", "issue", "getWeather", "memory"]);
        let options = SearchOptions { top_k: 100.0, ..SearchOptions::default() };
        for query in ["weather", "resolved tool issue", "array index", "mail email"] {
            assert_eq!(pooled.search(&units(query), &options), text.search(&units(query), &options), "{query}");
        }
    }
}
