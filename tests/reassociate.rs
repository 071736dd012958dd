//! `#![fsmooth(reassociate = true)]` as docs/language.md describes it: a float sum whose
//! step holds no loop adds its terms in 8 lanes (step k of the first n - n % 8 to lane
//! k % 8, the rest to lane 0, which starts from the sum's first value; the others from
//! -0.0), the lanes added halves first; a lane adding a product does so in one fused
//! multiply-add where the target has FMA. The kernels below are checked bit for bit
//! against that order written out here.

mod lanes {
    fsmooth::fsmooth! {
        #![fsmooth(reassociate = true)]

        pub fn dot(a: [f64; n], b: [f64; n]) -> f64 {
            ifold(n, 0.5, |acc, i| acc + a[i] * b[i])
        }

        pub fn total(a: [f32; n]) -> f32 {
            sum(a)
        }

        pub fn rows(w: [[f64; m]; n], x: [f64; m]) -> [f64; n] {
            matvec(w, x)
        }
    }
}

/// The same sum with the other options: no fusion (the products stored first), heap storage.
mod lanes_unfused {
    fsmooth::fsmooth! {
        #![fsmooth(reassociate = true, fusion = false, storage = "heap")]

        pub fn dot(a: [f64; n], b: [f64; n]) -> f64 {
            ifold(n, 0.5, |acc, i| acc + a[i] * b[i])
        }

        pub fn total(a: [f64; n], b: [f64; n]) -> f64 {
            sum(emul(a, b))
        }
    }
}

mod in_order {
    fsmooth::fsmooth! {
        pub fn dot(a: [f64; n], b: [f64; n]) -> f64 {
            ifold(n, 0.5, |acc, i| acc + a[i] * b[i])
        }
    }
}

use fsmooth::{Error, Region};

/// The documented order: `add(lane, k)` adds step k's term to a lane.
fn in_lanes<T: Copy + std::ops::Add<Output = T>>(
    n: usize,
    first: T,
    zero: T,
    add: impl Fn(T, usize) -> T,
) -> T {
    let mut lanes = [zero; 8];
    lanes[0] = first;
    let whole = n - n % 8;
    for k in 0..n {
        let l = if k < whole { k % 8 } else { 0 };
        lanes[l] = add(lanes[l], k);
    }
    let halves = |l: &[T]| (l[0] + l[1]) + (l[2] + l[3]);
    halves(&lanes[..4]) + halves(&lanes[4..])
}

/// A lane adding `x * y`, as `__rt::fused` does on this target.
fn madd(lane: f64, x: f64, y: f64) -> f64 {
    if cfg!(target_feature = "fma") {
        x.mul_add(y, lane)
    } else {
        lane + x * y
    }
}

fn data(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i as u64 * 2654435761 + seed) % 1000) as f64 - 500.0) / 37.0)
        .collect()
}

#[test]
fn a_dot_product_adds_in_the_documented_lanes() {
    let mut region = Region::new();
    let mut differs = 0;
    for n in 0..41 {
        let (a, b) = (data(n, 1), data(n, 2));
        let got = lanes::dot(&a, &b, &mut region).unwrap();
        let want = in_lanes(n, 0.5, -0.0, |l, k| madd(l, a[k], b[k]));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "n = {n}: {got} against {want}"
        );
        let ordered = in_order::dot(&a, &b, &mut region).unwrap();
        differs += usize::from(got != ordered);
        assert!(
            (got - ordered).abs() <= 1e-9 * ordered.abs().max(1.0),
            "n = {n}"
        );
    }
    // Another order of additions: some results round differently from the loop in order.
    assert!(differs > 0);
}

#[test]
fn the_lanes_are_the_same_with_the_other_options() {
    let mut region = Region::new();
    for n in [0, 3, 8, 13, 40] {
        let (a, b) = (data(n, 5), data(n, 6));
        let want = in_lanes(n, 0.5, -0.0, |l, k| madd(l, a[k], b[k]));
        let got = lanes_unfused::dot(&a, &b, &mut region).unwrap();
        assert_eq!(got.to_bits(), want.to_bits(), "n = {n}");
        // Unfused, the products are stored first and summed from -0.0: no product to fuse.
        let want = in_lanes(n, -0.0, -0.0, |l, k| l + a[k] * b[k]);
        let got = lanes_unfused::total(&a, &b, &mut region).unwrap();
        assert_eq!(got.to_bits(), want.to_bits(), "n = {n}");
    }
}

#[test]
fn an_f32_sum_adds_in_lanes_of_f32() {
    let mut region = Region::new();
    for n in [0, 1, 7, 8, 9, 16, 100, 1001] {
        let a: Vec<f32> = data(n, 3).iter().map(|&x| x as f32).collect();
        let got = lanes::total(&a, &mut region).unwrap();
        let want = in_lanes(n, -0.0f32, -0.0f32, |l, k| l + a[k]);
        assert_eq!(got.to_bits(), want.to_bits(), "n = {n}");
    }
}

#[test]
fn each_row_of_a_matrix_vector_product_adds_in_lanes() {
    let mut region = Region::new();
    let (n, m) = (5, 29);
    let (w, x) = (data(n * m, 4), data(m, 5));
    let mut out = vec![0.0; n];
    lanes::rows(&mut out, &w, &x, &mut region).unwrap();
    for (i, got) in out.iter().enumerate() {
        let want = in_lanes(m, -0.0, -0.0, |l, k| madd(l, w[i * m + k], x[k]));
        assert_eq!(got.to_bits(), want.to_bits(), "row {i}");
    }
}

#[test]
fn bad_arguments_are_errors_that_write_nothing() {
    let mut region = Region::new();
    let (a, b) = (data(9, 1), data(8, 2));
    assert!(matches!(
        lanes::dot(&a, &b, &mut region),
        Err(Error::Shape { arg: "b", .. })
    ));
    let mut out = vec![7.0; 3];
    let r = lanes::rows(&mut out, &data(12, 1), &data(5, 2), &mut region);
    assert!(matches!(r, Err(Error::Shape { .. })), "{r:?}");
    assert_eq!(out, [7.0; 3]);
}
