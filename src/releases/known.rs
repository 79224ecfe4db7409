//! The releases whose processors this package knows, oldest first.
//!
//! A *tested* release is installed beside ours in `npm test` and compared
//! with it case by case (differential and real-agent suites). A release that
//! is not tested but carries a tested release's processors unchanged (the
//! same [`Digests`] of every processor source, as `npm run check-release`
//! reports it) follows that release's rules. Adding such a release is one
//! line below: its version and the digests it shares.
//!
//! A release missing from the table is not refused: its sources are
//! fingerprinted at import (see [`super::fingerprint`]) and compared with the
//! tested releases' digests here.

use super::fingerprint::{Digests, Fingerprint};
use super::Release;

/// A release whose processors are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownRelease {
    pub release: Release,
    /// SHA-256 of each of [`super::fingerprint::PROCESSOR_SOURCES`], as
    /// `sourcesContent` of the release's source maps holds it.
    pub sources: Digests,
    /// Whether `npm test` compares ours with this release's own processors.
    pub tested: bool,
}

const fn tested(major: u64, minor: u64, patch: u64, sources: Digests) -> KnownRelease {
    KnownRelease { release: Release::new(major, minor, patch), sources, tested: true }
}

const fn carries(major: u64, minor: u64, patch: u64, sources: Digests) -> KnownRelease {
    KnownRelease { release: Release::new(major, minor, patch), sources, tested: false }
}

/// The processors of 1.59.0: the message-list `ToolCallFilter`.
const SOURCES_1_59: Digests = [
    "1617fec68667db09712f8f58f065df4f592e5c946b352c15608d970f725e9882",
    "c2c7570100ec895a08be27f11b2ceea6feed940de6e2852cc45e916692b3b563",
    "009fd2a083c42d9674d8aa8bd3214fbec631aafdd29bbe37698011a9a51d6ce1",
    BM25,
];

/// The processors of 1.60.0: the prompt `ToolCallFilter`, the store fixes.
const SOURCES_1_60: Digests = [
    "4ba4442d04ea17952322bab378ea123e2330c7afad33229e01e6f0402d74156b",
    STORES_SINCE_1_60,
    "188f3412311ae5d5c9c9c4bf39b8d384838fdde2619b0143c5ec0823063961ac",
    BM25,
];

/// The processors of 1.67.0: `injectCatalog`.
const SOURCES_1_67: Digests = [
    TOOL_SEARCH_SINCE_1_67,
    STORES_SINCE_1_60,
    "188f3412311ae5d5c9c9c4bf39b8d384838fdde2619b0143c5ec0823063961ac",
    BM25,
];

/// The processors of 1.71.0 (and 1.68.0): `preserveModelOutput` keeps only
/// results with their own model output.
const SOURCES_1_71: Digests = [
    TOOL_SEARCH_SINCE_1_67,
    STORES_SINCE_1_60,
    "62b6eb7a6ccb1350c4c7328b904161b5d45206f8a3bff0e1b80885e4a6552866",
    BM25,
];

const TOOL_SEARCH_SINCE_1_67: &str = "b475da0f34d57fbe1fbc6a8d3be8285c72361f6741bb2ad03d395d0dcaef8d9a";
const STORES_SINCE_1_60: &str = "d1fb501025741636ecd6bc630b439f5e2e176d73bed2ad366b831f1b325fb559";
/// `src/workspace/search/bm25.ts` has not changed since 1.59.0.
const BM25: &str = "3a09f735ab94a55ecb66099e041b52954b17b6c524611758926037d582dd1e2d";

/// Every known release, oldest first. 1.62.0 was never published.
pub const KNOWN_RELEASES: &[KnownRelease] = &[
    tested(1, 59, 0, SOURCES_1_59),
    tested(1, 60, 0, SOURCES_1_60),
    carries(1, 61, 0, SOURCES_1_60),
    carries(1, 63, 1, SOURCES_1_60),
    carries(1, 63, 2, SOURCES_1_60),
    carries(1, 64, 0, SOURCES_1_60),
    carries(1, 65, 0, SOURCES_1_60),
    carries(1, 66, 0, SOURCES_1_60),
    tested(1, 67, 0, SOURCES_1_67),
    carries(1, 68, 0, SOURCES_1_71),
    carries(1, 69, 0, SOURCES_1_71),
    carries(1, 70, 0, SOURCES_1_71),
    tested(1, 71, 0, SOURCES_1_71),
];

/// The known release with this number.
pub fn find(release: Release) -> Option<&'static KnownRelease> {
    KNOWN_RELEASES.iter().find(|known| known.release == release)
}

/// The tested releases, oldest first.
pub fn tested_releases() -> impl Iterator<Item = &'static KnownRelease> {
    KNOWN_RELEASES.iter().filter(|known| known.tested)
}

/// The newest tested release.
pub fn newest_tested() -> &'static KnownRelease {
    tested_releases().last().expect("the table has a tested release")
}

/// The tested release whose processors' sources have these digests.
pub fn tested_with_sources(sources: Digests) -> Option<&'static KnownRelease> {
    tested_releases().find(|tested| tested.sources == sources)
}

/// The tested release whose processors have this fingerprint.
pub fn tested_with(fingerprint: &Fingerprint) -> Option<&'static KnownRelease> {
    tested_releases().find(|tested| fingerprint.differing(&tested.sources).is_empty())
}

impl KnownRelease {
    /// The tested release whose rules this one follows (itself when tested).
    pub fn rules_of(&self) -> Release {
        tested_with_sources(self.sources).map_or(self.release, |tested| tested.release)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_release_order_without_repeats() {
        assert!(KNOWN_RELEASES.windows(2).all(|pair| pair[0].release < pair[1].release));
    }

    #[test]
    fn every_carried_release_carries_a_tested_release_s_sources() {
        for known in KNOWN_RELEASES.iter().filter(|known| !known.tested) {
            assert!(
                tested_with_sources(known.sources).is_some(),
                "{} carries no tested release's sources",
                known.release
            );
        }
    }

    #[test]
    fn tested_releases_differ_from_one_another() {
        let tested: Vec<_> = tested_releases().collect();
        for (i, a) in tested.iter().enumerate() {
            for b in &tested[i + 1..] {
                assert_ne!(a.sources, b.sources, "{} and {}", a.release, b.release);
            }
        }
    }

    #[test]
    fn digests_are_lowercase_sha256_hex() {
        for known in KNOWN_RELEASES {
            for digest in known.sources {
                assert_eq!(digest.len(), 64, "{}", known.release);
                assert!(digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{}", known.release);
            }
        }
    }
}
