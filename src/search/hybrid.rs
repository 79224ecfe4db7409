//! The `'hybrid'` ranking: the `'fielded'` score plus the semantic
//! similarity of the question and the tool.
//!
//! ```text
//! score(q, d) = fielded(q, d) + semantic_weight * max(0, cos(q, d))
//! ```
//!
//! A tool that shares no term with the question is a candidate only when
//! its similarity passes `semantic_floor`, so a question about nothing in
//! the catalog still finds nothing, rather than the five least unlike tools.
//! Both numbers were chosen on the dev data (`examples/rank_eval.rs`, which
//! also prints the sweep): the fielded score stays on its own scale (a
//! strong word match still decides), and the similarity, between about 0.2
//! and 0.8 for the built-in model, moves a tool by up to a few good term
//! matches. Scores keep the other rankings' meaning for `minScore`: higher
//! is better, and they are rounded to cents.
//!
//! A tool's text for its vector is [`tool_text`]: its name read as words,
//! its description, and each parameter's name and description, the same
//! for the built-in model and a user's own.

use super::analyze::{Analyzer, AnalyzerConfig, TermKind};
use super::embedding::{StaticModel, TokenScratch, ToolVectors};
use super::fielded::{best_first, FieldedConfig, FieldedHit, FieldedIndex};

/// Where a hybrid catalog's vectors come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VectorSource {
    /// The built-in model ([`super::embedding::BuiltinModel`]): tools embedded
    /// as the index is built, questions as they are searched.
    #[default]
    BuiltIn,
    /// Made elsewhere (the user's embedding model): tools' vectors set on the
    /// catalog once they are in, each question's given with its search.
    Given,
}

/// Everything that shapes the `'hybrid'` ranking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridConfig {
    /// The lexical half, as `'fielded'` ranks.
    pub fielded: FieldedConfig,
    pub vectors: VectorSource,
    /// What a similarity of 1 adds to the fielded score.
    pub semantic_weight: f32,
    /// The similarity a tool needs to be a candidate without a shared term.
    pub semantic_floor: f32,
}

impl HybridConfig {
    /// The `'hybrid'` ranking as shipped (chosen on the dev data: see the module).
    pub const DEFAULT: HybridConfig = HybridConfig {
        fielded: FieldedConfig::DEFAULT,
        vectors: VectorSource::BuiltIn,
        semantic_weight: 14.0,
        semantic_floor: 0.4,
    };
}

impl Default for HybridConfig {
    fn default() -> HybridConfig {
        HybridConfig::DEFAULT
    }
}

/// The text a tool's vector is made from: its name as words (`get_weather`
/// and `getWeather` both read `get weather`), its description, then each
/// parameter's name as words and its description, joined by `". "`.
pub fn tool_text<'a>(
    name: &[u16],
    description: &[u16],
    parameters: impl IntoIterator<Item = (&'a [u16], &'a [u16])>,
) -> String {
    let mut text = String::new();
    let mut words = Analyzer::new(AnalyzerConfig { split_case: true, ..AnalyzerConfig::NONE });
    let mut push_words = |text: &mut String, identifier: &[u16]| {
        let start = text.len();
        words.tokens(identifier, |kind, word| {
            if kind == TermKind::Word {
                if text.len() > start {
                    text.push(' ');
                }
                text.push_str(word);
            }
        });
    };
    push_words(&mut text, name);
    text.push_str(". ");
    text.push_str(&String::from_utf16_lossy(description));
    for (name, description) in parameters {
        text.push_str(". ");
        push_words(&mut text, name);
        text.push(' ');
        text.push_str(&String::from_utf16_lossy(description));
    }
    text
}

/// Where a hybrid catalog's vectors come from.
pub enum QueryVector<'a> {
    /// The built-in model embeds the question.
    Model(&'a StaticModel),
    /// The question's vector, made elsewhere (the user's embedding model).
    Given(&'a [f32]),
    /// None to be had: the fielded ranking answers alone.
    None,
}

/// The best `limit` tools for `query` (with `Array.prototype.slice`
/// semantics), best first, equal scores in document order.
pub fn search(
    config: &HybridConfig,
    fielded: &FieldedIndex,
    vectors: Option<&ToolVectors>,
    query: &[u16],
    query_vector: QueryVector<'_>,
    limit: f64,
) -> Vec<FieldedHit> {
    let mut score = vec![0f32; fielded.doc_count()];
    let mut touched: Vec<u32> = Vec::new();
    fielded.score_into(query, &mut score, &mut touched);
    let mut embedded = Vec::new();
    let query_vector: Option<&[f32]> = match query_vector {
        QueryVector::Model(model) => {
            embedded.resize(model.dimensions(), 0.0);
            let text = String::from_utf16_lossy(query);
            model.embed(&text, &mut TokenScratch::default(), &mut embedded).then_some(&embedded[..])
        }
        QueryVector::Given(vector) => Some(vector),
        QueryVector::None => None,
    };
    let Some((vectors, query_vector)) = vectors.zip(query_vector).filter(|(v, _)| v.len() == score.len()) else {
        return best_first(touched.into_iter().map(|doc| (doc, score[doc as usize])), limit);
    };
    let mut similarity = Vec::with_capacity(score.len());
    vectors.similarities(query_vector, &mut similarity);
    let weight = config.semantic_weight;
    let floor = config.semantic_floor;
    // A retired document's vector is zeros: never a candidate on its own.
    let scored = score
        .iter()
        .zip(&similarity)
        .enumerate()
        .filter(|(_, (&lexical, &cos))| lexical > 0.0 || cos > floor)
        .map(|(doc, (&lexical, &cos))| (doc as u32, lexical + weight * cos.max(0.0)));
    best_first(scored, limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::embedding::WordPiece;
    use crate::search::fielded::{FieldTexts, FieldedBuilder};

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn a_tools_text_is_its_name_as_words_description_and_parameters() {
        let (city, about) = (u("cityName"), u("The city"));
        let text = tool_text(&u("get_currentWeather"), &u("Weather now."), [(&city[..], &about[..])]);
        assert_eq!(text, "get current weather. Weather now.. city name The city");
        assert_eq!(tool_text(&u("x"), &u(""), []), ". ");
    }

    /// Three tools: the first shares "weather" with the question, the second
    /// only its meaning (a "therapist" for a "psychologist"), the third nothing.
    fn fixture() -> (FieldedIndex, ToolVectors, StaticModel) {
        let docs = [("weather", "Current weather"), ("therapist", "Finds a therapist"), ("email", "Sends mail")];
        let mut builder = FieldedBuilder::new(FieldedConfig::DEFAULT);
        for (name, description) in docs {
            builder.add(&FieldTexts { name: &u(name), description: &u(description), parameters: &[] }, true);
        }
        // A model whose "psychologist" points where "therapist" does.
        let tokens = ["[UNK]", "weather", "therapist", "psychologist", "email", "current", "finds", "sends", "mail"];
        let rows = vec![
            0.0, 0.0, 0.0, // [UNK]
            1.0, 0.0, 0.0, // weather
            0.0, 1.0, 0.0, // therapist
            0.0, 0.9, 0.1, // psychologist
            0.0, 0.0, 1.0, // email
            1.0, 0.0, 0.0, // current
            0.0, 1.0, 0.0, // finds
            0.0, 0.0, 1.0, // sends
            0.0, 0.0, 1.0, // mail
        ];
        let model = StaticModel::new(WordPiece::new(tokens, "[UNK]"), 3, rows).unwrap();
        let mut vectors = ToolVectors::zeros(3, docs.len());
        for (doc, (name, description)) in docs.iter().enumerate() {
            let mut vector = [0.0; 3];
            model.embed(&tool_text(&u(name), &u(description), []), &mut TokenScratch::default(), &mut vector);
            vectors.set_normalized(doc, &vector);
        }
        (builder.finish(), vectors, model)
    }

    #[test]
    fn meaning_finds_what_no_word_shares_and_the_floor_keeps_the_unrelated_out() {
        let (index, vectors, model) = fixture();
        let config = HybridConfig::DEFAULT;
        let found = |query: &str| {
            search(&config, &index, Some(&vectors), &u(query), QueryVector::Model(&model), 10.0)
                .into_iter()
                .map(|hit| (hit.doc, hit.score as f32))
                .collect::<Vec<_>>()
        };
        // No shared word: the therapist by meaning alone (cos 0.9 / |(0, 0.9, 0.1)|).
        let cos = 0.9 / (0.81f32 + 0.01).sqrt();
        assert_eq!(found("psychologist"), [(1, 14.0 * cos)]);
        // The weather tool by its word and its meaning; the email tool is unlike (cos 0).
        let lexical = index.search(&u("weather"), 10.0)[0].score as f32;
        assert_eq!(found("weather"), [(0, lexical + 14.0)]);
        assert_eq!(found("zebra"), []);
        // Without vectors, or without a question vector, the fielded ranking alone.
        let alone: Vec<(u32, f64)> = index.search(&u("weather"), 10.0).into_iter().map(|h| (h.doc, h.score)).collect();
        for hits in [
            search(&config, &index, None, &u("weather"), QueryVector::Model(&model), 10.0),
            search(&config, &index, Some(&vectors), &u("weather"), QueryVector::None, 10.0),
        ] {
            assert_eq!(hits.into_iter().map(|h| (h.doc, h.score)).collect::<Vec<_>>(), alone);
        }
        // A given question vector counts like the model's.
        let given = search(&config, &index, Some(&vectors), &u("x"), QueryVector::Given(&[0.0, 0.0, 1.0]), 10.0);
        assert_eq!(given.into_iter().map(|h| (h.doc, h.score as f32)).collect::<Vec<_>>(), [(2, 14.0)]);
    }
}
