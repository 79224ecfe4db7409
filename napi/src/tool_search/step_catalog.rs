//! `NativeStepCatalog`: a catalog a step searches, which the wrapper may
//! let go of before it is collected and have made again.

use std::sync::Arc;

use mastra_native_processors::tool_search::{CatalogCell, StepCatalog};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::internal_error;

/// A catalog a step searches: the constructor's tools, or those merged with
/// the tools the agent resolved for a request. The wrapper may let go of it
/// before it is collected, and have it made again (see
/// [`CatalogCell`]); the steps that search it share it.
#[napi]
pub struct NativeStepCatalog {
    pub(super) cell: Arc<CatalogCell>,
}

impl NativeStepCatalog {
    pub(super) fn new(catalog: Arc<StepCatalog>) -> NativeStepCatalog {
        NativeStepCatalog { cell: Arc::new(CatalogCell::new(catalog)) }
    }

    fn catalog(&self) -> Result<Arc<StepCatalog>> {
        built(&self.cell)
    }
}

/// A cell's catalog, which the wrapper makes again before any use once it
/// let go of it.
pub(super) fn built(cell: &CatalogCell) -> Result<Arc<StepCatalog>> {
    cell.get().ok_or_else(|| internal_error("the step catalog was let go of and not made again"))
}

#[napi]
impl NativeStepCatalog {
    /// Whether names resolve in the caller's record as it is now (the
    /// constructor's), which the wrapper then reads: see the core's
    /// `StepCatalog::live`.
    #[napi(getter, catch_unwind)]
    pub fn live(&self) -> Result<bool> {
        Ok(self.catalog()?.live)
    }

    /// The step's own tools that stay in the prompt (indexes into them), or
    /// `null` when all do. A property of the catalog, so the wrapper reads
    /// it once, with the catalog, rather than for every step.
    #[napi(getter, catch_unwind)]
    pub fn visible(&self) -> Result<Option<Int32Array>> {
        Ok(self.catalog()?.visible.as_ref().map(|v| Int32Array::new(v.iter().map(|&i| i as i32).collect())))
    }

    /// Lets go of the catalog now, rather than when this wrapper and the
    /// steps' are collected; `NativeToolSearch.restoreStepCatalog` makes it
    /// again.
    #[napi(catch_unwind)]
    pub fn let_go(&self) {
        self.cell.let_go();
    }
}
