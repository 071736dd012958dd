//! Centroids as sums scaled by their counts, the factor bound before the row's `build`
//! (`smul(s[j], 1.0 / c[j])`) or inside it (`map(s[j], ..)`): the same values and no
//! scratch either way (LANGUAGE.md section 13, a helper costs what its body costs). Found
//! by a user trial (`smul` took k d slots).

use fsmooth::{Region, fsmooth};

fsmooth! {
    pub fn means_smul(pts: [[f64; d]; n], labels: [usize; n], c: [f64; k]) -> [[f64; d]; k] {
        let s = scatter_add(k, n, |i| (labels[i], pts[i]));
        build(k, |j| smul(s[j], 1.0 / c[j]))
    }
    pub fn means_map(pts: [[f64; d]; n], labels: [usize; n], c: [f64; k]) -> [[f64; d]; k] {
        let s = scatter_add(k, n, |i| (labels[i], pts[i]));
        build(k, |j| map(s[j], |v| v * (1.0 / c[j])))
    }
}

#[test]
fn scaled_rows_are_computed_over_the_sums() {
    let (d, k) = (3usize, 4usize);
    let pts: Vec<f64> = (0..10 * d).map(|x| (x % 7) as f64 - 1.0).collect();
    let labels: Vec<usize> = (0..10).map(|i| (i * 3) % k).collect();
    let c = [2.0, 3.0, 4.0, 5.0];
    let mut want = vec![0.0; k * d];
    for (p, &l) in pts.chunks(d).zip(&labels) {
        for e in 0..d {
            want[l * d + e] += p[e];
        }
    }
    for (j, row) in want.chunks_mut(d).enumerate() {
        row.iter_mut().for_each(|v| *v *= 1.0 / c[j]);
    }
    let (mut a, mut b) = (vec![f64::NAN; k * d], vec![f64::NAN; k * d]);
    means_smul(&mut a, &pts, &labels, &c, &mut Region::new()).unwrap();
    means_map(&mut b, &pts, &labels, &c, &mut Region::new()).unwrap();
    assert_eq!(a, want);
    assert_eq!(b, want);
    assert_eq!(means_smul::scratch_len(d, 10, k), 0);
    assert_eq!(means_map::scratch_len(d, 10, k), 0);
    // A label past the end: `Error::Index`, the output untouched.
    let mut o = vec![7.0; k * d];
    let mut bad = labels.clone();
    bad[4] = k;
    assert!(means_smul(&mut o, &pts, &bad, &c, &mut Region::new()).is_err());
    assert_eq!(o, vec![7.0; k * d]);
}
