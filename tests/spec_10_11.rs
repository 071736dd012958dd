//! LANGUAGE.md sections 10 and 11 as a user reads them: each test writes what a bullet of
//! the contract says and checks what it promises (signatures, results, errors).

use fsmooth::{Error, Region, fsmooth};

mod k {
    use super::fsmooth;

    fsmooth! {
        /// Literals take the type their context needs; `2.0f32` is accepted.
        pub fn scale(x: [f32; n], s: f32) -> [f32; n] {
            build(n, |i| x[i] * 2.0 + s * 0.5f32 - 1.0)
        }

        /// A helper generic in its element type, used at f32 and at f64.
        fn plus(a: [T; n], b: [T; n]) -> [T; n] {
            build(n, |i| a[i] + b[i])
        }

        pub fn plus32(a: [f32; n], b: [f32; n]) -> [f32; n] {
            plus(a, b)
        }

        pub fn plus64(a: [f64; n], b: [f64; n]) -> [f64; n] {
            plus(a, b)
        }

        /// The prelude on f32: an accumulator started at a literal is f32.
        pub fn energy(x: [f32; n]) -> f32 {
            ifold(n, 0.0, |acc, i| acc + x[i] * x[i]) + sqnorm(x) - dot(x, x)
        }

        /// Clamped neighbours with usize `min`, `max` and `clamp`.
        pub fn clamped(a: [f64; n]) -> [f64; n] {
            build(n, |i| a[(i + 1).min(n - 1)] - a[i.max(1) - 1] + a[(i + 2).clamp(0, n - 1)])
        }

        /// Several results of different element types (`out0: &mut [f32]`,
        /// `out1: &mut [usize]`) and a returned scalar.
        pub fn split_parts(x: [f32; n]) -> ([f32; n], [usize; n], f32) {
            (map(x, |v| v.abs()), map(x, |v| v.abs() as usize), vmax(x))
        }

        /// `x as usize` follows Rust: truncation, saturation, NaN is 0.
        pub fn to_index(x: [f64; n]) -> [usize; n] {
            map(x, |v| v as usize)
        }

        /// A class label and a step count are plain values: no shape depends on them, so
        /// `mod` functions do not take them (section 10).
        pub fn xent(logits: [f64; c], label: usize) -> f64 {
            logsumexp(logits) - logits[label]
        }

        pub fn iterate(a0: [f64; n], steps: usize) -> [f64; n] {
            ifold(steps, a0, |a, _t| build(n, |i| 0.5 * a[i] + 0.25))
        }

        /// A gather through a column of an observation table.
        pub fn gather(cams: [[f64; 3]; nc], obs: [[usize; 2]; p]) -> [f64; p] {
            build(p, |j| cams[obs[j][0]][obs[j][1] % 3])
        }
    }
}

#[test]
fn literals_take_the_type_their_context_needs() {
    let x = [1.5f32, -2.25, 3.0];
    let mut out = [0f32; 3];
    k::scale(&mut out, &x, 0.1, &mut Region::new()).unwrap();
    for (o, v) in out.iter().zip(x) {
        assert_eq!(*o, v * 2.0 + 0.1f32 * 0.5 - 1.0);
    }
}

#[test]
fn a_generic_helper_serves_f32_and_f64() {
    let mut o32 = [0f32; 2];
    k::plus32(&mut o32, &[1.0, 2.0], &[0.5, 0.25], &mut Region::new()).unwrap();
    assert_eq!(o32, [1.5, 2.25]);
    let mut o64 = [0f64; 2];
    k::plus64(&mut o64, &[1.0, 2.0], &[0.5, 0.25], &mut Region::new()).unwrap();
    assert_eq!(o64, [1.5, 2.25]);
}

#[test]
fn the_prelude_works_on_f32() {
    let x = [0.5f32, 1.5, -2.0];
    let e = k::energy(&x, &mut Region::new()).unwrap();
    let want = x.iter().fold(0f32, |a, v| a + v * v);
    assert!(
        (e - want).abs() <= 4.0 * f32::EPSILON * want,
        "{e} vs {want}"
    );
}

#[test]
fn usize_min_max_and_clamp_keep_indexes_in_range() {
    let a = [1.0, 2.0, 4.0, 8.0];
    let mut out = [0.0; 4];
    k::clamped(&mut out, &a, &mut Region::new()).unwrap();
    let n = a.len();
    for (i, o) in out.iter().enumerate() {
        let want = a[(i + 1).min(n - 1)] - a[i.max(1) - 1] + a[(i + 2).clamp(0, n - 1)];
        assert_eq!(*o, want);
    }
    // n = 0: the loop never runs, so its `n - 1` is never evaluated.
    let mut none: [f64; 0] = [];
    assert_eq!(k::clamped(&mut none, &[0.0; 0], &mut Region::new()), Ok(()));
}

#[test]
fn several_results_keep_their_element_types() {
    let x = [1.75f32, -3.5, 0.25];
    let (mut mags, mut idx) = ([0f32; 3], [9usize; 3]);
    let top = k::split_parts(&mut mags, &mut idx, &x, &mut Region::new()).unwrap();
    assert_eq!(mags, [1.75, 3.5, 0.25]);
    assert_eq!(idx, [1, 3, 0]);
    assert_eq!(top, 1.75);
    assert_eq!(k::split_parts::out0_len(3), 3);
    assert_eq!(k::split_parts::out1_len(3), 3);
}

#[test]
fn float_to_usize_casts_follow_rust() {
    let x = [2.9, -1.5, f64::NAN, 1e300, f64::INFINITY];
    let mut out = [7usize; 5];
    k::to_index(&mut out, &x, &mut Region::new()).unwrap();
    assert_eq!(out, [2, 0, 0, usize::MAX, usize::MAX]);
}

#[test]
fn a_bad_index_in_an_index_array_is_an_entry_error_and_nothing_is_written() {
    let cams = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let obs = [0usize, 1, 1, 2, 0, 5];
    let mut out = [0.0; 3];
    k::gather(&mut out, &cams, &obs, &mut Region::new()).unwrap();
    assert_eq!(out, [2.0, 6.0, 3.0]);
    let bad = [0usize, 1, 2, 2, 0, 5];
    let mut untouched = [-1.0; 3];
    assert_eq!(
        k::gather(&mut untouched, &cams, &bad, &mut Region::new()),
        Err(Error::Index { index: 2, len: 2 })
    );
    assert_eq!(untouched, [-1.0; 3]);
}

#[test]
fn one_f64_slab_serves_kernels_of_every_element_type() {
    // scratch_len counts 8-byte slots whatever the element types.
    let mut slab = [0.0f64; 64];
    let mut region = Region::from_slab(&mut slab);
    let mut o32 = [0f32; 3];
    k::scale(&mut o32, &[1.0, 2.0, 3.0], 1.0, &mut region).unwrap();
    let mut g = [0.0; 2];
    k::gather(&mut g, &[0.0, 1.0, 2.0], &[0, 1, 0, 2], &mut region).unwrap();
    assert_eq!(g, [1.0, 2.0]);
    let mut o = [0usize; 2];
    k::to_index(&mut o, &[1.0, 2.0], &mut region).unwrap();
    assert_eq!(o, [1, 2]);
}

#[test]
fn usize_parameters_no_shape_depends_on_are_plain_values() {
    // `xent::scratch_len(c)`, not `scratch_len(c, label)`; `iterate`'s state is updated in
    // place in the output (no scratch), not `scratch_len(n, steps)`.
    assert_eq!(k::xent::scratch_len(4), 0);
    assert_eq!(k::iterate::scratch_len(5), 0);
    assert_eq!(k::iterate::out_len(5), 5);
    let l = [0.5, 1.5, -1.0];
    let got = k::xent(&l, 1, &mut Region::new()).unwrap();
    let lse = l.iter().map(|v: &f64| v.exp()).sum::<f64>().ln();
    assert!((got - (lse - 1.5)).abs() < 1e-12);
    assert_eq!(
        k::xent(&l, 3, &mut Region::new()),
        Err(Error::Index { index: 3, len: 3 })
    );
    let mut out = [0.0; 2];
    k::iterate(&mut out, &[1.0, 3.0], 2, &mut Region::new()).unwrap();
    assert_eq!(out, [0.625, 1.125]);
}
