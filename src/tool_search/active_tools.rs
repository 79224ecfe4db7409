//! The loaded tools a step hands to the model: each loaded name looked up
//! and admitted in phase `'active'`.

use crate::js::JsString;
use crate::stores::NameSet;

use super::admission::Admitting;
use super::ahead::Ahead;
use super::{Phase, StepCatalog, ToolFilter, ToolRef, ToolSearch};

impl ToolSearch {
    /// The loaded tools a request may use, in load order: each name with the
    /// tool it resolves to. Names that no longer resolve, or that the hook
    /// now denies (phase `'active'`), are left out.
    pub async fn active_tools(
        &self,
        catalog: &StepCatalog,
        names: &NameSet,
        filter: &impl ToolFilter,
    ) -> Vec<(JsString, ToolRef)> {
        let lookup = self.dynamic_lookup();
        let admitting = Admitting { live: catalog.live, lookup, phase: Phase::Active };
        let mut active = Vec::with_capacity(names.len());
        let mut ahead = Ahead::new(filter.concurrency());
        let mut names = names.iter();
        loop {
            let next = ahead
                .next(|| {
                    let name = names.next()?;
                    let found = catalog.find(name.units(), lookup);
                    Some((name, self.admission(filter, found, admitting)))
                })
                .await;
            let Some((name, admitted)) = next else { break };
            if let Some(tool) = admitted {
                active.push((name.clone(), tool));
            }
        }
        active
    }
}
