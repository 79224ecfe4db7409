//! Which Mastra releases this package stands in for, and what their
//! processors do differently.
//!
//! The package behaves like the processors of the `@mastra/core` it is
//! installed next to. The binding reads that release's version once, at
//! import, and asks [`behaviours`] which rules apply; every release-dependent
//! branch in the package is one of the named [`Behaviours`], never a version
//! comparison of its own.
//!
//! What changed in the two processors across the supported releases (read
//! from each release's sources):
//!
//! | from   | change |
//! | ------ | ------ |
//! | 1.60.0 | `ToolCallFilter` filters the provider prompt in `processLLMRequest`, no longer the message list |
//! | 1.67.0 | `ToolSearchProcessor` gains `injectCatalog` |
//! | 1.68.0 | the prompt filter's `preserveModelOutput` keeps only results with their own model output |
//!
//! Two `ToolSearchProcessor` fixes of 1.60.0 (the memory-thread fallback and
//! counting single-`toolName` load results in the context store) apply on
//! every release: they are fixes, adopted on purpose.

use std::fmt;

/// A release number, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Release {
    pub const fn new(major: u64, minor: u64, patch: u64) -> Release {
        Release { major, minor, patch }
    }

    /// Reads a version as npm writes it. Build metadata (`+...`) is ignored;
    /// a pre-release (`-alpha.4`) is kept apart, as npm ranges keep it out.
    pub fn parse(version: &str) -> Option<(Release, bool)> {
        let version = match version.split_once('+') {
            Some((_, build)) if !valid_identifiers(build) => return None,
            Some((core, _)) => core,
            None => version,
        };
        let (core, pre_release) = match version.split_once('-') {
            Some((core, tag)) if valid_identifiers(tag) => (core, true),
            Some(_) => return None,
            None => (version, false),
        };
        let mut numbers = core.split('.').map(|n| {
            let digits_only = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            // npm rejects leading zeros ("1.059.0").
            let canonical = n == "0" || !n.starts_with('0');
            if digits_only && canonical {
                n.parse::<u64>().ok()
            } else {
                None
            }
        });
        let release = Release::new(numbers.next()??, numbers.next()??, numbers.next()??);
        if numbers.next().is_some() {
            return None;
        }
        Some((release, pre_release))
    }
}

/// Dot-separated, non-empty identifiers of ASCII letters, digits and hyphens,
/// as semver allows after `-` and `+`.
fn valid_identifiers(text: &str) -> bool {
    text.split('.').all(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The oldest supported release: the one Mastra's documentation describes.
pub const FIRST_SUPPORTED: Release = Release::new(1, 59, 0);
/// The first release not yet tested, and so not supported.
pub const FIRST_UNSUPPORTED: Release = Release::new(1, 72, 0);

/// The supported releases as an npm range, as `peerDependencies` states it.
pub fn supported_range() -> String {
    format!(">={FIRST_SUPPORTED} <{FIRST_UNSUPPORTED}")
}

/// Where `ToolCallFilter` does its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterStage {
    /// `processInput` / `processInputStep` rewrite the message list (to 1.59).
    MessageList,
    /// `processLLMRequest` rewrites only the prompt sent to the model (1.60 on).
    Prompt,
}

/// Which removed results the prompt filter's `preserveModelOutput` turns into text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreservedResults {
    /// Every removed result, from its prompt output (1.60 to 1.67).
    Every,
    /// Only results carrying their own `providerOptions.mastra.modelOutput` (1.68 on).
    WithOwnModelOutput,
}

/// The rules of one release's processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Behaviours {
    pub filter_stage: FilterStage,
    pub preserved_results: PreservedResults,
    /// Whether `ToolSearchProcessor` honours `injectCatalog`.
    pub inject_catalog: bool,
}

impl Behaviours {
    /// The rules of a supported release.
    fn of(release: Release) -> Behaviours {
        Behaviours {
            filter_stage: if release >= Release::new(1, 60, 0) {
                FilterStage::Prompt
            } else {
                FilterStage::MessageList
            },
            preserved_results: if release >= Release::new(1, 68, 0) {
                PreservedResults::WithOwnModelOutput
            } else {
                PreservedResults::Every
            },
            inject_catalog: release >= Release::new(1, 67, 0),
        }
    }
}

/// A host release this package does not stand in for.
#[derive(Debug, PartialEq, Eq)]
pub struct UnsupportedRelease {
    pub version: String,
}

impl fmt::Display for UnsupportedRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mastra-native-processors supports @mastra/core {}, but this project has @mastra/core {:?}. \
             Install a supported @mastra/core, or import ToolSearchProcessor and ToolCallFilter from \
             '@mastra/core/processors' instead.",
            supported_range(),
            self.version
        )
    }
}

impl std::error::Error for UnsupportedRelease {}

/// The rules of the release with this version, if it is supported.
pub fn behaviours(version: &str) -> Result<Behaviours, UnsupportedRelease> {
    match Release::parse(version) {
        Some((release, false)) if (FIRST_SUPPORTED..FIRST_UNSUPPORTED).contains(&release) => {
            Ok(Behaviours::of(release))
        }
        _ => Err(UnsupportedRelease { version: version.to_owned() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions_as_npm_writes_them() {
        assert_eq!(Release::parse("1.71.0"), Some((Release::new(1, 71, 0), false)));
        assert_eq!(Release::parse("1.67.0-alpha.4"), Some((Release::new(1, 67, 0), true)));
        assert_eq!(Release::parse("1.63.2+build.7"), Some((Release::new(1, 63, 2), false)));
        for bad in [
            "",
            "1",
            "1.2",
            "1.2.3.4",
            "v1.2.3",
            "1.02.3",
            "1.2.x",
            "1.2.3-",
            " 1.2.3",
            "1..3",
            "1.2.3+",
            "1.2.3+a..b",
            "1.2.3-a_b",
        ] {
            assert_eq!(Release::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_range_covers_1_59_up_to_1_72() {
        assert_eq!(supported_range(), ">=1.59.0 <1.72.0");
        for supported in ["1.59.0", "1.60.0", "1.63.2", "1.71.0", "1.71.9"] {
            assert!(behaviours(supported).is_ok(), "{supported}");
        }
        for unsupported in ["1.58.0", "1.72.0", "2.0.0", "0.24.9", "1.67.0-alpha.4", "1.71.0-rc.1", "latest"] {
            assert_eq!(behaviours(unsupported), Err(UnsupportedRelease { version: unsupported.into() }));
        }
    }

    #[test]
    fn each_rule_switches_at_its_release() {
        let at = |v: &str| behaviours(v).unwrap();
        assert_eq!(at("1.59.0").filter_stage, FilterStage::MessageList);
        assert_eq!(at("1.60.0").filter_stage, FilterStage::Prompt);
        assert!(!at("1.66.0").inject_catalog);
        assert!(at("1.67.0").inject_catalog);
        assert_eq!(at("1.67.0").preserved_results, PreservedResults::Every);
        assert_eq!(at("1.68.0").preserved_results, PreservedResults::WithOwnModelOutput);
    }

    #[test]
    fn the_error_names_the_range_and_the_release_found() {
        let message = behaviours("1.50.0").unwrap_err().to_string();
        assert!(message.contains(">=1.59.0 <1.72.0"), "{message}");
        assert!(message.contains("\"1.50.0\""), "{message}");
    }
}
