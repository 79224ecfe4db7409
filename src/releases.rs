//! Which Mastra releases this package stands in for, and what their
//! processors do differently.
//!
//! The package behaves like the processors of the `@mastra/core` it is
//! installed next to. At import the binding asks [`serve`] what to do beside
//! that release, and later [`behaviours`] which rules apply; every
//! release-dependent branch in the package is one of the named
//! [`Behaviours`], never a version comparison of its own.
//!
//! What changed in the two processors across the known releases (read from
//! each release's sources):
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
//!
//! Mastra publishes a release every few days, and most leave these
//! processors alone. So any 1.x from [`FIRST_SUPPORTED`] is accepted: a
//! release in the table of [`known`] releases runs natively with its rules;
//! another is recognised by the [`fingerprint`] of its processors' sources
//! when they are a known release's, and is otherwise served its own
//! processors (never an error: the app must keep working).

pub mod fingerprint;
pub mod known;

use std::fmt;
use std::path::Path;

use fingerprint::{Fingerprint, SourcesUnreadable};

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
/// Every later 1.x is accepted.
pub const FIRST_SUPPORTED: Release = Release::new(1, 59, 0);

/// The accepted releases as an npm range, as `peerDependencies` states it.
pub fn peer_range() -> String {
    format!("^{FIRST_SUPPORTED}")
}

/// The environment variable that, set to [`FORCE_HOST_PROCESSORS`], makes the
/// package serve the host's own processors whatever the release.
pub const FORCE_VARIABLE: &str = "MASTRA_NATIVE_PROCESSORS";
/// The value of [`FORCE_VARIABLE`] that serves the host's own processors.
pub const FORCE_HOST_PROCESSORS: &str = "fallback";

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
    /// The rules of a tested release.
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

/// A release whose processors this package does not know.
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownRelease {
    pub version: String,
}

impl fmt::Display for UnknownRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mastra-native-processors does not know the processors of @mastra/core {:?}", self.version)
    }
}

impl std::error::Error for UnknownRelease {}

/// The rules of a known release (one of [`known::KNOWN_RELEASES`]), by its version.
pub fn behaviours(version: &str) -> Result<Behaviours, UnknownRelease> {
    match Release::parse(version) {
        Some((release, false)) => known::find(release).map(|known| Behaviours::of(known.rules_of())),
        _ => None,
    }
    .ok_or_else(|| UnknownRelease { version: version.to_owned() })
}

/// A host this package refuses at import: older than [`FIRST_SUPPORTED`], or
/// not a version at all.
#[derive(Debug, PartialEq, Eq)]
pub struct UnsupportedHost {
    pub version: String,
}

impl fmt::Display for UnsupportedHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mastra-native-processors supports @mastra/core {}, but this project has @mastra/core {:?}. \
             Install a supported @mastra/core, or import ToolSearchProcessor and ToolCallFilter from \
             '@mastra/core/processors' instead.",
            peer_range(),
            self.version
        )
    }
}

impl std::error::Error for UnsupportedHost {}

/// What the package serves beside a host.
#[derive(Debug, PartialEq, Eq)]
pub enum Serve {
    /// Our processors, with the rules of this tested release.
    Native { rules_of: Release, recognised: Recognised },
    /// The host's own processors.
    HostProcessors(HostReason),
}

/// How a host was recognised as a known release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recognised {
    /// Its version is in the table: nothing is read.
    ByVersion,
    /// Its processors' sources are those of a tested release.
    BySources,
}

/// Why the host's own processors are served.
#[derive(Debug, PartialEq, Eq)]
pub enum HostReason {
    /// [`FORCE_VARIABLE`] asks for them.
    Forced,
    /// The host is a pre-release.
    PreRelease { version: String },
    /// The host's processors differ from every tested release's; the
    /// sources named differ from the newest tested release's.
    SourcesDiffer { version: String, newest_tested: Release, differing: Vec<&'static str> },
    /// The host's processors' sources could not be read to compare.
    SourcesUnreadable { version: String, why: SourcesUnreadable },
}

impl HostReason {
    /// What the user can do to run natively again, where a newer release of
    /// this package may help.
    pub fn remedy(&self) -> Option<&'static str> {
        match self {
            HostReason::Forced => None,
            _ => Some(
                "A newer mastra-native-processors may run them natively: npm install mastra-native-processors@latest",
            ),
        }
    }
}

const UNTESTED: &str = "was not tested with this version of mastra-native-processors";

impl fmt::Display for HostReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostReason::Forced => write!(f, "{FORCE_VARIABLE}={FORCE_HOST_PROCESSORS} is set"),
            HostReason::PreRelease { version } => {
                write!(f, "@mastra/core {version} is a pre-release, which {UNTESTED}")
            }
            HostReason::SourcesDiffer { version, newest_tested, differing } => write!(
                f,
                "@mastra/core {version} {UNTESTED}, and its processors differ from every tested release's \
                 ({} changed since {newest_tested})",
                differing.join(", ")
            ),
            HostReason::SourcesUnreadable { version, why } => {
                write!(f, "@mastra/core {version} {UNTESTED}, and its processors could not be compared: {why}")
            }
        }
    }
}

/// What a host whose version is known calls for, before anything is read:
/// `None` when its processors must be compared by their sources.
pub fn serve_by_version(version: &str) -> Result<Option<Serve>, UnsupportedHost> {
    let unsupported = || UnsupportedHost { version: version.to_owned() };
    let (release, pre_release) = Release::parse(version).ok_or_else(unsupported)?;
    if release < FIRST_SUPPORTED {
        return Err(unsupported());
    }
    if pre_release {
        return Ok(Some(Serve::HostProcessors(HostReason::PreRelease { version: version.to_owned() })));
    }
    Ok(known::find(release)
        .map(|known| Serve::Native { rules_of: known.rules_of(), recognised: Recognised::ByVersion }))
}

/// What to serve beside a host release whose version is not in the table,
/// from the fingerprint of its processors' sources (or why it has none).
pub fn serve_by_sources(version: &str, sources: Result<Fingerprint, SourcesUnreadable>) -> Serve {
    let version = version.to_owned();
    let fingerprint = match sources {
        Ok(fingerprint) => fingerprint,
        Err(why) => return Serve::HostProcessors(HostReason::SourcesUnreadable { version, why }),
    };
    match known::tested_with(&fingerprint) {
        Some(tested) => Serve::Native { rules_of: tested.release, recognised: Recognised::BySources },
        None => {
            let newest = known::newest_tested();
            let differing = fingerprint.differing(&newest.sources);
            Serve::HostProcessors(HostReason::SourcesDiffer { version, newest_tested: newest.release, differing })
        }
    }
}

/// What to serve beside the `@mastra/core` whose `package.json` is at this
/// path. `forced` is the value of [`FORCE_VARIABLE`], if set. The host's
/// sources are read only for a release the table does not know.
pub fn serve(package_json: &Path, forced: Option<&str>) -> Result<Serve, UnsupportedHost> {
    if forced == Some(FORCE_HOST_PROCESSORS) {
        return Ok(Serve::HostProcessors(HostReason::Forced));
    }
    let manifest = fingerprint::Manifest::read(package_json)
        .map_err(|_| UnsupportedHost { version: String::from("(unreadable package.json)") })?;
    if let Some(decided) = serve_by_version(&manifest.version)? {
        return Ok(decided);
    }
    Ok(serve_by_sources(&manifest.version, manifest.fingerprint()))
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
    fn the_peer_range_accepts_every_1_x_from_1_59() {
        assert_eq!(peer_range(), "^1.59.0");
    }

    #[test]
    fn known_releases_have_rules_others_do_not() {
        for known in ["1.59.0", "1.60.0", "1.63.2", "1.65.0", "1.67.0", "1.70.0", "1.71.0", "1.65.0+build.1"] {
            assert!(behaviours(known).is_ok(), "{known}");
        }
        for unknown in ["1.58.0", "1.62.0", "1.71.1", "1.72.0", "2.0.0", "1.67.0-alpha.4", "latest", ""] {
            assert_eq!(behaviours(unknown), Err(UnknownRelease { version: unknown.into() }));
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
    fn carried_releases_follow_the_rules_of_the_release_they_carry() {
        let rules_of = |v: &str| known::find(Release::parse(v).unwrap().0).unwrap().rules_of().to_string();
        assert_eq!(rules_of("1.65.0"), "1.60.0");
        assert_eq!(rules_of("1.69.0"), "1.71.0");
        assert_eq!(rules_of("1.67.0"), "1.67.0");
    }

    #[test]
    fn a_host_is_refused_only_below_the_first_supported_release_or_when_it_is_no_version() {
        for refused in ["1.58.0", "0.24.9", "1.58.9-rc.1", "latest", ""] {
            let error = serve_by_version(refused).unwrap_err();
            assert_eq!(error.version, refused);
            let message = error.to_string();
            assert!(message.contains("supports @mastra/core ^1.59.0"), "{message}");
            assert!(message.contains(&format!("{refused:?}")), "{message}");
        }
    }

    #[test]
    fn a_known_version_is_served_natively_without_reading_anything() {
        assert_eq!(
            serve_by_version("1.64.0"),
            Ok(Some(Serve::Native { rules_of: Release::new(1, 60, 0), recognised: Recognised::ByVersion }))
        );
        assert_eq!(
            serve_by_version("1.71.0"),
            Ok(Some(Serve::Native { rules_of: Release::new(1, 71, 0), recognised: Recognised::ByVersion }))
        );
    }

    #[test]
    fn a_pre_release_gets_its_own_processors_and_an_unknown_release_is_compared() {
        assert_eq!(
            serve_by_version("1.72.0-alpha.1"),
            Ok(Some(Serve::HostProcessors(HostReason::PreRelease { version: "1.72.0-alpha.1".into() })))
        );
        for unknown in ["1.72.0", "1.62.3", "2.0.0"] {
            assert_eq!(serve_by_version(unknown), Ok(None), "{unknown}");
        }
    }

    #[test]
    fn an_unknown_release_with_a_tested_release_s_sources_runs_natively_with_its_rules() {
        let newest = known::newest_tested();
        let same = Fingerprint::from_digests(newest.sources);
        assert_eq!(
            serve_by_sources("1.72.0", Ok(same)),
            Serve::Native { rules_of: newest.release, recognised: Recognised::BySources }
        );
    }

    #[test]
    fn an_unknown_release_with_other_sources_gets_its_own_processors_naming_what_changed() {
        let mut digests = known::newest_tested().sources;
        digests[2] = "0000000000000000000000000000000000000000000000000000000000000000";
        let served = serve_by_sources("1.72.0", Ok(Fingerprint::from_digests(digests)));
        let Serve::HostProcessors(reason) = served else { panic!("{served:?}") };
        assert!(reason.remedy().is_some());
        assert_eq!(
            reason.to_string(),
            "@mastra/core 1.72.0 was not tested with this version of mastra-native-processors, and its processors \
             differ from every tested release's (src/processors/processors/tool-call-filter.ts changed since 1.71.0)"
        );
    }

    #[test]
    fn unreadable_sources_get_the_host_s_own_processors_saying_why() {
        let why = SourcesUnreadable::NoSourceMap("dist/agent-X.js.map".into());
        let Serve::HostProcessors(reason) = serve_by_sources("1.72.0", Err(why)) else { panic!() };
        assert_eq!(
            reason.to_string(),
            "@mastra/core 1.72.0 was not tested with this version of mastra-native-processors, and its processors \
             could not be compared: it has no source map dist/agent-X.js.map"
        );
    }

    #[test]
    fn the_variable_forces_the_host_s_own_processors_whatever_the_host() {
        let nowhere = Path::new("/nonexistent/package.json");
        assert_eq!(serve(nowhere, Some("fallback")), Ok(Serve::HostProcessors(HostReason::Forced)));
        assert_eq!(HostReason::Forced.to_string(), "MASTRA_NATIVE_PROCESSORS=fallback is set");
        assert_eq!(HostReason::Forced.remedy(), None);
        assert!(serve(nowhere, Some("native")).is_err(), "another value is not the escape hatch");
    }
}
