//! Target `releases`: `releases::behaviours`, `releases::serve_by_version`
//! and `Release::parse` on version strings, mostly assembled from the pieces
//! npm versions are made of (numbers with and without leading zeros or past
//! `u64`, dots, pre-release tags, build metadata), the rest arbitrary text.
//!
//! A version has rules exactly when it parses as a release of the table
//! without a pre-release tag; a host is refused exactly when its version does
//! not parse or is older than the first supported release, and otherwise is
//! run natively (a known release), served its own processors (a pre-release)
//! or left to its sources' fingerprint; parsing is stable under printing and
//! ignores build metadata; refusals name the version and the range.

use mastra_native_processors::releases::{
    behaviours, known, peer_range, serve_by_version, HostReason, Recognised, Release, Serve, FIRST_SUPPORTED,
};

use crate::gen::{int, one_in, pick, size, U};

const PIECES: &[&str] = &[
    "0",
    "1",
    "59",
    "60",
    "67",
    "68",
    "71",
    "72",
    "01",
    "00",
    "18446744073709551615",
    "18446744073709551616",
    ".",
    ".",
    ".",
    "-",
    "+",
    "alpha.4",
    "rc",
    "build.7",
    "v",
    " ",
    "x",
    "*",
    "é",
    "١",
    "\u{0}",
];

fn version(u: &mut U<'_>) -> String {
    if one_in(u, 4) {
        return u.arbitrary::<&str>().unwrap_or_default().to_owned();
    }
    if one_in(u, 2) {
        // Shaped like a release.
        let mut version = format!("{}.{}.{}", int(u, 0, 2), int(u, 55, 75), int(u, 0, 12));
        if one_in(u, 4) {
            version.push('-');
            version.push_str(pick(u, PIECES));
        }
        if one_in(u, 4) {
            version.push('+');
            version.push_str(pick(u, PIECES));
        }
        return version;
    }
    (0..size(u, 0, 12)).map(|_| pick(u, PIECES)).collect()
}

pub fn run(data: &[u8]) {
    let mut u = U::new(data);
    let text = version(&mut u);
    let parsed = Release::parse(&text);
    let known = parsed.and_then(|(release, pre_release)| if pre_release { None } else { known::find(release) });
    match behaviours(&text) {
        Ok(rules) => {
            assert!(known.is_some(), "{text:?} has rules though it parses as {parsed:?}");
            let (release, _) = parsed.unwrap();
            assert_eq!(behaviours(&release.to_string()), Ok(rules), "{text:?} and {release} have other rules");
        }
        Err(error) => {
            assert!(known.is_none(), "{text:?} has no rules though the table knows it");
            assert_eq!(error.version, text);
        }
    }
    match (serve_by_version(&text), parsed) {
        (Err(refusal), _) => {
            assert!(parsed.is_none_or(|(release, _)| release < FIRST_SUPPORTED), "{text:?} refused as {parsed:?}");
            assert_eq!(refusal.version, text);
            assert!(refusal.to_string().contains(&peer_range()), "the refusal names the range");
        }
        (Ok(_), None) => panic!("{text:?} accepted though it is no version"),
        (Ok(served), Some((release, pre_release))) => {
            assert!(release >= FIRST_SUPPORTED, "{text:?} accepted below the first supported release");
            match served {
                Some(Serve::HostProcessors(HostReason::PreRelease { version })) => {
                    assert!(pre_release);
                    assert_eq!(version, text);
                }
                Some(Serve::Native { rules_of, recognised: Recognised::ByVersion }) => {
                    assert!(!pre_release);
                    assert_eq!(known.map(|known| known.rules_of()), Some(rules_of), "{text:?}");
                }
                None => assert!(!pre_release && known.is_none(), "{text:?} left to its sources though known"),
                other => panic!("{text:?} served {other:?} by its version"),
            }
        }
    }
    if let Some((release, pre_release)) = parsed {
        assert_eq!(Release::parse(&release.to_string()), Some((release, false)), "{release} prints as it parses");
        let (core, _) = text.split_once('+').unwrap_or((&text, ""));
        assert!(core.starts_with(&release.to_string()), "{text:?} parsed as {release}");
        assert_eq!(pre_release, core.len() > release.to_string().len(), "{text:?}: pre-release {pre_release}");
        assert_eq!(Release::parse(&format!("{core}+meta.1")), parsed, "build metadata is ignored");
    }
}
