//! Small generators over [`Unstructured`]. Every one of them gives a
//! default (the low end of its range, `false`, `0`) once the input runs out,
//! so generation always ends and an empty input is a valid, tiny case.

use arbitrary::Unstructured;

pub type U<'a> = Unstructured<'a>;

/// An integer in `lo..=hi`.
pub fn int(u: &mut U<'_>, lo: i32, hi: i32) -> i32 {
    u.int_in_range(lo..=hi).unwrap_or(lo)
}

/// A length or count in `lo..=hi`.
pub fn size(u: &mut U<'_>, lo: usize, hi: usize) -> usize {
    u.int_in_range(lo..=hi).unwrap_or(lo)
}

/// True about once in `n` draws.
pub fn one_in(u: &mut U<'_>, n: u8) -> bool {
    u.ratio(1, n).unwrap_or(false)
}

pub fn flag(u: &mut U<'_>) -> bool {
    u.arbitrary().unwrap_or(false)
}

/// Picks one of `items` (the first once the input runs out).
pub fn pick<T: Copy>(u: &mut U<'_>, items: &[T]) -> T {
    *u.choose(items).unwrap_or(&items[0])
}

/// One value of a raw tape: mostly the small numbers every grammar uses
/// as codes, counts and ids, sometimes anything at all.
pub fn tape_value(u: &mut U<'_>) -> i32 {
    match int(u, 0, 9) {
        0 => u.arbitrary().unwrap_or(0),
        1 => int(u, -8, 64),
        _ => int(u, -4, 6),
    }
}

/// A raw tape of at most `max` values.
pub fn raw_tape(u: &mut U<'_>, max: usize) -> Vec<i32> {
    let len = size(u, 0, max);
    (0..len).map(|_| tape_value(u)).collect()
}

/// A JavaScript number as an option might hold it: the edge cases first.
pub fn js_number(u: &mut U<'_>) -> f64 {
    const SPECIAL: [f64; 16] = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        0.5,
        1.0,
        1.5,
        2.0,
        3.0,
        5.0,
        -1.0,
        -2.5,
        1e300,
        -1e300,
        f64::MIN_POSITIVE,
    ];
    match int(u, 0, 3) {
        0 => f64::from_bits(u.arbitrary().unwrap_or(0)),
        1 => f64::from(int(u, -3, 12)),
        _ => pick(u, &SPECIAL),
    }
}

/// The strings a tape refers to by index, as the binding collects them:
/// only whether each is empty matters here.
#[derive(Debug, Default)]
pub struct Strings {
    non_empty: Vec<bool>,
}

impl Strings {
    /// Adds a string and returns its index.
    pub fn push(&mut self, non_empty: bool) -> i32 {
        self.non_empty.push(non_empty);
        (self.non_empty.len() - 1) as i32
    }

    /// Every index refers to a string of the table, and none is empty.
    pub fn check_used(&self, used: &[i32]) {
        for &index in used {
            let ok = usize::try_from(index).ok().and_then(|i| self.non_empty.get(i)).copied();
            assert_eq!(ok, Some(true), "string {index} is out of range or empty ({} strings)", self.non_empty.len());
        }
    }
}

/// Reads an answer (a plan) value by value, failing loudly when it ends early.
pub struct Cursor<'a> {
    data: &'a [i32],
    pub at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [i32]) -> Self {
        Cursor { data, at: 0 }
    }

    pub fn read(&mut self) -> i32 {
        let value = *self.data.get(self.at).unwrap_or_else(|| panic!("the answer ends early at {}", self.at));
        self.at += 1;
        value
    }

    /// `count` values; the count must be non-negative and fit.
    pub fn take(&mut self, count: i32) -> &'a [i32] {
        let count = usize::try_from(count).unwrap_or_else(|_| panic!("negative count {count} at {}", self.at));
        let end = self.at.checked_add(count).filter(|&end| end <= self.data.len());
        let end = end.unwrap_or_else(|| panic!("a count of {count} at {} runs past the answer", self.at));
        let values = &self.data[self.at..end];
        self.at = end;
        values
    }

    pub fn finish(&self) {
        assert_eq!(self.at, self.data.len(), "the answer has {} values left over", self.data.len() - self.at);
    }
}
