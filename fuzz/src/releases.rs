//! Target `releases`: `releases::behaviours` and `Release::parse` on version
//! strings, mostly assembled from the pieces npm versions are made of
//! (numbers with and without leading zeros or past `u64`, dots, pre-release
//! tags, build metadata), the rest arbitrary text.
//!
//! A version is accepted exactly when it parses as a release in the
//! supported range without a pre-release tag; parsing is stable under
//! printing and ignores build metadata; refusals name the version and the
//! range.

use mastra_native_processors::releases::{behaviours, supported_range, Release, FIRST_SUPPORTED, FIRST_UNSUPPORTED};

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
    let supported = matches!(parsed, Some((release, false)) if (FIRST_SUPPORTED..FIRST_UNSUPPORTED).contains(&release));
    match behaviours(&text) {
        Ok(rules) => {
            assert!(supported, "{text:?} accepted as {parsed:?}");
            let (release, _) = parsed.unwrap();
            assert_eq!(behaviours(&release.to_string()), Ok(rules), "{text:?} and {release} have other rules");
        }
        Err(error) => {
            assert!(!supported, "{text:?} refused though it parses as {parsed:?}");
            assert_eq!(error.version, text);
            assert!(error.to_string().contains(&supported_range()), "the error names the range");
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
