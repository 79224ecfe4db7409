//! The built-in model's file, and the one model a process loads from it.
//!
//! The file (made by `scripts/model/pack-model.mjs` from the upstream
//! `model.safetensors` and `tokenizer.json`) is, little-endian:
//!
//! ```text
//! magic      8 bytes   "M2VI8\0\0\x01"
//! tokens     u32       T, the vocabulary's size
//! dimensions u32       D
//! unknown    u32       the unknown token's id
//! vocabulary u32 + ... its byte length, then the tokens in id order, UTF-8, each ended by '\n'
//! scales     T × f32   each row's scale
//! values     T × D i8  each row, as round(value / scale)
//! ```
//!
//! Rows are kept as 8-bit integers with a scale per row (a quarter of the
//! upstream 32-bit table): measured on the dev data, retrieval is the same
//! to the case (see docs/searching.md).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::{ModelError, StaticModel, TokenScratch, ToolVectors, WordPiece};
use crate::search::hash::hash_bytes;

type HashMap<K, V> = hashbrown::HashMap<K, V, foldhash::fast::RandomState>;

/// A tool's fields' hash for the vectors made before (64 bits: two of the
/// at most [`MADE_VECTORS_KEPT`] tools share one with odds of about 1 in
/// 10^10). Each text is followed by a byte no UTF-8 text holds and its weight.
fn fields_hash(fields: &[(&str, f32)], bytes: &mut Vec<u8>) -> u64 {
    bytes.clear();
    for &(text, weight) in fields {
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0xFF);
        bytes.extend_from_slice(&weight.to_le_bytes());
    }
    hash_bytes(bytes)
}

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"M2VI8\0\0\x01";

/// Why a model file could not be read.
#[derive(Debug)]
pub enum FileError {
    Io(std::io::Error),
    /// Not a model file, or cut short, or with sizes that do not agree.
    Format(&'static str),
    Model(ModelError),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Io(error) => write!(f, "{error}"),
            FileError::Format(what) => write!(f, "not an embedding model file: {what}"),
            FileError::Model(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for FileError {}

/// Reads a model from the bytes of its file.
pub fn parse(bytes: &[u8]) -> Result<StaticModel, FileError> {
    let mut at = 0usize;
    let mut take = |len: usize, what: &'static str| -> Result<&[u8], FileError> {
        let piece =
            bytes.get(at..at.checked_add(len).ok_or(FileError::Format(what))?).ok_or(FileError::Format(what))?;
        at += len;
        Ok(piece)
    };
    if take(MAGIC.len(), "no magic")? != MAGIC {
        return Err(FileError::Format("no magic"));
    }
    let mut number = |what| -> Result<usize, FileError> {
        Ok(u32::from_le_bytes(take(4, what)?.try_into().expect("four bytes")) as usize)
    };
    let tokens = number("no token count")?;
    let dimensions = number("no dimensions")?;
    let unknown = number("no unknown token")?;
    let vocabulary_len = number("no vocabulary length")?;
    let vocabulary = std::str::from_utf8(take(vocabulary_len, "vocabulary cut short")?)
        .map_err(|_| FileError::Format("vocabulary not UTF-8"))?;
    let names: Vec<&str> = vocabulary.strip_suffix('\n').map_or(Vec::new(), |v| v.split('\n').collect());
    if names.len() != tokens || unknown >= tokens {
        return Err(FileError::Format("vocabulary and token count disagree"));
    }
    let scales: Vec<f32> = take(tokens.checked_mul(4).ok_or(FileError::Format("too large"))?, "scales cut short")?
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("four bytes")))
        .collect();
    let values = take(tokens.checked_mul(dimensions).ok_or(FileError::Format("too large"))?, "rows cut short")?;
    if at != bytes.len() {
        return Err(FileError::Format("bytes after the rows"));
    }
    let values: Vec<i8> = values.iter().map(|&b| b as i8).collect();
    let tokenizer = WordPiece::new(names.iter().copied(), names[unknown]);
    StaticModel::quantized(tokenizer, dimensions, values, scales).map_err(FileError::Model)
}

/// A model's file as its parts (see the module docs for each).
#[derive(Clone, Copy, Debug)]
pub struct ModelParts<'a> {
    /// The vocabulary, in id order.
    pub tokens: &'a [&'a str],
    /// The unknown token's id.
    pub unknown: u32,
    pub dimensions: usize,
    /// The rows, `dimensions` 8-bit values each.
    pub values: &'a [i8],
    /// Each row's scale.
    pub scales: &'a [f32],
}

/// Writes a model's file (the packing script's format; for tests and tools).
pub fn write(model: ModelParts<'_>) -> Vec<u8> {
    let ModelParts { tokens, unknown, dimensions, values, scales } = model;
    let mut out = MAGIC.to_vec();
    let vocabulary: String = tokens.iter().flat_map(|t| [*t, "\n"]).collect();
    for n in [tokens.len(), dimensions, unknown as usize, vocabulary.len()] {
        out.extend((n as u32).to_le_bytes());
    }
    out.extend(vocabulary.as_bytes());
    out.extend(scales.iter().flat_map(|s| s.to_le_bytes()));
    out.extend(values.iter().map(|&v| v as u8));
    out
}

/// The built-in model of this process: loaded from its file on first use,
/// by whichever thread first needs it (an index being built beside the
/// caller, as a rule), and kept for every catalog after.
pub struct BuiltinModel {
    path: PathBuf,
    model: OnceLock<Result<Arc<StaticModel>, String>>,
    /// Tool texts' vectors made before, by the text's hash: a step's catalog
    /// of resolved tools (`includeResolvedTools`) is made anew each step
    /// from mostly the same tools, which then cost a lookup, not an
    /// embedding (about 5 µs a tool).
    made: Mutex<Made>,
}

/// What embedding tools keeps from one to the next: the tokenizer's words
/// met, a field's vector, the tool's, and the bytes its key is hashed from.
#[derive(Default)]
pub struct EmbedScratch {
    tokens: TokenScratch,
    part: Vec<f32>,
    vector: Vec<f32>,
    key: Vec<u8>,
}

/// Vectors by the hash of a tool's fields, as the 8-bit values and scale [`ToolVectors`] keep.
#[derive(Default)]
struct Made {
    vectors: HashMap<u64, (Box<[i8]>, f32)>,
}

/// At most this many texts' vectors are kept (about 10 MB with the built-in
/// model's 256 dimensions: 256 bytes a vector, and the table's and the
/// allocator's due); past it they are all let go and made again as needed.
pub const MADE_VECTORS_KEPT: usize = 1 << 15;

static BUILTIN: Mutex<Option<Arc<BuiltinModel>>> = Mutex::new(None);

impl BuiltinModel {
    /// Names the file the built-in model is read from. The first file named
    /// is the one: a later call (the same package, found again) keeps it.
    pub fn locate(path: &Path) -> Arc<BuiltinModel> {
        BUILTIN.lock().get_or_insert_with(|| Arc::new(BuiltinModel::new(path.to_owned()))).clone()
    }

    fn new(path: PathBuf) -> BuiltinModel {
        BuiltinModel { path, model: OnceLock::new(), made: Mutex::new(Made::default()) }
    }

    /// Sets document `doc` of `vectors` to the vector of a tool's `fields`
    /// (text, weight: [`StaticModel::embed_fields`]), made by `model` (this
    /// one's) or found among those made before.
    /// Positional: once per tool of an index being built, in its loop; the
    /// model, the fields, the row (`vectors`, `doc`) and the scratch are
    /// each that loop's own.
    pub fn embed_into(
        &self,
        model: &StaticModel,
        fields: &[(&str, f32)],
        vectors: &mut ToolVectors,
        doc: usize,
        scratch: &mut EmbedScratch,
    ) {
        let key = fields_hash(fields, &mut scratch.key);
        if let Some((values, scale)) = self.made.lock().vectors.get(&key) {
            vectors.set_quantized(doc, values, *scale);
            return;
        }
        scratch.vector.resize(model.dimensions(), 0.0);
        if model.embed_fields(fields, &mut scratch.tokens, &mut scratch.part, &mut scratch.vector) {
            vectors.set_normalized(doc, &scratch.vector);
        } else {
            vectors.clear(doc);
        }
        let (values, scale) = vectors.quantized(doc);
        let mut made = self.made.lock();
        if made.vectors.len() >= MADE_VECTORS_KEPT {
            made.vectors.clear();
        }
        made.vectors.insert(key, (values.into(), scale));
    }

    /// Serves a model made in memory (tests), if no file was named first.
    pub fn provide(model: StaticModel) -> Arc<BuiltinModel> {
        let builtin = BUILTIN.lock().get_or_insert_with(|| Arc::new(BuiltinModel::new(PathBuf::new()))).clone();
        let _ = builtin.model.set(Ok(Arc::new(model)));
        builtin
    }

    /// The built-in model, if one was named.
    pub fn current() -> Option<Arc<BuiltinModel>> {
        BUILTIN.lock().clone()
    }

    /// The model, loading it the first time; why not, if it cannot be read.
    pub fn get(&self) -> Result<&StaticModel, &str> {
        let loaded = self.model.get_or_init(|| {
            let bytes = std::fs::read(&self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
            parse(&bytes).map(Arc::new).map_err(|e| format!("{}: {e}", self.path.display()))
        });
        match loaded {
            Ok(model) => Ok(model),
            Err(error) => Err(error),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of three tokens in two dimensions: "weather" and its "##s".
    fn tiny_model() -> Vec<u8> {
        write(ModelParts {
            tokens: &["[UNK]", "weather", "##s"],
            unknown: 0,
            dimensions: 2,
            values: &[0, 0, 127, -64, 10, 20],
            scales: &[1.0, 0.5, 0.25],
        })
    }

    #[test]
    fn a_written_model_reads_back_and_damage_is_refused() {
        let bytes = tiny_model();
        let model = parse(&bytes).unwrap();
        assert_eq!(model.dimensions(), 2);
        let mut out = [0.0; 2];
        assert!(model.embed("weathers", &mut TokenScratch::default(), &mut out));
        // (63.5, -32) + (2.5, 5) = (66, -27), normalised.
        let norm = (66f32 * 66.0 + 27.0 * 27.0).sqrt();
        assert_eq!(out, [66.0 / norm, -27.0 / norm]);
        for cut in [0, 7, 12, 24, bytes.len() - 1] {
            assert!(matches!(parse(&bytes[..cut]), Err(FileError::Format(_))), "{cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(parse(&longer), Err(FileError::Format("bytes after the rows"))));
        let mut other = bytes;
        other[0] = b'X';
        assert!(matches!(parse(&other), Err(FileError::Format("no magic"))));
    }

    #[test]
    fn a_text_embedded_before_is_looked_up_not_embedded_again() {
        let bytes = tiny_model();
        let builtin = BuiltinModel::new(PathBuf::new());
        let _ = builtin.model.set(Ok(Arc::new(parse(&bytes).unwrap())));
        let model = builtin.get().unwrap();
        let mut scratch = EmbedScratch::default();
        let (mut first, mut again) = (ToolVectors::zeros(2, 3), ToolVectors::zeros(2, 3));
        for (doc, text) in ["weathers", "weather", "zzz"].into_iter().enumerate() {
            builtin.embed_into(model, &[(text, 1.0)], &mut first, doc, &mut scratch);
        }
        assert_eq!(builtin.made.lock().vectors.len(), 3);
        for (doc, text) in ["zzz", "weathers", "weather"].into_iter().enumerate() {
            builtin.embed_into(model, &[(text, 1.0)], &mut again, doc, &mut scratch);
        }
        assert_eq!(builtin.made.lock().vectors.len(), 3);
        // The same texts split into other fields, or weighed otherwise, are another tool.
        let mut other = ToolVectors::zeros(2, 3);
        builtin.embed_into(model, &[("weather", 1.0), ("s", 0.5)], &mut other, 0, &mut scratch);
        builtin.embed_into(model, &[("weathers", 1.0), ("", 0.5)], &mut other, 1, &mut scratch);
        builtin.embed_into(model, &[("weathers", 0.5)], &mut other, 2, &mut scratch);
        assert_eq!(builtin.made.lock().vectors.len(), 6);
        assert_eq!((again.quantized(1), again.quantized(2)), (first.quantized(0), first.quantized(1)));
        assert_eq!(again.quantized(0), (&[0i8, 0][..], 0.0));
        // As made directly.
        let mut direct = ToolVectors::zeros(2, 1);
        let mut vector = [0.0; 2];
        model.embed("weathers", &mut TokenScratch::default(), &mut vector);
        direct.set_normalized(0, &vector);
        assert_eq!(direct.quantized(0), first.quantized(0));
    }
}
