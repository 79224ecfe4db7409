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
//! A tool's texts for its vector are [`tool_text_parts`]: its name read as
//! words with its description, and its parameters' names and descriptions.
//! The built-in model embeds the two apart and adds the parameters' unit
//! vector at [`HybridConfig::parameter_weight`] to the other's (a field
//! weight, as the lexical half gives parameter descriptions half a word's
//! weight: a long list of parameters no longer outweighs what the tool is
//! for); a user's own model embeds them joined ([`tool_text`]), one text a
//! tool.

use super::analyze::{Analyzer, AnalyzerConfig, TermKind};
use super::embedding::{StaticModel, TokenScratch, ToolVectors};
use super::fielded::{best_candidates_first, best_first, FieldedConfig, FieldedHit, FieldedIndex};

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
    /// What the unit vector of a tool's parameters adds to that of its name
    /// and description, for the built-in model's vector of the tool.
    pub parameter_weight: f32,
}

impl HybridConfig {
    /// The `'hybrid'` ranking as shipped (chosen on the dev data: see the module).
    pub const DEFAULT: HybridConfig = HybridConfig {
        fielded: FieldedConfig::DEFAULT,
        vectors: VectorSource::BuiltIn,
        semantic_weight: 22.0,
        semantic_floor: 0.4,
        parameter_weight: 0.5,
    };
}

impl Default for HybridConfig {
    fn default() -> HybridConfig {
        HybridConfig::DEFAULT
    }
}

/// The text a tool's vector is made from by a user's embedding model: its
/// name as words (`get_weather` and `getWeather` both read `get weather`),
/// its description, then each parameter's name as words and its
/// description, joined by `". "` ([`tool_text_parts`] joined).
pub fn tool_text<'a>(
    name: &[u16],
    description: &[u16],
    parameters: impl IntoIterator<Item = (&'a [u16], &'a [u16])>,
) -> String {
    let (mut text, parameters) = tool_text_parts(name, description, parameters);
    if !parameters.is_empty() {
        text.push_str(". ");
        text.push_str(&parameters);
    }
    text
}

/// A tool's two texts for the built-in model: its name as words and its
/// description (`"get current weather. Weather now."`), and each parameter's
/// name as words and description, joined by `". "` (`""` without parameters).
pub fn tool_text_parts<'a>(
    name: &[u16],
    description: &[u16],
    parameters: impl IntoIterator<Item = (&'a [u16], &'a [u16])>,
) -> (String, String) {
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
    let mut text = String::new();
    push_words(&mut text, name);
    text.push_str(". ");
    text.push_str(&String::from_utf16_lossy(description));
    let mut params = String::new();
    for (name, description) in parameters {
        if !params.is_empty() {
            params.push_str(". ");
        }
        push_words(&mut params, name);
        params.push(' ');
        params.push_str(&String::from_utf16_lossy(description));
    }
    (text, params)
}

/// Where a hybrid catalog's vectors come from.
pub enum QueryVector<'a> {
    /// The built-in model embeds the question.
    Model(&'a StaticModel),
    /// The question's vector, made elsewhere (the user's embedding model):
    /// its direction counts, whatever its length, as the tools' vectors are
    /// scaled to unit length when they are set.
    Given(&'a [f32]),
    /// None to be had: the fielded ranking answers alone.
    None,
}

/// What a hybrid search reads: the catalog's config, its fielded index, and
/// its tools' vectors (if it has them).
#[derive(Clone, Copy)]
pub struct HybridIndex<'a> {
    pub config: &'a HybridConfig,
    pub fielded: &'a FieldedIndex,
    pub vectors: Option<&'a ToolVectors>,
}

/// The best `limit` tools of `index` for `query` (with
/// `Array.prototype.slice` semantics), best first, equal scores in document
/// order.
pub fn search(index: HybridIndex<'_>, query: &[u16], query_vector: QueryVector<'_>, limit: f64) -> Vec<FieldedHit> {
    let HybridIndex { config, fielded, vectors } = index;
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
        QueryVector::Given(vector) => {
            // In f64: the squares of large f32 values overflow an f32 sum.
            let norm = vector.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>().sqrt();
            (norm > 0.0 && norm.is_finite()).then(|| {
                embedded.extend(vector.iter().map(|&v| (f64::from(v) / norm) as f32));
                &embedded[..]
            })
        }
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
    let scored =
        score.iter().zip(&similarity).enumerate().map(|(doc, (&lexical, &cos))| {
            (doc as u32, lexical + weight * cos.max(0.0), (lexical > 0.0) | (cos > floor))
        });
    best_candidates_first(scored, limit)
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
        let (days, many) = (u("days"), u("How many"));
        assert_eq!(
            tool_text_parts(
                &u("get_currentWeather"),
                &u("Weather now."),
                [(&city[..], &about[..]), (&days[..], &many[..])]
            ),
            ("get current weather. Weather now.".to_owned(), "city name The city. days How many".to_owned())
        );
        assert_eq!(tool_text_parts(&u("x"), &u(""), []), (". ".to_owned(), String::new()));
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
            search(
                HybridIndex { config: &config, fielded: &index, vectors: Some(&vectors) },
                &u(query),
                QueryVector::Model(&model),
                10.0,
            )
            .into_iter()
            .map(|hit| (hit.doc, hit.score as f32))
            .collect::<Vec<_>>()
        };
        // No shared word: the therapist by meaning alone (cos 0.9 / |(0, 0.9, 0.1)|).
        let cos = 0.9 / (0.81f32 + 0.01).sqrt();
        assert_eq!(found("psychologist"), [(1, 22.0 * cos)]);
        // The weather tool by its word and its meaning; the email tool is unlike (cos 0).
        let lexical = index.search(&u("weather"), 10.0)[0].score as f32;
        assert_eq!(found("weather"), [(0, lexical + 22.0)]);
        assert_eq!(found("zebra"), []);
        // Without vectors, or without a question vector, the fielded ranking alone.
        let alone: Vec<(u32, f64)> = index.search(&u("weather"), 10.0).into_iter().map(|h| (h.doc, h.score)).collect();
        for hits in [
            search(
                HybridIndex { config: &config, fielded: &index, vectors: None },
                &u("weather"),
                QueryVector::Model(&model),
                10.0,
            ),
            search(
                HybridIndex { config: &config, fielded: &index, vectors: Some(&vectors) },
                &u("weather"),
                QueryVector::None,
                10.0,
            ),
        ] {
            assert_eq!(hits.into_iter().map(|h| (h.doc, h.score)).collect::<Vec<_>>(), alone);
        }
        // A given question vector counts like the model's, by its direction whatever its length.
        let given = |vector: &[f32], query: &str| {
            search(
                HybridIndex { config: &config, fielded: &index, vectors: Some(&vectors) },
                &u(query),
                QueryVector::Given(vector),
                10.0,
            )
            .into_iter()
            .map(|h| (h.doc, h.score as f32))
            .collect::<Vec<_>>()
        };
        assert_eq!(given(&[0.0, 0.0, 1.0], "x"), [(2, 22.0)]);
        assert_eq!(given(&[0.0, 0.0, 10.0], "x"), [(2, 22.0)]);
        assert_eq!(given(&[0.0, 0.0, 0.1], "x"), [(2, 22.0)]);
        assert_eq!(given(&[0.0, 0.0, 3e38], "x"), [(2, 22.0)]);
        // A zero one is no direction: the fielded ranking alone.
        assert_eq!(given(&[0.0, 0.0, 0.0], "x"), []);
        assert_eq!(given(&[0.0, 0.0, 0.0], "weather"), [(0, lexical)]);
    }

    /// A search for a few results keeps the best as they come: its results
    /// are the head of the search for them all, to the score and in the
    /// same order (ties in document order), with or without words in
    /// common, for any number of results up to where it stops.
    #[test]
    fn the_few_best_are_the_head_of_them_all() {
        let mut rng = crate::test_rng::Rng::new(11);
        let words = ["weather", "email", "city", "send", "forecast", "mail", "sort", "list"];
        let dimensions = 256;
        let mut builder = FieldedBuilder::new(FieldedConfig::DEFAULT);
        let mut vectors = ToolVectors::zeros(dimensions, 600);
        let direction = |rng: &mut crate::test_rng::Rng| -> Vec<f32> {
            (0..dimensions).map(|_| (rng.next() % 2001) as f32 / 1000.0 - 1.0).collect()
        };
        // Vectors around a few directions, so that many tools are alike.
        let centres: Vec<Vec<f32>> = (0..5).map(|_| direction(&mut rng)).collect();
        for doc in 0..600 {
            let name = words[(rng.next() % 8) as usize];
            let description: Vec<&str> = (0..rng.next() % 4).map(|_| words[(rng.next() % 8) as usize]).collect();
            builder.add(&FieldTexts { name: &u(name), description: &u(&description.join(" ")), parameters: &[] }, true);
            let noise = direction(&mut rng);
            let centre = &centres[doc % 5];
            let vector: Vec<f32> = centre.iter().zip(&noise).map(|(c, n)| c + 0.6 * n).collect();
            // Some tools without a vector (retired, or none made).
            if doc % 41 != 3 {
                vectors.set_normalized(doc, &vector);
            }
        }
        let index = builder.finish();
        for (round, query) in ["weather", "send mail", "zebra", "", "list list sort"].into_iter().enumerate() {
            for (centre, toward) in centres.iter().enumerate() {
                let noise = direction(&mut rng);
                let mut vector: Vec<f32> = toward.iter().zip(&noise).map(|(c, n)| c + n).collect();
                let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
                vector.iter_mut().for_each(|v| *v /= norm);
                for floor in [0.0, 0.4, 0.9] {
                    let config = HybridConfig { semantic_floor: floor, ..HybridConfig::DEFAULT };
                    let search = |limit: f64| {
                        search(
                            HybridIndex { config: &config, fielded: &index, vectors: Some(&vectors) },
                            &u(query),
                            QueryVector::Given(&vector),
                            limit,
                        )
                        .into_iter()
                        .map(|hit| (hit.doc, hit.score))
                        .collect::<Vec<_>>()
                    };
                    let whole = search(1e9);
                    for limit in [0.0, 1.0, 2.5, 5.0, 10.0, 64.0] {
                        let wanted = (limit as usize).min(whole.len());
                        assert_eq!(search(limit), whole[..wanted], "{round} {centre} {floor} {limit}");
                    }
                }
            }
        }
    }
}
