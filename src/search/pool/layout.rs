//! A selection's catalog ([`ToolPool::catalog`]): the selected tools' text
//! shared, not copied, and, for the reference's ranking, their BM25 index
//! laid out from the kept term numbers, a large selection in two halves at
//! once.

use std::sync::Arc;

use crate::js::to_lower_utf16_into;
use crate::search::bm25::{Bm25Builder, TermDict};
use crate::search::catalog::{Catalog, CatalogParts, CatalogText, Partial, Ranking, IN_SHARED, SPLIT_FROM_ENTRIES};
use crate::search::params::ParamTable;
use crate::search::span::{EntrySpans, Span};
use crate::search::tokenize::for_each_token;

use super::prefetch::prefetch_ahead;
use super::tool::{pool_tool, PoolTool};
use super::vocabulary::{index_term, reset_local, Numbering};
use super::{IdKey, PoolEntry, PoolError, ToolPool};

impl ToolPool {
    /// The catalog of a selection of the pool's tools, in record order (the
    /// entries `Catalog::new` would take, with each tool's id and description
    /// as analysed): the same catalog, searching the same, as one built from
    /// the text. A large selection is laid out in two halves at once, each
    /// into an index of its own, the second then appended to the first (as a
    /// large catalog's build does).
    pub fn catalog(&mut self, selection: &[PoolEntry<'_>]) -> Result<Catalog, PoolError> {
        if self.terms.len() > self.compact_above {
            self.compact();
        }
        self.intern_key_names(selection);
        let split = !self.ranking.reads_parameters() && selection.len() >= SPLIT_FROM_ENTRIES;
        let ToolPool { ranking, keeps_parameters, tools, id_keys, terms, numbering, second_numbering, .. } = self;
        let pool = PoolView { ranking: *ranking, keeps_parameters: *keeps_parameters, tools, id_keys, terms };
        let layout = if split {
            let (head, tail) = selection.split_at(selection.len() / 2);
            let (head_layout, tail_layout) = std::thread::scope(|scope| {
                let tail_thread = std::thread::Builder::new()
                    .name("tool-pool-layout".into())
                    .spawn_scoped(scope, || pool.lay_out(tail, second_numbering));
                let head_layout = pool.lay_out(head, numbering);
                (head_layout, tail_thread.map(|thread| thread.join()))
            });
            let mut layout = head_layout?;
            match tail_layout {
                Ok(Ok(tail_layout)) => layout.append(tail_layout?),
                // No second thread, or it failed: lay out the rest here, and
                // start its numbering afresh (a failed one may not be clean).
                _ => {
                    *second_numbering = Numbering::default();
                    layout.append(pool.lay_out(tail, numbering)?);
                }
            }
            layout
        } else {
            pool.lay_out(selection, numbering)?
        };
        let Layout { own, shared, entries, id_hashes, params, analysed } = layout;
        let text = CatalogText::with_shared(own, shared, id_hashes);
        Ok(Catalog::from_analysis(CatalogParts { text, entries, params, analysed }, *ranking)?)
    }

    /// Puts the tokens of the keys that name their tools (tools without an
    /// id of their own) in the vocabulary, so that laying out a selection
    /// only reads it.
    fn intern_key_names(&mut self, selection: &[PoolEntry<'_>]) {
        if self.ranking.reads_parameters() {
            return;
        }
        for entry in selection {
            // A slot without a tool is reported by the layout, in order.
            let (Some(key), Some(Some(tool))) = (entry.key, self.tools.get(entry.slot as usize)) else {
                continue;
            };
            if tool.named_by_id() {
                continue;
            }
            self.lowered.clear();
            to_lower_utf16_into(key, &mut self.lowered);
            let ToolPool { terms, lowered, .. } = self;
            for_each_token(lowered, |token| {
                terms.intern(token);
            });
        }
    }
}

/// What laying out selections reads of a pool, shareable between threads.
#[derive(Clone, Copy)]
struct PoolView<'p> {
    ranking: Ranking,
    keeps_parameters: bool,
    tools: &'p [Option<PoolTool>],
    id_keys: &'p [Option<IdKey>],
    terms: &'p TermDict,
}

/// A run of a selection laid out: its part of the catalog's text and entries
/// and, for the reference's ranking, of its index.
struct Layout {
    /// Keys that are not their tool's id.
    own: Vec<u16>,
    shared: Vec<Arc<[u16]>>,
    entries: Vec<EntrySpans>,
    id_hashes: Vec<u64>,
    params: Option<ParamTable>,
    analysed: Option<Partial>,
}

impl Layout {
    /// Appends the run that follows this one (a ranking that reads
    /// parameters is not split; a pool that keeps them for a pattern is).
    fn append(&mut self, next: Layout) {
        let offset = self.own.len() as u32;
        self.own.extend_from_slice(&next.own);
        self.entries.extend(next.entries.into_iter().map(|mut entry| {
            if entry.key.start & IN_SHARED == 0 {
                entry.key = Span::new(entry.key.start + offset, entry.key.end + offset);
            }
            entry
        }));
        self.shared.extend(next.shared);
        self.id_hashes.extend(next.id_hashes);
        if let (Some(params), Some(next)) = (&mut self.params, next.params) {
            params.append(next);
        }
        if let (Some(analysed), Some(next)) = (&mut self.analysed, next.analysed) {
            analysed.append(next);
        }
    }
}

impl PoolView<'_> {
    /// Lays out `selection` (key names already in the vocabulary, see
    /// [`ToolPool::intern_key_names`]) into a catalog's parts, numbering
    /// terms with `numbering`, which it leaves clean.
    fn lay_out(self, selection: &[PoolEntry<'_>], numbering: &mut Numbering) -> Result<Layout, PoolError> {
        let PoolView { ranking, keeps_parameters, tools, id_keys, terms } = self;
        let reads_parameters = ranking.reads_parameters();
        let (mut keys_len, mut lower_names_len, mut tokens) = (0, 0, 0);
        for entry in selection {
            if let Some(Some(tool)) = tools.get(entry.slot as usize) {
                keys_len += entry.key.map_or(0, <[u16]>::len);
                lower_names_len +=
                    if tool.named_by_id() { tool.lower_id().len() } else { entry.key.map_or(0, <[u16]>::len) };
                tokens += tool.terms.len() / 2;
            }
        }
        let mut layout = Layout {
            own: Vec::with_capacity(keys_len),
            shared: Vec::with_capacity(selection.len()),
            entries: Vec::with_capacity(selection.len()),
            id_hashes: Vec::with_capacity(selection.len()),
            params: keeps_parameters.then(ParamTable::new),
            analysed: (!reads_parameters).then(|| {
                // No more distinct terms than tokens, nor than the vocabulary has
                // (key names are in it too): room for them at once, not by doubling.
                let distinct = tokens.min(terms.len());
                Partial {
                    index: Bm25Builder::with_capacity(selection.len(), 0)
                        .reserve_postings(tokens)
                        .reserve_terms(distinct, terms.text_len() / terms.len().max(1) * distinct),
                    lower_names: Vec::with_capacity(lower_names_len),
                    lower_name_ends: Vec::with_capacity(selection.len()),
                }
            }),
        };
        let Layout { own, shared, entries, id_hashes, params, analysed } = &mut layout;
        let Numbering { local, met, counts } = numbering;
        // Whatever happens, the numbering is left clean for the next selection.
        let result = (|| {
            for (at, entry) in selection.iter().enumerate() {
                prefetch_ahead(tools, selection, at);
                id_hashes.push(id_keys.get(entry.slot as usize).copied().flatten().map_or(0, |id| id.hash));
                let tool = pool_tool(tools, entry.slot)?;
                let id_span = tool.id_len.map(|len| in_shared(0, len));
                let id_end = tool.id_len.unwrap_or(0);
                let description = in_shared(id_end, id_end + tool.description_len);
                let key = match entry.key {
                    Some(key) => {
                        let start = own.len() as u32;
                        own.extend_from_slice(key);
                        entries.push(EntrySpans { key: Span::new(start, own.len() as u32), id: id_span, description });
                        key
                    }
                    None => {
                        let id_span = id_span.ok_or(PoolError::NoIdForKey(entry.slot))?;
                        entries.push(EntrySpans { key: id_span, id: Some(id_span), description });
                        tool.id().unwrap_or_default()
                    }
                };
                shared.push(tool.text.clone());
                if let Some(params) = params {
                    params.push(tool.parameters.iter().flat_map(|p| p.entry(0)));
                }
                let Some(Partial { index, lower_names, lower_name_ends }) = analysed else {
                    continue;
                };
                // The document, as numbers of this selection's index.
                let pairs = tool.terms.chunks_exact(2).map(|pair| (pair[0], pair[1]));
                counts.clear();
                if tool.named_by_id() {
                    lower_names.extend_from_slice(tool.lower_id());
                    for (term, n) in pairs {
                        counts.push((index_term(index, terms, local, met, term), n));
                    }
                    index.add_distinct_counts(counts);
                } else {
                    // Named by its key: a name of this selection's, its
                    // tokens put in the vocabulary beforehand.
                    let start = lower_names.len();
                    to_lower_utf16_into(key, lower_names);
                    for_each_token(&lower_names[start..], |token| {
                        if let Some(term) = terms.get(token) {
                            counts.push((index_term(index, terms, local, met, term), 1));
                        }
                    });
                    for (term, n) in pairs {
                        counts.push((index_term(index, terms, local, met, term), n));
                    }
                    index.add_counts(counts.iter().copied());
                }
                lower_name_ends.push(lower_names.len() as u32);
            }
            Ok(())
        })();
        reset_local(local, met);
        result.map(|()| layout)
    }
}

/// A span of a tool's shared text (see `CatalogText`).
fn in_shared(start: u32, end: u32) -> Span {
    Span::new(start | IN_SHARED, end | IN_SHARED)
}

#[cfg(test)]
mod tests {
    use crate::search::catalog::SPLIT_FROM_ENTRIES;
    use crate::search::pool::tests::*;
    use crate::search::pool::{Slot, ToolPool};
    use crate::search::Ranking;
    use crate::test_rng::Rng;

    #[test]
    fn random_selections_search_as_catalogs_built_from_their_text() {
        for ranking in Ranking::ALL {
            let mut rng = Rng::new(5);
            let all = tools(&mut rng, 300);
            let mut pool = pool_of(&all, ranking);
            assert_eq!(pool.len(), all.len());
            for round in 0..12 {
                let picked = random_selection(&mut rng, &all);
                let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
                let label = format!("{} round {round}", ranking.name());
                assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, ranking), &label);
            }
        }
    }

    #[test]
    fn a_pool_keeping_parameters_lays_them_out_with_the_reference_analysis_whole_or_in_halves() {
        let mut rng = Rng::new(17);
        let all = tools(&mut rng, 2 * SPLIT_FROM_ENTRIES + 1000);
        let mut pool = fill(ToolPool::new(Ranking::Reference).keeping_parameters(), &all);
        assert!(pool.keeps_parameters() && !ToolPool::new(Ranking::Reference).keeps_parameters());
        for (round, share) in [(0, 1), (1, 10)] {
            let picked: Vec<_> = random_selection(&mut rng, &all).into_iter().step_by(share).collect();
            assert_eq!(picked.len() >= SPLIT_FROM_ENTRIES, round == 0, "split in the first round only");
            let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
            let built = from_text_keeping(&tools, Ranking::Reference, true);
            assert!((0..built.entry_count()).any(|entry| built.parameters(entry).next().is_some()));
            assert_same(&from_pool(&mut pool, &picked), &built, &format!("kept, round {round}"));
        }
    }

    #[test]
    fn a_large_selection_indexed_on_its_thread_searches_the_same() {
        let mut rng = Rng::new(9);
        let all = tools(&mut rng, 3000);
        let mut pool = pool_of(&all, Ranking::Reference);
        let picked = distinct_keys(all.iter().enumerate().map(|(i, t)| (i as Slot, t)).collect());
        let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
        assert_same(&from_pool(&mut pool, &picked), &from_text(&tools, Ranking::Reference), "3000 tools");
    }

    #[test]
    fn a_selection_laid_out_in_halves_searches_as_one_built_from_its_text() {
        let mut rng = Rng::new(13);
        let all = tools(&mut rng, 2 * SPLIT_FROM_ENTRIES + 1000);
        let mut pool = pool_of(&all, Ranking::Reference);
        for round in 0..3 {
            let picked = random_selection(&mut rng, &all);
            assert!(picked.len() >= SPLIT_FROM_ENTRIES, "the selection is split");
            let tools: Vec<&Tool> = picked.iter().map(|&(_, t)| t).collect();
            assert_same(
                &from_pool(&mut pool, &picked),
                &from_text(&tools, Ranking::Reference),
                &format!("round {round}"),
            );
        }
    }
}
