//! A host release's processors, recognised by their sources.
//!
//! Mastra publishes source maps whose `sourcesContent` carries every bundled
//! TypeScript file. The files that decide what the two processors do
//! ([`PROCESSOR_SOURCES`]) are found by following, from the ES module that
//! `@mastra/core/processors` names, the imports that bring in the
//! processors, their stores and the BM25 index; their texts' SHA-256 digests
//! are the release's [`Fingerprint`]. Anything unexpected (no such export, a
//! chunk or its map missing, a source not found) makes the sources
//! [`SourcesUnreadable`], and the host's own processors are served: a wrong
//! guess must never run other rules than the host's.

use std::collections::VecDeque;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The sources whose text decides what `ToolSearchProcessor` and
/// `ToolCallFilter` do, as paths inside Mastra's repository.
pub const PROCESSOR_SOURCES: [&str; 4] = [
    "src/processors/processors/tool-search.ts",
    "src/processors/processors/tool-search-stores.ts",
    "src/processors/processors/tool-call-filter.ts",
    "src/workspace/search/bm25.ts",
];

/// Names whose imports lead from the processors' entry to the bundled
/// chunks that hold [`PROCESSOR_SOURCES`].
const FOLLOWED_NAMES: [&str; 5] =
    ["ToolSearchProcessor", "ToolCallFilter", "LegacyMapLoadedToolStore", "ContextLoadedToolStore", "BM25Index"];

/// How many bundled files are followed at most (Mastra's 1.x dist needs 3).
const MOST_FILES: usize = 16;

/// SHA-256 of each of [`PROCESSOR_SOURCES`], in that order, as lowercase hex.
pub type Digests = [&'static str; 4];

/// The digests of a host's [`PROCESSOR_SOURCES`], as read from its dist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    digests: [String; 4],
}

/// Why a host's processors could not be fingerprinted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourcesUnreadable {
    /// `package.json` names no ES module for `./processors`.
    NoProcessorsEntry,
    /// A file could not be read.
    Unreadable { file: String, error: String },
    /// A bundled file has no source map beside it.
    NoSourceMap(String),
    /// A source map is not one.
    BadSourceMap(String),
    /// No source map followed carries this source's text.
    Missing(&'static str),
}

impl fmt::Display for SourcesUnreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourcesUnreadable::NoProcessorsEntry => write!(f, "its package.json exports no ES module for ./processors"),
            SourcesUnreadable::Unreadable { file, error } => write!(f, "{file} could not be read ({error})"),
            SourcesUnreadable::NoSourceMap(file) => write!(f, "it has no source map {file}"),
            SourcesUnreadable::BadSourceMap(file) => write!(f, "{file} is not a source map"),
            SourcesUnreadable::Missing(source) => write!(f, "its source maps do not carry {source}"),
        }
    }
}

impl std::error::Error for SourcesUnreadable {}

impl Fingerprint {
    /// The fingerprint of these digests (tests, and known releases).
    pub fn from_digests(digests: Digests) -> Fingerprint {
        Fingerprint { digests: digests.map(str::to_owned) }
    }

    /// The digests, in the order of [`PROCESSOR_SOURCES`].
    pub fn digests(&self) -> &[String; 4] {
        &self.digests
    }

    /// The sources whose digests differ from these.
    pub fn differing(&self, known: &Digests) -> Vec<&'static str> {
        PROCESSOR_SOURCES
            .iter()
            .zip(&self.digests)
            .zip(known)
            .filter(|((_, ours), theirs)| ours != *theirs)
            .map(|((source, _), _)| *source)
            .collect()
    }

    /// Reads the fingerprint of the processors a host's dist bundles, from
    /// `entry` (the ES module of `@mastra/core/processors`). `root` is the
    /// package's directory, to name files in errors.
    pub fn read(root: &Path, entry: &Path) -> Result<Fingerprint, SourcesUnreadable> {
        let name = |path: &Path| path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let mut found: [Option<String>; 4] = Default::default();
        let mut queue = VecDeque::from([entry.to_path_buf()]);
        let mut visited: Vec<PathBuf> = Vec::new();
        let mut without_map = None;
        while let Some(file) = queue.pop_front() {
            if visited.contains(&file) || visited.len() == MOST_FILES {
                continue;
            }
            let code = fs::read_to_string(&file)
                .map_err(|error| SourcesUnreadable::Unreadable { file: name(&file), error: error.to_string() })?;
            let dir = file.parent().unwrap_or(root);
            queue.extend(imports_binding(&code, &FOLLOWED_NAMES).map(|module| lexically_joined(dir, module)));
            visited.push(file.clone());
            let map = source_map_of(&file, &code);
            let text = match fs::read(&map) {
                Ok(text) => text,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    // The entry only re-exports, and has no map of its own.
                    if file != entry {
                        without_map.get_or_insert(map);
                    }
                    continue;
                }
                Err(error) => return Err(SourcesUnreadable::Unreadable { file: name(&map), error: error.to_string() }),
            };
            let texts = processor_texts(&text).map_err(|NotASourceMap| SourcesUnreadable::BadSourceMap(name(&map)))?;
            for (digest, text) in found.iter_mut().zip(texts) {
                if let (None, Some(text)) = (&digest, text) {
                    *digest = Some(hex(&Sha256::digest(text.as_bytes())));
                }
            }
            if found.iter().all(Option::is_some) {
                break;
            }
        }
        let mut digests: [String; 4] = Default::default();
        for (i, digest) in found.into_iter().enumerate() {
            digests[i] = match (digest, &without_map) {
                (Some(digest), _) => digest,
                (None, Some(map)) => return Err(SourcesUnreadable::NoSourceMap(name(map))),
                (None, None) => return Err(SourcesUnreadable::Missing(PROCESSOR_SOURCES[i])),
            };
        }
        Ok(Fingerprint { digests })
    }
}

/// The relative modules a bundled file imports or re-exports from with a
/// binding of one of `names`. Bundlers write one statement a line, before
/// any other code: `import { u as BM25Index } from "./workspace-skills-DTDLWMv4.js";`.
fn imports_binding<'a>(code: &'a str, names: &'a [&str]) -> impl Iterator<Item = &'a str> + 'a {
    let statements = code.lines().map(str::trim_start).filter(|line| !line.is_empty());
    let statements = statements.take_while(|line| line.starts_with("import") || line.starts_with("export"));
    statements.filter_map(move |line| {
        let open = line.find('{')?;
        let close = open + line[open..].find('}')?;
        let from = line[close + 1..].trim_start().strip_prefix("from")?.trim_start();
        let quote = from.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let module = &from[1..][..from[1..].find(quote)?];
        let binds = line[open + 1..close]
            .split(',')
            .flat_map(|binding| binding.split(" as "))
            .any(|n| names.contains(&n.trim()));
        (binds && module.starts_with('.')).then_some(module)
    })
}

/// `dir` joined with a relative module path, its `.` and `..` resolved
/// without asking the file system (bundled files are not links).
fn lexically_joined(dir: &Path, module: &str) -> PathBuf {
    let mut path = dir.to_path_buf();
    for part in module.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                path.pop();
            }
            part => path.push(part),
        }
    }
    path
}

/// The source map of a bundled file: the one its last `sourceMappingURL`
/// comment names, else the file's name with `.map`.
fn source_map_of(file: &Path, code: &str) -> PathBuf {
    let named = code.trim_end().rsplit('\n').next().and_then(|line| line.strip_prefix("//# sourceMappingURL="));
    match named {
        Some(url) if !url.contains(':') => file.with_file_name(url.trim()),
        _ => {
            let mut map = file.as_os_str().to_owned();
            map.push(".map");
            PathBuf::from(map)
        }
    }
}

/// The texts of [`PROCESSOR_SOURCES`] that a source map carries, in that
/// order (`None` where it carries none); `Err` when it is not a source map
/// with `sources` and `sourcesContent` arrays.
///
/// A map of a large chunk holds megabytes of other sources, names and
/// mappings, so it is not parsed whole: the `sources` array is, and in
/// `sourcesContent` the strings before a wanted one are skipped over by
/// their quotes (a quote inside a JSON string is always escaped).
pub fn processor_texts(map: &[u8]) -> Result<[Option<String>; 4], NotASourceMap> {
    let mut texts: [Option<String>; 4] = Default::default();
    let sources = serde_json::Deserializer::from_slice(array_of(map, b"sources")?).into_iter::<Vec<String>>().next();
    let sources = sources.ok_or(NotASourceMap)?.map_err(|_| NotASourceMap)?;
    let mut wanted = sources
        .iter()
        .enumerate()
        .filter_map(|(index, source)| {
            Some((index, PROCESSOR_SOURCES.iter().position(|wanted| is_source(source, wanted))?))
        })
        .peekable();
    if wanted.peek().is_none() {
        return Ok(texts);
    }
    let mut contents = array_of(map, b"sourcesContent")?[1..].iter();
    let mut next_index = 0;
    for (index, source) in wanted {
        let value = loop {
            let value = next_value(&mut contents)?;
            next_index += 1;
            if next_index > index {
                break value;
            }
        };
        let text: Option<String> = serde_json::from_slice(value).map_err(|_| NotASourceMap)?;
        if texts[source].is_none() {
            texts[source] = text;
        }
    }
    Ok(texts)
}

/// A source map that is not one (see [`processor_texts`]).
#[derive(Debug, PartialEq, Eq)]
pub struct NotASourceMap;

/// The array that a top-level `key` of a source map holds, from its `[` to
/// the end of the map.
fn array_of<'a>(map: &'a [u8], key: &[u8]) -> Result<&'a [u8], NotASourceMap> {
    let quoted = [b"\"", key, b"\""].concat();
    for at in memchr::memmem::find_iter(map, &quoted) {
        let rest = skip_space(&map[at + quoted.len()..]);
        if let Some(rest) = rest.strip_prefix(b":") {
            let rest = skip_space(rest);
            return if rest.first() == Some(&b'[') { Ok(rest) } else { Err(NotASourceMap) };
        }
    }
    Err(NotASourceMap)
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    &bytes[start..]
}

/// The next value of an array of strings and `null`s, whose bytes after its
/// `[` (or after the value before) `rest` iterates: the value's bytes.
fn next_value<'a>(rest: &mut std::slice::Iter<'a, u8>) -> Result<&'a [u8], NotASourceMap> {
    let bytes = rest.as_slice();
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace() && *b != b',').ok_or(NotASourceMap)?;
    let value = &bytes[start..];
    let len = match value.first() {
        Some(b'"') => {
            let mut end = 1;
            loop {
                let unread = value.get(end..).ok_or(NotASourceMap)?;
                end += memchr::memchr2(b'"', b'\\', unread).ok_or(NotASourceMap)?;
                if value[end] == b'\\' {
                    end += 2;
                } else {
                    break end + 1;
                }
            }
        }
        Some(b'n') if value.starts_with(b"null") => 4,
        _ => return Err(NotASourceMap),
    };
    *rest = value.get(len..).ok_or(NotASourceMap)?.iter();
    Ok(&value[..len])
}

/// Whether a map's source path (`../src/workspace/search/bm25.ts`) is this
/// repository path.
fn is_source(path: &str, wanted: &str) -> bool {
    path.strip_suffix(wanted).is_some_and(|before| before.is_empty() || before.ends_with('/'))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What is read of a host's `package.json`.
#[derive(Debug)]
pub struct Manifest {
    pub version: String,
    /// The package's directory.
    pub root: PathBuf,
    /// `exports["./processors"]`'s ES module, as written.
    processors_import: Option<String>,
}

impl Manifest {
    /// Reads the `package.json` at this path.
    pub fn read(package_json: &Path) -> Result<Manifest, String> {
        let text = fs::read(package_json).map_err(|error| error.to_string())?;
        let manifest: serde_json::Value = serde_json::from_slice(&text).map_err(|error| error.to_string())?;
        let version = manifest["version"].as_str().ok_or("no version")?.to_owned();
        let import = &manifest["exports"]["./processors"]["import"];
        let processors_import = import.as_str().or_else(|| import["default"].as_str()).map(str::to_owned);
        let root = package_json.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(Manifest { version, root, processors_import })
    }

    /// The fingerprint of the processors this package bundles.
    pub fn fingerprint(&self) -> Result<Fingerprint, SourcesUnreadable> {
        let entry = self.processors_import.as_ref().ok_or(SourcesUnreadable::NoProcessorsEntry)?;
        Fingerprint::read(&self.root, &self.root.join(entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of its own for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mnp-fingerprint-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("dist/processors")).unwrap();
        dir
    }

    fn source_map(sources: &[(&str, &str)]) -> String {
        let names: Vec<_> = sources.iter().map(|(path, _)| format!("\"../{path}\"")).collect();
        let texts: Vec<_> = sources.iter().map(|(_, text)| serde_json::to_string(text).unwrap()).collect();
        format!(
            r#"{{"version":3,"names":["x"],"sources":[{}],"sourcesContent":[{}],"mappings":"AAAA"}}"#,
            names.join(","),
            texts.join(",")
        )
    }

    /// A dist laid out as Mastra's: the entry imports the processors from a
    /// chunk, which imports the BM25 index from another.
    fn dist(dir: &Path, tool_call_filter: &str) {
        let write = |path: &str, text: &str| fs::write(dir.join(path), text).unwrap();
        write(
            "package.json",
            r#"{"name":"@mastra/core","version":"1.72.0","exports":{"./processors":{"import":{"types":"./dist/processors/index.d.ts","default":"./dist/processors/index.js"}}}}"#,
        );
        write(
            "dist/processors/index.js",
            "import { a as x } from \"../trip-wire-1.js\";\nimport { Xt as ToolSearchProcessor, Qt as ToolCallFilter } from \"../agent-2.js\";\nexport { ToolCallFilter, ToolSearchProcessor };\n",
        );
        write("dist/agent-2.js", "import { u as BM25Index } from \"./workspace-skills-3.js\";\nimport { z } from \"zod\";\nvar ToolSearchProcessor = class {};\n//# sourceMappingURL=agent-2.js.map");
        write(
            "dist/agent-2.js.map",
            &source_map(&[
                ("src/processors/processors/tool-search.ts", "search \"é\"\n"),
                ("src/processors/processors/tool-search-stores.ts", "stores"),
                ("src/processors/processors/tool-call-filter.ts", tool_call_filter),
            ]),
        );
        write("dist/workspace-skills-3.js", "var BM25Index = class {};\n");
        write("dist/workspace-skills-3.js.map", &source_map(&[("src/workspace/search/bm25.ts", "bm25")]));
    }

    fn sha(text: &str) -> String {
        hex(&Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn follows_the_imports_from_the_entry_to_every_processor_source() {
        let dir = scratch("follows");
        dist(&dir, "filter");
        let manifest = Manifest::read(&dir.join("package.json")).unwrap();
        assert_eq!(manifest.version, "1.72.0");
        let fingerprint = manifest.fingerprint().unwrap();
        assert_eq!(fingerprint.digests(), &[sha("search \"é\"\n"), sha("stores"), sha("filter"), sha("bm25")]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn names_the_sources_that_differ() {
        let fingerprint = Fingerprint::from_digests(["a", "b", "c", "d"]);
        assert_eq!(fingerprint.differing(&["a", "x", "c", "y"]), [PROCESSOR_SOURCES[1], PROCESSOR_SOURCES[3]]);
        assert!(fingerprint.differing(&["a", "b", "c", "d"]).is_empty());
    }

    #[test]
    fn says_what_could_not_be_read() {
        let dir = scratch("unreadable");
        dist(&dir, "filter");
        let manifest = Manifest::read(&dir.join("package.json")).unwrap();
        fs::remove_file(dir.join("dist/agent-2.js.map")).unwrap();
        assert_eq!(manifest.fingerprint(), Err(SourcesUnreadable::NoSourceMap("dist/agent-2.js.map".into())));
        fs::write(dir.join("dist/agent-2.js.map"), "{\"sources\": 3}").unwrap();
        assert_eq!(manifest.fingerprint(), Err(SourcesUnreadable::BadSourceMap("dist/agent-2.js.map".into())));
        fs::write(dir.join("dist/agent-2.js.map"), source_map(&[])).unwrap();
        assert_eq!(manifest.fingerprint(), Err(SourcesUnreadable::Missing(PROCESSOR_SOURCES[0])));
        fs::remove_file(dir.join("dist/agent-2.js")).unwrap();
        assert!(
            matches!(manifest.fingerprint(), Err(SourcesUnreadable::Unreadable { file, .. }) if file == "dist/agent-2.js")
        );
        fs::write(dir.join("package.json"), r#"{"version":"1.72.0","exports":{}}"#).unwrap();
        let manifest = Manifest::read(&dir.join("package.json")).unwrap();
        assert_eq!(manifest.fingerprint(), Err(SourcesUnreadable::NoProcessorsEntry));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_source_without_its_text_or_under_another_path_does_not_count() {
        let map = r#"{"sources":["../src/processors/processors/tool-search.ts","../vendor/xsrc/workspace/search/bm25.ts"],"sourcesContent":[null,"x"]}"#;
        assert_eq!(processor_texts(map.as_bytes()), Ok([None, None, None, None]));
    }

    #[test]
    fn skips_other_texts_by_their_quotes_whatever_they_hold() {
        let map = "{\n  \"names\": [\"sources\", \"sourcesContent\"],\n  \"sources\" : [\"a.ts\", \"b.ts\", \"../src/workspace/search/bm25.ts\"],\n  \"sourcesContent\": [ \"say \\\"\\\\\\\"sources\\\":[\\\\\",\n null ,\"bm25 \\u00e9\\n\"],\n  \"mappings\": \"\"\n}";
        assert_eq!(processor_texts(map.as_bytes()), Ok([None, None, None, Some("bm25 é\n".into())]));
    }

    #[test]
    fn a_map_cut_short_is_no_map() {
        for map in [
            r#"{"sources":["../src/workspace/search/bm25.ts"],"sourcesContent":["unterminated"#,
            "{\"sources\":[\"../src/workspace/search/bm25.ts\"],\"sourcesContent\":[\"ends in \\",
        ] {
            assert_eq!(processor_texts(map.as_bytes()), Err(NotASourceMap), "{map}");
        }
    }

    #[test]
    fn reads_only_relative_imports_that_bind_a_followed_name() {
        let code = "import { a as ToolCallFilter } from '../agent.js';\nimport { b } from \"./other.js\";\n\nimport { BM25Index } from \"bm25\";\nexport { c as ToolSearchProcessor } from \"./re.js\";\nvar x = 1;\nimport { ToolCallFilter } from \"./late.js\";";
        assert_eq!(imports_binding(code, &FOLLOWED_NAMES).collect::<Vec<_>>(), ["../agent.js", "./re.js"]);
    }
}
