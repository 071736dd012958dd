//! Issue 19's shared code through the real macros: a block's functions resolve names in
//! their own block (an importing block's function of the same name, or its shadowing of a
//! prelude function, changes nothing inside the imported one), checked against the
//! reference interpreter linking the same two sources.

mod common;

use common::*;
use fsmooth::Region;
use fsmooth_eval::interp::{Interp, Value};

macro_rules! two_blocks {
    ([$($geo:tt)*] [$($user:tt)*]) => {
        fsmooth::fsmooth! { $($geo)* }
        fsmooth::fsmooth! { $($user)* }
        const GEO: &str = stringify!($($geo)*);
        const USER: &str = stringify!($($user)*);
    };
}

two_blocks! {
    [
        pub mod geo;
        fn sq(x: f64) -> f64 { x * x }
        pub fn norm2(v: [f64; n]) -> f64 { ifold(n, 0.0, |a, i| a + sq(v[i])) }
        pub fn dot2(a: [f64; n]) -> f64 { dot(a, a) }
    ]
    [
        use crate::geo::{norm2, dot2 as d2};
        fn sq(x: f64) -> f64 { 10.0 * x }
        fn dot(a: [f64; n], b: [f64; n]) -> f64 { 0.0 * sum(a) * sum(b) }
        pub fn k(v: [f64; 2]) -> f64 { norm2(v) + sq(1.0) }
        pub fn j(v: [f64; 2]) -> f64 { d2(v) + dot(v, v) }
        pub fn m(v: [f64; 2]) -> f64 { sum(map(v, |x| sq(x))) }
    ]
}

#[test]
fn names_resolve_in_the_block_a_function_is_written_in() {
    let reference = Interp::linked(USER, &[("crate::geo", GEO)]).unwrap();
    let r = &mut Region::new();
    let mut rng = Rng::new(19);
    for _ in 0..20 {
        let v = [rng.f64(), rng.f64()];
        let args = [Value::vec(&v)];
        let want = |name: &str| reference.call(name, &args).unwrap().flatten()[0];
        assert_eq!(k(&v, r), Ok(want("k")));
        assert_eq!(j(&v, r), Ok(want("j")));
        assert_eq!(m(&v, r), Ok(want("m")));
        assert_eq!(k(&v, r), Ok(v[0] * v[0] + v[1] * v[1] + 10.0));
        assert_eq!(j(&v, r), Ok(v[0] * v[0] + v[1] * v[1]));
        // The kernels of the imported block are its module's Rust functions.
        assert_eq!(geo::norm2(&v, r), Ok(v[0] * v[0] + v[1] * v[1]));
    }
}

mod shadowing {
    fsmooth::fsmooth! {
        fn sum(v: [f64; n]) -> f64 { 42.0 + 0.0 * v[0] }
        pub fn mine(v: [f64; 2]) -> f64 { sum(v) }
        pub fn preludes(a: [f64; 2], b: [f64; 2]) -> f64 { dot(a, b) }
    }
}

/// A block's function shadows the prelude's in the block only: the prelude's `dot` (a
/// `sum` of products) keeps the prelude's `sum`.
#[test]
fn a_block_shadows_a_prelude_function_in_the_block_only() {
    let r = &mut Region::new();
    assert_eq!(shadowing::mine(&[1.0, 2.0], r), Ok(42.0));
    assert_eq!(shadowing::preludes(&[1.0, 2.0], &[3.0, 4.0], r), Ok(11.0));
}
