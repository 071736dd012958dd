//! A fold whose step replaces the row its `build` chooses by an index read from data (`if q
//! == x[i] { h[q] + 1 } else { h[q] }`): a row index past the end chooses no row, which is no
//! error (LANGUAGE.md section 4: `Error::Index` is for an index read out of range, and this
//! program reads none). Found by a user trial: the known-equal rewrite (`h[q]` read as
//! `h[x[i]]` inside `if q == x[i]`, section 13) made the row's index an index array checked at
//! entry, and the call failed.

use fsmooth::{Region, fsmooth};

fsmooth! {
    pub fn cnt_a(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| build(b, |q| if q == x[i] { h[q] + 1 } else { h[q] }))
    }
    pub fn cnt_b(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| build(b, |q| if x[i] == q { h[q] + 1 } else { h[q] }))
    }
    pub fn cnt_c(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| build(b, |q| if q != x[i] { h[q] } else { h[q] + 1 }))
    }
    pub fn cnt_d(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| build(b, |q| h[q] + if q == x[i] { 1 } else { 0 }))
    }
    pub fn cnt_lit(x: [usize; n]) -> [usize; 4] {
        ifold(n, build(4, |_| 0), |h, i| build(4, |q| if q == x[i] { h[q] + 1 } else { h[q] }))
    }
    pub fn cnt_sum(x: [usize; n], b: usize) -> usize {
        let h = ifold(n, build(b, |_| 0), |h, i| build(b, |q| if q == x[i] { h[q] + 1 } else { h[q] }));
        ifold(b, 0, |a, q| a + h[q])
    }
    pub fn cnt_2d(x: [[usize; d]; n], d: usize, b: usize) -> [[usize; b]; d] {
        ifold(n, build(d, |_| build(b, |_| 0)), |h, i| {
            build(d, |j| build(b, |q| if q == x[i][j] { h[j][q] + 1 } else { h[j][q] }))
        })
    }
    pub fn rows_acc(v: [[f64; d]; n], idx: [usize; n], d: usize, m: usize) -> [[f64; d]; m] {
        ifold(n, build(m, |_| build(d, |_| 0.0)), |acc, i| {
            build(m, |r| if r == idx[i] { add(acc[r], v[i]) } else { acc[r] })
        })
    }
}

type Count = fn(&mut [usize], &[usize], usize, &mut Region<'_>) -> Result<(), fsmooth::Error>;

#[test]
fn counts_ignore_labels_past_the_end() {
    let x = [1usize, 7, 1, 3, 4, 0];
    let want = [1usize, 2, 0, 1];
    let kernels: [(&str, Count); 4] = [
        ("==", cnt_a),
        ("== swapped", cnt_b),
        ("!=", cnt_c),
        ("+ if", cnt_d),
    ];
    for (name, k) in kernels {
        let mut h = vec![99usize; 4];
        k(&mut h, &x, 4, &mut Region::new()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(h, want, "{name}");
    }
    let mut h = [99usize; 4];
    cnt_lit(&mut h, &x, &mut Region::new()).unwrap();
    assert_eq!(h, want);
    assert_eq!(cnt_sum(&x, 4, &mut Region::new()).unwrap(), 4);
    // Every label past the end, and no bins at all.
    let mut h = vec![99usize; 2];
    cnt_a(&mut h, &[5, 9], 2, &mut Region::new()).unwrap();
    assert_eq!(h, [0, 0]);
    cnt_a(&mut [0usize; 0], &[5, 9], 0, &mut Region::new()).unwrap();
}

#[test]
fn rows_of_counts_and_sums_ignore_indexes_past_the_end() {
    // Two features, two bins; 9 and 2 are past the end.
    let x = [[0usize, 9], [1, 1], [2, 1]];
    let mut h = vec![99usize; 4];
    cnt_2d(&mut h, x.as_flattened(), 2, 2, &mut Region::new()).unwrap();
    assert_eq!(h, [1, 1, 0, 2]);
    // Updated in place, as the one-feature count is (it took d b slots).
    assert_eq!(cnt_2d::scratch_len(2, 3, 2), 0);
    assert_eq!(cnt_2d::scratch_len(16, 1000, 64), 0);
    let v = [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]];
    let mut o = vec![99.0; 4];
    rows_acc(
        &mut o,
        v.as_flattened(),
        &[0, 5, 1],
        2,
        2,
        &mut Region::new(),
    )
    .unwrap();
    assert_eq!(o, [1.0, 1.0, 3.0, 3.0]);
}
