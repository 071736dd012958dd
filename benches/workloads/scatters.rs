//! Loops that stop and scatters (issue 40, LANGUAGE.md sections 14 and 15), each written
//! three ways from the contract, beside a hand-written Rust version: systematic resampling
//! with `iterate`, a histogram and k-means' centroid sums with `scatter_add` and
//! `reduce_by_index`. Spelling A is [`Variant::Fsmooth`], B and C are
//! [`Variant::SpellingB`] and [`Variant::SpellingC`]; each workload's doc says which is which.

use super::{Rng, SPELLED, SPELLED_DYN, Variant, Workload, spelled_slot as slot};
use fsmooth::{Region, fsmooth};
use std::hint::black_box;

// ---- systematic resampling ------------------------------------------------------------------

/// Particles.
pub const RS_N: usize = 4096;

fsmooth! {
    /// Spelling A: LANGUAGE.md section 14's example, a search by `iterate` inside a `scan`.
    pub fn resample_a(w: [f64; n], u0: f64) -> [usize; n] {
        let c = scan(n, 0.0, |acc, i| acc + w[i]);
        let total = c[n - 1];
        scan(n, 0, |k, j| {
            let u = (u0 + (j as f64) / (n as f64)) * total;
            iterate(k, |k| k + 1 < n && c[k] < u, |k| k + 1)
        })
    }

    /// Spelling B: the pointers an array of their own, the total a `sum`.
    pub fn resample_b(w: [f64; n], u0: f64) -> [usize; n] {
        let c = scan(n, 0.0, |acc, i| acc + w[i]);
        let total = sum(w);
        let u = build(n, |j| (u0 + (j as f64) / (n as f64)) * total);
        scan(n, 0, |k, j| iterate(k, |k| k + 1 < n && c[k] < u[j], |k| k + 1))
    }

    /// Spelling C: no array of cumulative weights: the search carries the particle and the
    /// weight up to it, `(k, cw)`, from one pointer to the next.
    pub fn resample_c(w: [f64; n], u0: f64) -> [usize; n] {
        let total = sum(w);
        let (ks, _) = scan(n, (0, w[0]), |(k, cw), j| {
            let u = (u0 + (j as f64) / (n as f64)) * total;
            iterate((k, cw), |(k, cw)| k + 1 < n && cw < u, |(k, cw)| (k + 1, cw + w[k + 1]))
        });
        ks
    }
}

/// Systematic resampling by hand: cumulative weights in a buffer, then one merge.
#[inline]
pub fn resample_hand(out: &mut [usize], c: &mut [f64], w: &[f64], u0: f64) {
    let n = w.len();
    let mut acc = 0.0;
    for (ci, wi) in c.iter_mut().zip(w) {
        acc += wi;
        *ci = acc;
    }
    let total = c[n - 1];
    let mut k = 0;
    for (j, o) in out.iter_mut().enumerate() {
        let u = (u0 + j as f64 / n as f64) * total;
        while k + 1 < n && c[k] < u {
            k += 1;
        }
        *o = k;
    }
}

/// Systematic resampling of 4096 particles: for each of n evenly spaced pointers, the
/// particle whose cumulative weight first reaches it. A: section 14's example; B: the
/// pointers an array, the total a `sum`; C: a tuple-state search carrying the cumulative
/// weight, no array of them.
pub struct Resample {
    w: Vec<f64>,
    c: Vec<f64>,
    region: Region<'static>,
    out: [Vec<usize>; 4],
}

impl Workload for Resample {
    const GROUP: &'static str = "resample_4096";
    const SIZE: &'static str = "4096 particles";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(1401);
        // Weights spread over two orders of magnitude, some near zero.
        let w = (0..RS_N).map(|_| rng.f64().powi(4) + 1e-6).collect();
        let mut r = Resample {
            w,
            c: vec![0.0; RS_N],
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0; RS_N]),
        };
        super::check(&mut r);
        r
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        resample_a(&mut self.out[0], black_box(&self.w), 0.37, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, w) = (&mut self.out[K], black_box(&self.w));
        match K {
            1 => resample_b(out, w, 0.37, &mut self.region).unwrap(),
            _ => resample_c(out, w, 0.37, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        resample_hand(&mut self.out[3], &mut self.c, black_box(&self.w), 0.37);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].iter().map(|&k| k as f64).collect()
    }

    fn tolerance() -> f64 {
        // B's total is a `sum` (from -0.0, in its own order) and C's cumulative weights are
        // not stored: a pointer exactly on a boundary could land one particle over, which
        // these weights do not produce.
        0.0
    }
}

// ---- histogram by scatter --------------------------------------------------------------------

/// Values and bins.
pub const HS_N: usize = 100_000;
pub const HS_B: usize = 64;

fsmooth! {
    /// Spelling A: LANGUAGE.md section 15's histogram.
    pub fn scatter_hist_a(x: [f64; n], b: usize) -> [usize; b] {
        scatter_add(b, n, |i| (((x[i] * (b as f64)) as usize).min(b - 1), 1))
    }

    /// Spelling B: the bin `let`-bound, the bins' count a literal.
    pub fn scatter_hist_b(x: [f64; n]) -> [usize; 64] {
        scatter_add(64, n, |i| {
            let bin = (x[i] * 64.0) as usize;
            (bin.min(63), 1)
        })
    }

    /// Spelling C: `reduce_by_index` with addition.
    pub fn scatter_hist_c(x: [f64; n], b: usize) -> [usize; b] {
        reduce_by_index(b, 0, |a, c| a + c, n, |i| (((x[i] * (b as f64)) as usize).min(b - 1), 1))
    }
}

/// The histogram by hand.
#[inline]
pub fn scatter_hist_hand(counts: &mut [usize], x: &[f64]) {
    counts.fill(0);
    let b = counts.len();
    for &v in x {
        counts[((v * b as f64) as usize).min(b - 1)] += 1;
    }
}

/// A 64-bin histogram of 10^5 values in [0, 1). A: section 15's `scatter_add`; B: the bin
/// `let`-bound, 64 a literal; C: `reduce_by_index` with `+`.
pub struct ScatterHistogram {
    x: Vec<f64>,
    region: Region<'static>,
    out: [Vec<usize>; 4],
}

impl Workload for ScatterHistogram {
    const GROUP: &'static str = "scatter_histogram_1e5";
    const SIZE: &'static str = "10^5 values, 64 bins";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(1501);
        let x = (0..HS_N).map(|_| rng.f64()).collect();
        let mut h = ScatterHistogram {
            x,
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0; HS_B]),
        };
        super::check(&mut h);
        assert_eq!(h.out[3].iter().sum::<usize>(), HS_N);
        h
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        scatter_hist_a(&mut self.out[0], black_box(&self.x), HS_B, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, x) = (&mut self.out[K], black_box(&self.x));
        match K {
            1 => scatter_hist_b(out, x, &mut self.region).unwrap(),
            _ => scatter_hist_c(out, x, HS_B, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        scatter_hist_hand(&mut self.out[3], black_box(&self.x));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].iter().map(|&c| c as f64).collect()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

// ---- k-means' centroid sums ------------------------------------------------------------------

/// Points, clusters, dimension.
pub const CS_N: usize = 10_000;
pub const CS_K: usize = 16;
pub const CS_D: usize = 8;

fsmooth! {
    /// Spelling A: LANGUAGE.md section 15's centroid sums, rows as values.
    pub fn centroid_sums_a(pts: [[f64; 8]; n], labels: [usize; n], k: usize) -> [[f64; 8]; k] {
        scatter_add(k, n, |i| (labels[i], pts[i]))
    }

    /// Spelling B: `reduce_by_index` with the prelude's `add` of rows, the dimension a size
    /// name.
    pub fn centroid_sums_b(pts: [[f64; d]; n], labels: [usize; n], k: usize) -> [[f64; d]; k] {
        reduce_by_index(k, build(d, |_| 0.0), |a, b| add(a, b), n, |i| (labels[i], pts[i]))
    }

    /// Spelling C: the row written as a `build`, the label `let`-bound.
    pub fn centroid_sums_c(pts: [[f64; 8]; n], labels: [usize; n], k: usize) -> [[f64; 8]; k] {
        scatter_add(k, n, |i| {
            let l = labels[i];
            (l, build(8, |e| pts[i][e]))
        })
    }
}

/// The centroid sums by hand.
#[inline]
pub fn centroid_sums_hand(sums: &mut [[f64; CS_D]], pts: &[[f64; CS_D]], labels: &[usize]) {
    for s in sums.iter_mut() {
        *s = [0.0; CS_D];
    }
    for (p, &l) in pts.iter().zip(labels) {
        let s = &mut sums[l];
        for e in 0..CS_D {
            s[e] += p[e];
        }
    }
}

/// The centroid sums by hand over a run-time dimension `d` (spelling B's size name).
#[inline]
pub fn centroid_sums_hand_dyn(sums: &mut [f64], pts: &[f64], labels: &[usize], d: usize) {
    sums.fill(0.0);
    for (p, &l) in pts.chunks_exact(d).zip(labels) {
        let s = &mut sums[l * d..l * d + d];
        for (a, b) in s.iter_mut().zip(p) {
            *a += b;
        }
    }
}

/// k-means' centroid sums: 10^4 points of dimension 8 added into the rows of their 16
/// clusters. A: section 15's `scatter_add` of rows; B: `reduce_by_index` with `add`, the
/// dimension a size name; C: the row a `build`, the label `let`-bound.
pub struct CentroidSums {
    pts: Vec<[f64; CS_D]>,
    labels: Vec<usize>,
    region: Region<'static>,
    out: [Vec<[f64; CS_D]>; 5],
}

impl Workload for CentroidSums {
    const GROUP: &'static str = "centroid_sums_1e4";
    const SIZE: &'static str = "10^4 points, 16 clusters, d = 8";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(1502);
        let pts = (0..CS_N)
            .map(|_| std::array::from_fn(|_| rng.f64() * 10.0))
            .collect();
        let labels = (0..CS_N).map(|_| rng.below(CS_K)).collect();
        let mut c = CentroidSums {
            pts,
            labels,
            region: Region::new(),
            out: std::array::from_fn(|_| vec![[0.0; CS_D]; CS_K]),
        };
        super::check(&mut c);
        c
    }

    fn variants() -> &'static [Variant] {
        &SPELLED_DYN
    }

    #[inline]
    fn fsmooth(&mut self) {
        let out = self.out[0].as_flattened_mut();
        let pts = black_box(&self.pts).as_flattened();
        centroid_sums_a(out, pts, black_box(&self.labels), CS_K, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let out = self.out[K].as_flattened_mut();
        let (pts, labels) = (black_box(&self.pts).as_flattened(), black_box(&self.labels));
        match K {
            1 => centroid_sums_b(out, pts, labels, CS_K, &mut self.region).unwrap(),
            _ => centroid_sums_c(out, pts, labels, CS_K, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        centroid_sums_hand(
            &mut self.out[3],
            black_box(&self.pts),
            black_box(&self.labels),
        );
    }

    #[inline]
    fn hand_dyn(&mut self) {
        let (pts, labels) = (black_box(&self.pts).as_flattened(), black_box(&self.labels));
        centroid_sums_hand_dyn(self.out[4].as_flattened_mut(), pts, labels, black_box(CS_D));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].as_flattened().to_vec()
    }

    fn tolerance() -> f64 {
        // Every spelling adds the points of a cluster in the hand version's order.
        0.0
    }
}
