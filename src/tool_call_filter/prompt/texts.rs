//! The texts removed results leave under `preserveModelOutput`: which
//! results' outputs are wanted, asked for ([`Answer::NeedsOutputs`],
//! [`Answer::NeedsJson`]) or read from the round's outputs tape, by call id.

use super::super::tape::{model_output_text, JsonAsks, NodeError, Reader};
use super::super::FilterError;
use super::reading::PartKind;
use super::{Answer, Filter, Outputs, Slots};
use crate::releases::PreservedResults;

/// The text each removed pair leaves, if any, by call id slot. The strings of
/// every text share one vector, so a prompt's texts take two allocations
/// however many there are.
#[derive(Default)]
pub(super) struct TextsById {
    by_id: Vec<Option<ResultText>>,
    strings: Vec<i32>,
}

impl TextsById {
    /// Whether no removed pair leaves a text.
    pub(super) fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// Reads the output at `at` of `outputs` as the text of the result at
    /// (`message`, `part`), whose call is in `slot`, where it has any.
    fn read(
        &mut self,
        outputs: &[i32],
        at: usize,
        needed_json: &mut JsonAsks,
        (message, part, slot): (u32, u32, usize),
    ) -> Result<(), FilterError> {
        let first = self.strings.len();
        model_output_text(outputs, at, &mut self.strings, needed_json).map_err(|error| match error {
            NodeError::Tape(error) => FilterError::Tape(error),
            NodeError::TooDeep => FilterError::ModelOutputTooDeep { message: message as usize },
        })?;
        if self.strings.len() > first {
            self.by_id[slot] = Some(ResultText { message, part, strings: first..self.strings.len() });
        }
        Ok(())
    }

    /// The text of the call in `slot`, with its strings.
    pub(super) fn get(&self, slot: usize) -> Option<(&ResultText, &[i32])> {
        let text = self.by_id.get(slot)?.as_ref()?;
        Some((text, &self.strings[text.strings.clone()]))
    }
}

/// The text a removed pair leaves: the result it comes from and where its
/// strings are in [`TextsById::strings`].
pub(super) struct ResultText {
    pub(super) message: u32,
    pub(super) part: u32,
    pub(super) strings: std::ops::Range<usize>,
}

impl Filter<'_> {
    /// The text each removed pair leaves, by call id: that of the last
    /// removed result of the id whose output has any. `Err` carries what
    /// the binding must supply first. Marks the ids that have a call in an
    /// assistant message on the way, which decides where a text goes.
    pub(super) fn result_texts<P>(
        &self,
        slots: &mut Slots,
        outputs: Option<Outputs<'_>>,
    ) -> Result<Result<TextsById, Answer<P>>, FilterError> {
        let every = self.options.preserved_results == PreservedResults::Every;
        let outputs = match outputs {
            Some(Outputs { tape, ahead: true }) if !every => return self.result_texts_ahead(slots, tape),
            // Written ahead, they hold only `OWN_OUTPUT` results', where every
            // result is wanted: asked for, as when none were given (the
            // binding writes ahead only under the rule of 1.68 and later).
            Some(Outputs { ahead: true, .. }) => None,
            Some(Outputs { tape, ahead: false }) => Some(tape),
            None => None,
        };
        let mut wanted = Vec::new();
        for (m, message) in self.prompt.messages().enumerate() {
            for (p, part) in message.parts().enumerate() {
                let removed = part.kind == PartKind::Result && slots.has(part.slot, Slots::REMOVED);
                if removed && (every || part.own_output) {
                    wanted.push((m as u32, p as u32, part.slot));
                }
                slots.0[part.slot] |= Slots::CALLED * u8::from(message.assistant & (part.kind == PartKind::Call));
            }
        }
        if wanted.is_empty() {
            return Ok(Ok(TextsById::default()));
        }
        let Some(outputs) = outputs else {
            return Ok(Err(Answer::NeedsOutputs(wanted.iter().map(|&(message, part, _)| (message, part)).collect())));
        };

        let mut texts = TextsById { by_id: Vec::new(), strings: Vec::with_capacity(outputs.len()) };
        texts.by_id.resize_with(self.prompt.id_count + 1, || None);
        let mut needed_json = JsonAsks::default();
        let mut reader = Reader::new(outputs);
        for &item in &wanted {
            texts.read(outputs, reader.position(), &mut needed_json, item)?;
            reader.skip_node(0)?;
        }
        reader.finish()?;
        if !needed_json.is_empty() {
            return Ok(Err(Answer::NeedsJson(needed_json)));
        }
        Ok(Ok(texts))
    }

    /// [`Self::result_texts`] when the outputs were written ahead, in one
    /// pass: each `OWN_OUTPUT` result's output is read as the walk meets it,
    /// as text where the result goes, stepped over where it stays. Only
    /// under the rule of 1.68 and later, where every result whose text is
    /// wanted is one of those.
    fn result_texts_ahead<P>(
        &self,
        slots: &mut Slots,
        outputs: &[i32],
    ) -> Result<Result<TextsById, Answer<P>>, FilterError> {
        let mut texts = TextsById { by_id: Vec::new(), strings: Vec::with_capacity(outputs.len()) };
        texts.by_id.resize_with(self.prompt.id_count + 1, || None);
        let mut needed_json = JsonAsks::default();
        let mut reader = Reader::new(outputs);
        for (m, message) in self.prompt.messages().enumerate() {
            for (p, part) in message.parts().enumerate() {
                slots.0[part.slot] |= Slots::CALLED * u8::from(message.assistant & (part.kind == PartKind::Call));
                if part.kind != PartKind::Result || !part.own_output {
                    continue;
                }
                if slots.has(part.slot, Slots::REMOVED) {
                    texts.read(outputs, reader.position(), &mut needed_json, (m as u32, p as u32, part.slot))?;
                }
                reader.skip_node(0)?;
            }
        }
        reader.finish()?;
        if !needed_json.is_empty() {
            return Ok(Err(Answer::NeedsJson(needed_json)));
        }
        Ok(Ok(texts))
    }
}
