//! A catalog's lookups by key, id and name ([`Lookups`]), and what is built
//! from its entries ([`Built`]), on the catalog's thread or its own: the
//! lookups, made here, with the index (see `index`) beside them.

use std::sync::Arc;

use hashbrown::HashTable;

use crate::search::bm25::DocId;
use crate::search::hash::hash_units;
use crate::search::params::ParamTable;
use crate::search::span::EntrySpans;

use super::index::{IndexSource, Partial, Searchable};
use super::ranking::Ranking;
use super::text::CatalogText;

/// Everything built from the entries.
pub(super) struct Built {
    pub(super) lookups: Lookups,
    pub(super) searchable: Searchable,
}

pub(super) struct Lookups {
    /// Entry index by record key.
    pub(super) by_key: HashTable<u32>,
    /// First entry (record order) by real `id`.
    pub(super) by_id: HashTable<u32>,
    /// Live document by indexed name.
    pub(super) by_name: HashTable<DocId>,
    /// Documents whose name a later entry took over.
    pub(super) retired: Vec<bool>,
}

/// The entries to build from, shareable with the building thread.
pub(super) struct Source {
    pub(super) text: Arc<CatalogText>,
    pub(super) entries: Arc<Vec<EntrySpans>>,
    pub(super) ranking: Ranking,
    pub(super) params: Option<Arc<ParamTable>>,
    /// The reference's index of every entry, already made from tokens kept
    /// from an earlier analysis (see [`Catalog::from_analysis`](super::Catalog::from_analysis)), only to be
    /// finished.
    pub(super) analysed: Option<Partial>,
}

impl Source {
    pub(super) fn build(mut self) -> Built {
        if let Some(analysed) = self.analysed.take() {
            let lookups = self.lookups();
            return Built { searchable: analysed.finish(&lookups.retired), lookups };
        }
        let mut index = IndexSource {
            text: self.text.clone(),
            entries: self.entries.clone(),
            retired: Vec::new(),
            ranking: self.ranking,
            params: self.params.clone(),
        };
        if self.ranking == Ranking::Reference {
            // The documents retire only once indexed, so the lookups (which
            // say which retire) are made meanwhile: the first search waits
            // for the longer of the two, not for both.
            let (partial, lookups) = index.index_entries(index.split_point_beside_lookups(), || self.lookups());
            return Built { searchable: partial.finish(&lookups.retired), lookups };
        }
        // The `'fielded'` builder leaves retired documents out as it goes.
        let lookups = self.lookups();
        index.retired = lookups.retired.clone();
        Built { lookups, searchable: index.build() }
    }

    fn lookups(&self) -> Lookups {
        let (text, entries) = (&self.text, &self.entries);
        let count = entries.len();
        let mut by_key: HashTable<u32> = HashTable::with_capacity(count);
        let mut by_id: HashTable<u32> = HashTable::with_capacity(count);
        let mut by_name: HashTable<DocId> = HashTable::with_capacity(count);
        // Each entry adds one document, so document `i` is entry `i`; a name
        // added again retires its earlier document.
        let mut retired = vec![false; count];
        for entry in 0..count as u32 {
            let spans = entries[entry as usize];
            let key_of = |e: &u32| text.get(*e as usize, entries[*e as usize].key);
            let id_of = |e: &u32| entries[*e as usize].id.map_or(&[][..], |span| text.get(*e as usize, span));
            let name_of = |d: &DocId| text.get(*d as usize, entries[*d as usize].name());

            // Each text is hashed once: most tools are keyed by their id, so
            // key, id and name are usually one text and one hash.
            let key = text.get(entry as usize, spans.key);
            let id_hash = |id: &[u16]| text.id_hashes.get(entry as usize).copied().unwrap_or_else(|| hash_units(id));
            let key_hash = match spans.id {
                Some(span) if span == spans.key => id_hash(key),
                _ => hash_units(key),
            };
            let id = spans.id.map(|span| {
                let id = text.get(entry as usize, span);
                (id, if span == spans.key || id == key { key_hash } else { id_hash(id) })
            });

            // Record keys are unique in a JS object; should a caller repeat
            // one anyway, the later entry wins, like a repeated assignment.
            match by_key.find_mut(key_hash, |e| key_of(e) == key) {
                Some(existing) => *existing = entry,
                None => {
                    by_key.insert_unique(key_hash, entry, |e| hash_units(key_of(e)));
                }
            }

            if let Some((id, id_hash)) = id {
                if by_id.find(id_hash, |e| id_of(e) == id).is_none() {
                    by_id.insert_unique(id_hash, entry, |e| hash_units(id_of(e)));
                }
            }

            // The name is the id, unless that is absent or empty.
            let (name, name_hash) = id.filter(|(id, _)| !id.is_empty()).unwrap_or((key, key_hash));
            match by_name.find_mut(name_hash, |d| name_of(d) == name) {
                Some(existing) => {
                    // Same name again: the old document leaves the index and
                    // this one goes to the end of every insertion order.
                    retired[*existing as usize] = true;
                    *existing = entry;
                }
                None => {
                    by_name.insert_unique(name_hash, entry, |d| hash_units(name_of(d)));
                }
            }
        }

        Lookups { by_key, by_id, by_name, retired }
    }
}
