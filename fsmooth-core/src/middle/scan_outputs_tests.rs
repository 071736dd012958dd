//! Tests of [`super::scan_outputs`], through the middle's result and the code kernels expand to.

use crate::middle::fuse::tests::{count, optimized};
use crate::middle::interchange::tests::code;
use crate::middle::ir::Kind;

/// How many scans the middle leaves in `src`'s kernel.
fn scans(src: &str) -> usize {
    count(&optimized(src).body, &|k| matches!(k, Kind::Scan(..)))
}

/// How many `build`s the middle leaves in `src`'s kernel.
fn builds(src: &str) -> usize {
    count(&optimized(src).body, &|k| matches!(k, Kind::Build(..)))
}

#[test]
fn a_build_of_a_tuple_scan_at_its_own_index_is_the_scan_output() {
    let src = "pub fn k(x: [f64; n]) -> [f64; n] {
        let (s, c) = scan(n, (0.0, 0.0), |(s, c), i| (s + x[i], c + 1.0));
        build(n, |i| s[i] / c[i])
    }";
    assert_eq!(scans(src), 1);
    assert_eq!(builds(src), 0);
    // The scan of the output written out is the same code.
    let direct = "pub fn k(x: [f64; n]) -> [f64; n] {
        scan(n, (0.0, 0.0, 0.0), |(s, c, _), i| {
            let (s2, c2) = (s + x[i], c + 1.0);
            (s2, c2, s2 / c2)
        }).2
    }";
    assert_eq!(code(src), code(direct));
}

#[test]
fn reads_elsewhere_keep_the_scan_as_written() {
    // At another index.
    let shifted = "pub fn k(x: [f64; n]) -> [f64; n] {
        let s = scan(n, 0.0, |s, i| s + x[i]);
        build(n, |i| s[n - 1 - i])
    }";
    assert_eq!(builds(shifted), 1);
    // Read by two loops: the scan would run twice.
    let twice = "pub fn k(x: [f64; n]) -> ([f64; n], f64) {
        let s = scan(n, 0.0, |s, i| s + x[i]);
        (build(n, |i| s[i] * 2.0), sum(s))
    }";
    assert_eq!(scans(twice), 1);
    // Inside another loop: the scan would run at each of its steps.
    let inside = "pub fn k(x: [f64; n], m: usize) -> [[f64; n]; m] {
        let s = scan(n, 0.0, |s, i| s + x[i]);
        build(m, |r| build(n, |i| s[i] + (r as f64)))
    }";
    assert_eq!(scans(inside), 1);
    assert_eq!(builds(inside), 2);
}
