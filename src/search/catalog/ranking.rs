//! How a catalog ranks ([`Ranking`]): the reference's BM25, `'fielded'` or
//! `'hybrid'`, as `search.ranking` names them. A leaf of `catalog`.

use crate::protocol::tool_search::{self as protocol, defaults};
use crate::search::fielded::FieldedConfig;
use crate::search::hybrid::{HybridConfig, VectorSource};

/// How a catalog ranks `search_tools` results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Ranking {
    /// The reference's: BM25 over `"<name> <description>"`, plus name boosts.
    #[default]
    Reference,
    /// BM25F over name, description and parameters, with identifier
    /// splitting and stemming (see [`crate::search::fielded`]).
    Fielded(FieldedConfig),
    /// `'fielded'` plus the semantic similarity of question and tool (see
    /// [`crate::search::hybrid`]).
    Hybrid(HybridConfig),
}

impl Ranking {
    /// The `'fielded'` ranking as shipped.
    pub const FIELDED: Ranking = Ranking::Fielded(FieldedConfig::DEFAULT);

    /// The `'hybrid'` ranking as shipped, with the built-in model.
    pub const HYBRID: Ranking = Ranking::Hybrid(HybridConfig::DEFAULT);

    /// The rankings `search.ranking` names, the default first.
    pub const ALL: [Ranking; 3] = [Ranking::Reference, Ranking::FIELDED, Ranking::HYBRID];

    /// The `search.ranking` value that selects it (any [`FieldedConfig`] is
    /// `'fielded'`, any [`HybridConfig`] `'hybrid'`: only the shipped ones
    /// can be selected, and the vectors' source by `search.embedder`).
    pub fn name(self) -> &'static str {
        match self {
            Ranking::Reference => protocol::RANKINGS[0],
            Ranking::Fielded(_) => protocol::RANKINGS[1],
            Ranking::Hybrid(_) => protocol::RANKINGS[2],
        }
    }

    /// The lexical ranking's settings, for a ranking that ranks as
    /// `'fielded'` does (alone or with vectors).
    pub fn fielded(self) -> Option<FieldedConfig> {
        match self {
            Ranking::Reference => None,
            Ranking::Fielded(config) => Some(config),
            Ranking::Hybrid(config) => Some(config.fielded),
        }
    }

    /// The same ranking, its vectors from `source` (for `'hybrid'`).
    pub fn with_vectors(self, source: VectorSource) -> Ranking {
        match self {
            Ranking::Hybrid(config) => Ranking::Hybrid(HybridConfig { vectors: source, ..config }),
            other => other,
        }
    }

    /// The documented default ([`defaults::RANKING`]).
    pub fn default_ranking() -> Ranking {
        Ranking::ALL.into_iter().find(|ranking| ranking.name() == defaults::RANKING).expect("the default is a ranking")
    }

    /// The ranking a `search.ranking` value names, if any.
    pub fn from_name(name: &[u16]) -> Option<Ranking> {
        Ranking::ALL.into_iter().find(|ranking| name.iter().copied().eq(ranking.name().encode_utf16()))
    }

    /// Whether this ranking reads tools' parameters (so JavaScript should
    /// read them from the tools' input schemas and send them).
    pub fn reads_parameters(self) -> bool {
        self.fielded().is_some()
    }
}
