//! What every ranking answers: a document and its score.

use super::bm25::DocId;

/// A ranked document and its boosted, unrounded score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub doc: DocId,
    pub score: f64,
}
