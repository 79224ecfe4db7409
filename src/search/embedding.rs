//! Semantic similarity for the `'hybrid'` ranking: tools and questions as
//! unit vectors, compared by their dot product (cosine).
//!
//! The built-in model is a static embedding model in the Model2Vec manner
//! ([`StaticModel`]): a text is tokenised ([`WordPiece`]), each token looks
//! up its row of a table, and the rows' mean, scaled to unit length, is the
//! text's vector. No network and no inference beyond that: a few
//! microseconds a question. A user's own embedding model gives vectors made
//! elsewhere; [`ToolVectors`] holds either kind, one row per tool.

pub mod file;
mod wordpiece;

pub use file::{BuiltinModel, EmbedScratch};
pub use wordpiece::{normalize, TokenScratch, WordPiece, MAX_WORD_CHARS};

/// A text is read up to this many tokens (Model2Vec's default `max_length`).
pub const MAX_TOKENS: usize = 512;

/// Why a model's parts do not make a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// A table whose size is not `tokens × dimensions`, or no dimensions.
    Shape { tokens: usize, dimensions: usize, values: usize },
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Shape { tokens, dimensions, values } => {
                write!(f, "an embedding table of {values} values is not {tokens} tokens of {dimensions} dimensions")
            }
        }
    }
}

impl std::error::Error for ModelError {}

/// A static embedding model: a tokenizer and a vector per token.
pub struct StaticModel {
    tokenizer: WordPiece,
    dimensions: usize,
    rows: Rows,
}

/// The table: token `t`'s vector is `t`'s row, `dimensions` long.
enum Rows {
    Float(Vec<f32>),
    /// Each row as 8-bit integers and the scale that turns them back.
    Quantized {
        values: Vec<i8>,
        scales: Vec<f32>,
    },
}

impl StaticModel {
    /// A model from its tokenizer and its table (one row per token id, in
    /// id order).
    pub fn new(tokenizer: WordPiece, dimensions: usize, rows: Vec<f32>) -> Result<StaticModel, ModelError> {
        let tokens = tokenizer.len();
        if dimensions == 0 || rows.len() != tokens * dimensions {
            return Err(ModelError::Shape { tokens, dimensions, values: rows.len() });
        }
        Ok(StaticModel { tokenizer, dimensions, rows: Rows::Float(rows) })
    }

    /// A model whose rows are 8-bit integers, row `t` scaled by `scales[t]`.
    pub fn quantized(
        tokenizer: WordPiece,
        dimensions: usize,
        values: Vec<i8>,
        scales: Vec<f32>,
    ) -> Result<StaticModel, ModelError> {
        let tokens = tokenizer.len();
        if dimensions == 0 || values.len() != tokens * dimensions || scales.len() != tokens {
            return Err(ModelError::Shape { tokens, dimensions, values: values.len() });
        }
        Ok(StaticModel { tokenizer, dimensions, rows: Rows::Quantized { values, scales } })
    }

    /// Length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &WordPiece {
        &self.tokenizer
    }

    /// Bytes the model holds (its table and vocabulary, roughly).
    pub fn heap_bytes(&self) -> usize {
        let table = match &self.rows {
            Rows::Float(rows) => rows.len() * 4,
            Rows::Quantized { values, scales } => values.len() + scales.len() * 4,
        };
        table + self.tokenizer.len() * 32
    }

    /// Writes the unit vector of `text` to `out` (`dimensions` long), as
    /// Model2Vec's `encode` makes it: the mean of its tokens' rows (unknown
    /// tokens left out, at most [`MAX_TOKENS`]), normalised. A text with no
    /// known token is the zero vector, and `false`.
    pub fn embed(&self, text: &str, scratch: &mut TokenScratch, out: &mut [f32]) -> bool {
        let out = &mut out[..self.dimensions];
        out.fill(0.0);
        let unknown = self.tokenizer.unknown();
        let mut count = 0usize;
        self.tokenizer.ids(text, scratch, |id| {
            if Some(id) == unknown || count == MAX_TOKENS {
                return;
            }
            count += 1;
            let at = id as usize * self.dimensions;
            match &self.rows {
                Rows::Float(rows) => {
                    for (sum, &value) in out.iter_mut().zip(&rows[at..at + self.dimensions]) {
                        *sum += value;
                    }
                }
                Rows::Quantized { values, scales } => {
                    add_scaled(out, &values[at..at + self.dimensions], scales[id as usize]);
                }
            }
        });
        if count == 0 {
            return false;
        }
        // The mean's direction is the sum's: normalising the sum is enough.
        let norm = out.iter().map(|&v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            out.iter_mut().for_each(|v| *v /= norm);
        }
        norm > 0.0
    }
}

impl StaticModel {
    /// Writes to `out` (`dimensions` long) the unit vector of the weighted
    /// sum of the unit vectors of `fields` (text, weight): a text's fields
    /// embedded apart, so that each counts by its weight rather than by its
    /// length. Fields with no known token add nothing; `false` (and zeros)
    /// if none has one. `part` is scratch.
    pub fn embed_fields(
        &self,
        fields: &[(&str, f32)],
        scratch: &mut TokenScratch,
        part: &mut Vec<f32>,
        out: &mut [f32],
    ) -> bool {
        let out = &mut out[..self.dimensions];
        out.fill(0.0);
        part.resize(self.dimensions, 0.0);
        for &(text, weight) in fields {
            if weight != 0.0 && self.embed(text, scratch, part) {
                out.iter_mut().zip(part.iter()).for_each(|(sum, &value)| *sum += weight * value);
            }
        }
        let norm = out.iter().map(|&v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            out.iter_mut().for_each(|v| *v /= norm);
            true
        } else {
            out.fill(0.0);
            false
        }
    }
}

/// Adds `row` (8-bit values) times `scale` to `sums`, value by value.
#[inline]
fn add_scaled(sums: &mut [f32], row: &[i8], scale: f32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), all the function requires.
        unsafe { add_scaled_avx2(sums, row, scale) };
        return;
    }
    add_scaled_portable(sums, row, scale);
}

/// [`add_scaled`] compiled for AVX2: eight values widened, scaled and added
/// at a time rather than four (the same operations on each value, so the
/// same sums). Embedding a tool is mostly this, once a token.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_scaled_avx2(sums: &mut [f32], row: &[i8], scale: f32) {
    add_scaled_portable(sums, row, scale);
}

#[inline(always)]
fn add_scaled_portable(sums: &mut [f32], row: &[i8], scale: f32) {
    for (sum, &value) in sums.iter_mut().zip(row) {
        *sum += f32::from(value) * scale;
    }
}

/// One unit vector per tool (document), and their similarities to a question.
///
/// Kept as 8-bit integers with a scale per vector: a quarter of the memory
/// of 32-bit floats, which is what a search reads (10,000 tools of 256
/// dimensions are 2.5 MB, where floats are 10 MB), and integer dot products.
/// Measured on the dev data, retrieval is the same.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolVectors {
    dimensions: usize,
    /// Document `d`'s vector is `values[d * dimensions..(d + 1) * dimensions]`
    /// times `scales[d]`; zeros for a document without one.
    values: Vec<i8>,
    scales: Vec<f32>,
}

/// `vector` as 8-bit integers and the scale that turns them back (its
/// largest magnitude over 127, rounded to nearest); zeros and 0 for a zero
/// or non-finite vector.
fn quantize(vector: &[f32], out: &mut [i8]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), all the function requires.
        return unsafe { quantize_avx2(vector, out) };
    }
    quantize_portable(vector, out)
}

/// [`quantize`] compiled for AVX2 (and so SSE4.1), where rounding is a few
/// instructions inline rather than a call to the C library's `roundf` for
/// each value; the same numbers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quantize_avx2(vector: &[f32], out: &mut [i8]) -> f32 {
    quantize_portable(vector, out)
}

#[inline(always)]
fn quantize_portable(vector: &[f32], out: &mut [i8]) -> f32 {
    let largest = vector.iter().fold(0f32, |m, &v| m.max(v.abs()));
    if largest == 0.0 || !largest.is_finite() {
        out.fill(0);
        return 0.0;
    }
    let scale = largest / 127.0;
    for (o, &v) in out.iter_mut().zip(vector) {
        *o = (v / scale).round().clamp(-127.0, 127.0) as i8;
    }
    scale
}

impl ToolVectors {
    /// `count` zero vectors of `dimensions`.
    pub fn zeros(dimensions: usize, count: usize) -> ToolVectors {
        ToolVectors { dimensions, values: vec![0; dimensions * count], scales: vec![0.0; count] }
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Document `doc`'s vector (as stored, within the 8-bit rounding).
    pub fn vector(&self, doc: usize) -> Vec<f32> {
        let scale = self.scales[doc];
        self.values[doc * self.dimensions..][..self.dimensions].iter().map(|&v| f32::from(v) * scale).collect()
    }

    /// Sets document `doc`'s vector to `vector` scaled to unit length (a
    /// zero vector, or one of another length, makes it zeros).
    pub fn set_normalized(&mut self, doc: usize, vector: &[f32]) {
        let out = &mut self.values[doc * self.dimensions..][..self.dimensions];
        let norm = vector.iter().map(|&v| v * v).sum::<f32>().sqrt();
        if vector.len() != out.len() || norm == 0.0 || !norm.is_finite() {
            out.fill(0);
            self.scales[doc] = 0.0;
            return;
        }
        // The scale absorbs the norm: the integers are the same either way.
        self.scales[doc] = quantize(vector, out) / norm;
    }

    /// Document `doc`'s vector as stored: its 8-bit values and scale.
    pub fn quantized(&self, doc: usize) -> (&[i8], f32) {
        (&self.values[doc * self.dimensions..][..self.dimensions], self.scales[doc])
    }

    /// Sets document `doc`'s vector as [`quantized`](Self::quantized) gave
    /// one (values of another length make it zeros).
    pub fn set_quantized(&mut self, doc: usize, values: &[i8], scale: f32) {
        let out = &mut self.values[doc * self.dimensions..][..self.dimensions];
        if values.len() == out.len() {
            // Within ±127, as `quantize` makes them (the AVX2 scan's bound).
            out.iter_mut().zip(values).for_each(|(out, &value)| *out = value.max(-127));
            self.scales[doc] = scale;
        } else {
            out.fill(0);
            self.scales[doc] = 0.0;
        }
    }

    /// Appends the documents of `other` (of the same dimensions) after these.
    pub fn append(&mut self, other: ToolVectors) {
        debug_assert_eq!(self.dimensions, other.dimensions);
        self.values.extend(other.values);
        self.scales.extend(other.scales);
    }

    /// Makes document `doc`'s vector zeros (never similar to anything).
    pub fn clear(&mut self, doc: usize) {
        self.values[doc * self.dimensions..][..self.dimensions].fill(0);
        self.scales[doc] = 0.0;
    }

    /// Bytes the vectors take.
    pub fn heap_bytes(&self) -> usize {
        self.values.len() + self.scales.len() * 4
    }

    /// Every document's similarity to `query` (a unit vector of the same
    /// length), in document order, into `out`; zeros for a query of
    /// another length.
    pub fn similarities(&self, query: &[f32], out: &mut Vec<f32>) {
        out.clear();
        if query.len() != self.dimensions || self.dimensions == 0 {
            out.resize(self.len(), 0.0);
            return;
        }
        let mut quantized = vec![0i8; self.dimensions];
        let query_scale = quantize(query, &mut quantized);
        out.resize(self.len(), 0.0);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above), all the function requires.
            unsafe { similarities_avx2(&self.values, &self.scales, &quantized, query_scale, out) };
            return;
        }
        similarities_into(&self.values, &self.scales, &quantized, query_scale, out);
    }
}

/// Each row's dot product with `query`, scaled back, into `out` (one per scale).
/// Positional: the portable kernel of [`ToolVectors::similarities`]; its five
/// values are each distinct inputs, as [`similarities_avx2`]'s are.
#[inline(always)]
fn similarities_into(values: &[i8], scales: &[f32], query: &[i8], query_scale: f32, out: &mut [f32]) {
    for ((row, &scale), out) in values.chunks_exact(query.len()).zip(scales).zip(out) {
        *out = dot_i8(row, query) as f32 * scale * query_scale;
    }
}

/// [`similarities_into`] for CPUs with AVX2, in 32 values an instruction:
/// the question's magnitudes (as unsigned bytes) and signs are taken once,
/// each row takes the question's signs (`sign`), and `maddubs` multiplies
/// and adds pairs into 16 bits, which cannot overflow: every value is within
/// ±127 ([`quantize`] and [`ToolVectors::set_quantized`] see to it), so a
/// pair is at most 2 × 127 × 127 = 32,258. Integer sums are exact, so the
/// result is [`similarities_into`]'s to the bit (whose auto-vectorised loop
/// widens each byte to 16 bits first, twice the instructions).
/// Positional: the SIMD kernel behind [`ToolVectors::similarities`], taking
/// [`similarities_into`]'s five distinct inputs so either can stand in.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn similarities_avx2(values: &[i8], scales: &[f32], query: &[i8], query_scale: f32, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let dimensions = query.len();
    let blocks = dimensions / 32;
    if blocks == 0 {
        similarities_into(values, scales, query, query_scale, out);
        return;
    }
    let whole = blocks * 32;
    let (mut signs, mut magnitudes) = (Vec::with_capacity(blocks), Vec::with_capacity(blocks));
    for block in query[..whole].chunks_exact(32) {
        // SAFETY: `block` is 32 bytes; the load is unaligned.
        let q = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
        signs.push(q);
        magnitudes.push(_mm256_sign_epi8(q, q));
    }
    let ones = _mm256_set1_epi16(1);
    for ((row, &scale), out) in values.chunks_exact(dimensions).zip(scales).zip(out) {
        let mut sums = _mm256_setzero_si256();
        for ((block, &sign), &magnitude) in row[..whole].chunks_exact(32).zip(&signs).zip(&magnitudes) {
            // SAFETY: `block` is 32 bytes; the load is unaligned.
            let signed = _mm256_sign_epi8(unsafe { _mm256_loadu_si256(block.as_ptr().cast()) }, sign);
            sums = _mm256_add_epi32(sums, _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, signed), ones));
        }
        // The eight lanes' sum.
        let half = _mm_add_epi32(_mm256_castsi256_si128(sums), _mm256_extracti128_si256::<1>(sums));
        let half = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
        let half = _mm_add_epi32(half, _mm_shuffle_epi32::<0b10_11_00_01>(half));
        let dot = _mm_cvtsi128_si32(half) + dot_i8(&row[whole..], &query[whole..]);
        *out = dot as f32 * scale * query_scale;
    }
}

/// The dot product of two 8-bit vectors, summed in 16 lanes of 32 bits so
/// the compiler vectorises it (widening multiply-adds).
#[inline(always)]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    let mut lanes = [0i32; 16];
    let (a_chunks, b_chunks) = (a.chunks_exact(16), b.chunks_exact(16));
    let (a_rest, b_rest) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        for i in 0..16 {
            lanes[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let mut sum: i32 = lanes.iter().sum();
    for (&x, &y) in a_rest.iter().zip(b_rest) {
        sum += i32::from(x) * i32::from(y);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> StaticModel {
        let tokens = ["[UNK]", "weather", "city", "##s", "email"];
        let rows = vec![
            9.0, 9.0, // [UNK]: never used
            1.0, 0.0, // weather
            0.0, 1.0, // city
            0.0, 3.0, // ##s
            -1.0, 0.0, // email
        ];
        StaticModel::new(WordPiece::new(tokens, "[UNK]"), 2, rows).unwrap()
    }

    fn embed(model: &StaticModel, text: &str) -> (bool, Vec<f32>) {
        let mut out = vec![7.0; 2];
        let known = model.embed(text, &mut TokenScratch::default(), &mut out);
        (known, out)
    }

    #[test]
    fn a_text_is_the_normalised_mean_of_its_known_tokens() {
        let model = model();
        assert_eq!(embed(&model, "Weather"), (true, vec![1.0, 0.0]));
        // weather + city + ##s = (1, 4); unknown words left out.
        let norm = 17f32.sqrt();
        assert_eq!(embed(&model, "weather zzz citys?"), (true, vec![1.0 / norm, 4.0 / norm]));
        assert_eq!(embed(&model, "zzz"), (false, vec![0.0, 0.0]));
        // Opposite vectors sum to zero: no direction.
        assert_eq!(embed(&model, "weather email"), (false, vec![0.0, 0.0]));
        assert_eq!(
            StaticModel::new(WordPiece::new(["a"], "[UNK]"), 2, vec![1.0]).err(),
            Some(ModelError::Shape { tokens: 1, dimensions: 2, values: 1 })
        );
    }

    #[test]
    fn fields_count_by_their_weight_not_their_length() {
        let model = model();
        let mut out = vec![7.0; 2];
        let mut part = Vec::new();
        let mut embed = |fields: &[(&str, f32)]| {
            let known = model.embed_fields(fields, &mut TokenScratch::default(), &mut part, &mut out);
            (known, out.clone())
        };
        // Four cities weigh no more than one: each field is a unit vector first.
        let norm = 1.25f32.sqrt();
        assert_eq!(embed(&[("weather", 1.0), ("city city city city", 0.5)]), (true, vec![1.0 / norm, 0.5 / norm]));
        assert_eq!(embed(&[("weather", 1.0), ("", 0.5)]), (true, vec![1.0, 0.0]));
        assert_eq!(embed(&[("weather", 1.0), ("city", 0.0)]), (true, vec![1.0, 0.0]));
        assert_eq!(embed(&[("zzz", 1.0), ("city", 0.5)]), (true, vec![0.0, 1.0]));
        assert_eq!(embed(&[("zzz", 1.0), ("", 0.5)]), (false, vec![0.0, 0.0]));
        // One field alone is that field's vector.
        let (_, alone) = embed(&[("weather zzz citys?", 1.0)]);
        let mut direct = vec![0.0; 2];
        model.embed("weather zzz citys?", &mut TokenScratch::default(), &mut direct);
        assert_eq!(alone, direct);
    }

    #[test]
    fn only_the_first_tokens_count() {
        let model = model();
        let text = format!("{} city", "weather ".repeat(MAX_TOKENS));
        assert_eq!(embed(&model, &text), (true, vec![1.0, 0.0]));
    }

    /// The model package's file gives the token ids of the upstream
    /// tokenizer and, within its 8-bit rounding, the vectors of Model2Vec's
    /// own `encode` on the float32 original (`golden.json`, made with the
    /// `model2vec` Python package by `scripts/model/golden.py`; it names its
    /// version). The same ids were checked on every question and tool text of
    /// the dev data.
    #[test]
    fn the_packaged_model_embeds_as_model2vec_does() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/potion-base-8m/potion-base-8m.m2v");
        let model = file::parse(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(model.dimensions(), 256);
        let golden: serde_json::Value = serde_json::from_str(include_str!("embedding/golden.json")).unwrap();
        let numbers = |value: &serde_json::Value| -> Vec<f64> {
            value.as_array().unwrap().iter().map(|n| n.as_f64().unwrap()).collect()
        };
        let mut scratch = TokenScratch::default();
        for case in golden["cases"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            let mut ids = Vec::new();
            model.tokenizer().ids(text, &mut scratch, |id| ids.push(f64::from(id)));
            assert_eq!(ids, numbers(&case["ids"]), "{text}");
            let mut vector = vec![0.0; 256];
            let known = model.embed(text, &mut scratch, &mut vector);
            let want = numbers(&case["vector"]);
            let cos: f64 = vector.iter().zip(&want).map(|(&a, b)| f64::from(a) * b).sum();
            assert!(known == want.iter().any(|&w| w != 0.0), "{text}");
            assert!(!known || cos > 0.999, "{text}: cosine {cos}");
        }
    }

    #[test]
    fn tool_vectors_answer_with_dot_products_within_their_rounding() {
        let mut vectors = ToolVectors::zeros(3, 4);
        vectors.set_normalized(0, &[3.0, 0.0, 4.0]);
        vectors.set_normalized(1, &[0.0, 2.0, 0.0]);
        // Wrong length, or nothing: zeros.
        vectors.set_normalized(2, &[1.0]);
        vectors.set_normalized(3, &[0.0, 0.0, 0.0]);
        // 4/5 is 127 steps of 0.8/127; 3/5 is 95 of them (95.25 rounded).
        let step = 0.8f32 / 127.0;
        assert_eq!(vectors.vector(0), [95.0 * step, 0.0, 127.0 * step]);
        let mut out = Vec::new();
        vectors.similarities(&[0.0, 0.0, 1.0], &mut out);
        assert_eq!(out, [127.0 * step * 127.0 * (1.0 / 127.0), 0.0, 0.0, 0.0]);
        vectors.similarities(&[0.0, 1.0, 0.0], &mut out);
        assert_eq!(out, [0.0, 1.0, 0.0, 0.0]);
        vectors.similarities(&[1.0], &mut out);
        assert_eq!(out, [0.0; 4]);
        vectors.clear(1);
        assert_eq!(vectors.vector(1), [0.0; 3]);
        let long: Vec<i8> = (0..35).collect();
        assert_eq!(dot_i8(&long, &long), (0..35).map(|i| i * i).sum::<i32>());
    }

    /// The AVX2 scan gives the portable loop's numbers to the bit, for every
    /// length (whole blocks of 32, a rest, or only a rest) and the extreme
    /// values (±127 in both, where a pair's sum is largest); a stored -128
    /// is read as -127, as `quantize` would have made it.
    #[test]
    fn the_avx2_scan_is_the_portable_one_to_the_bit() {
        let mut rng = crate::test_rng::Rng::new(21);
        for dimensions in [1, 3, 31, 32, 33, 64, 100, 256, 300] {
            let count = 40;
            let mut values: Vec<i8> = (0..dimensions * count).map(|_| (rng.next() % 255) as i8).collect();
            // Extremes: rows of +127, of -127, alternating.
            for (i, v) in values[..dimensions * 3].iter_mut().enumerate() {
                *v = match i / dimensions {
                    0 => 127,
                    1 => -127,
                    _ if i % 2 == 0 => 127,
                    _ => -127,
                };
            }
            let values: Vec<i8> = values.into_iter().map(|v| v.max(-127)).collect();
            let scales: Vec<f32> = (0..count).map(|_| (rng.next() % 1000) as f32 / 7919.0).collect();
            for query in [
                vec![127i8; dimensions],
                vec![-127; dimensions],
                (0..dimensions).map(|_| (rng.next() % 255) as i8).map(|v| v.max(-127)).collect(),
            ] {
                let mut portable = vec![0f32; count];
                similarities_into(&values, &scales, &query, 0.37, &mut portable);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut avx2 = vec![0f32; count];
                    // SAFETY: the CPU has AVX2.
                    unsafe { similarities_avx2(&values, &scales, &query, 0.37, &mut avx2) };
                    assert_eq!(
                        avx2.iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
                        portable.iter().map(|s| s.to_bits()).collect::<Vec<_>>(),
                        "{dimensions}"
                    );
                }
            }
        }
        // A token's row added to the sums, as the portable loop adds it.
        for dimensions in [1, 7, 8, 9, 64, 256, 300] {
            let row: Vec<i8> = (0..dimensions).map(|_| (rng.next() % 256) as u8 as i8).collect();
            let start: Vec<f32> = (0..dimensions).map(|_| (rng.next() % 10000) as f32 / 317.0 - 15.0).collect();
            let (mut portable, mut fast) = (start.clone(), start);
            add_scaled_portable(&mut portable, &row, 0.0123);
            add_scaled(&mut fast, &row, 0.0123);
            assert_eq!(
                fast.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                portable.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
        // Rounding, halves away from zero included (the scale is 1 here).
        let mut halves: Vec<f32> = vec![127.0, -127.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 126.5, -126.5];
        halves.extend((0..500).map(|_| (rng.next() % 25401) as f32 / 100.0 - 127.0));
        let (mut portable, mut fast) = (vec![0i8; halves.len()], vec![0i8; halves.len()]);
        let scale = quantize_portable(&halves, &mut portable);
        assert_eq!(quantize(&halves, &mut fast), scale);
        assert_eq!(fast, portable);
        assert_eq!(portable[..10], [127, -127, 1, -1, 2, 3, -3, 0, 127, -127]);
        let mut vectors = ToolVectors::zeros(2, 1);
        vectors.set_quantized(0, &[-128, 5], 1.0);
        assert_eq!(vectors.quantized(0), (&[-127i8, 5][..], 1.0));
    }
}
