//! Workloads written three ways each, as a user would spell them from the docs
//! (LANGUAGE.md section 13: the spellings that must cost the same): an MLP's loss and its
//! gradient by `grad`, a histogram, a k-means assignment step and conjugate gradients on the
//! 1-D Poisson matrix. Spelling A is [`Variant::Fsmooth`], B and C are
//! [`Variant::SpellingB`] and [`Variant::SpellingC`]; each workload's doc says which is
//! which. The hand-written variants are plain Rust loops over slices, their workspace made
//! once.

use super::{Rng, SPELLED, Variant, Workload, spelled_slot as slot};
use fsmooth::{Region, fsmooth};
use std::hint::black_box;

// ---- MLP 32-64-10: loss and gradient -------------------------------------------------------

/// Input, hidden and output widths, batch size.
pub const MLP_I: usize = 32;
pub const MLP_H: usize = 64;
pub const MLP_O: usize = 10;
pub const MLP_P: usize = 128;

fsmooth! {
    /// Spelling A: prelude functions, a helper for the network, `let`-bound layers and the
    /// batch sum as `sum(build(p, ..))`.
    fn logits_a(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                x: [f64; i]) -> [f64; o] {
        let a1 = map(add(matvec(w1, x), b1), |v| v.tanh());
        add(matvec(w2, a1), b2)
    }

    fn loss_a(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
              x: [[f64; i]; p], labels: [usize; p]) -> f64 {
        sum(build(p, |s| {
            let z = logits_a(w1, b1, w2, b2, x[s]);
            logsumexp(z) - z[labels[s]]
        }))
    }

    /// Spelling B: no helper, no prelude: every sum an `ifold` written out, the batch sum
    /// an `ifold` adding each sample's loss.
    fn loss_b(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
              x: [[f64; i]; p], labels: [usize; p]) -> f64 {
        ifold(p, 0.0, |acc, s| {
            let a1 = build(h, |j| (ifold(i, 0.0, |t, k| t + w1[j][k] * x[s][k]) + b1[j]).tanh());
            let z = build(o, |c| ifold(h, 0.0, |t, j| t + w2[c][j] * a1[j]) + b2[c]);
            let mx = ifold(o, z[0], |m, c| m.max(z[c]));
            let lse = mx + ifold(o, 0.0, |t, c| t + (z[c] - mx).exp()).ln();
            acc + (lse - z[labels[s]])
        })
    }

    /// Spelling C: rows by `dot`, the per-sample losses a `let`-bound array, then `sum`.
    fn loss_c(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
              x: [[f64; i]; p], labels: [usize; p]) -> f64 {
        let per_sample = build(p, |s| {
            let a1 = build(h, |j| (dot(w1[j], x[s]) + b1[j]).tanh());
            let z = build(o, |c| dot(w2[c], a1) + b2[c]);
            logsumexp(z) - z[labels[s]]
        });
        sum(per_sample)
    }

    /// Softmax cross-entropy of a 32-64-10 tanh MLP, summed over the batch (spelling A).
    pub fn mlp_loss_a(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                      x: [[f64; i]; p], labels: [usize; p]) -> f64 {
        loss_a(w1, b1, w2, b2, x, labels)
    }

    pub fn mlp_loss_b(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                      x: [[f64; i]; p], labels: [usize; p]) -> f64 {
        loss_b(w1, b1, w2, b2, x, labels)
    }

    pub fn mlp_loss_c(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                      x: [[f64; i]; p], labels: [usize; p]) -> f64 {
        loss_c(w1, b1, w2, b2, x, labels)
    }

    /// The loss and its gradient by the four weight arrays (spelling A's loss).
    pub fn mlp_grad_a(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                      x: [[f64; i]; p], labels: [usize; p])
                      -> (f64, [[f64; i]; h], [f64; h], [[f64; h]; o], [f64; o]) {
        grad(|a, b, c, d| loss_a(a, b, c, d, x, labels), w1, b1, w2, b2)
    }

    pub fn mlp_grad_b(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                      x: [[f64; i]; p], labels: [usize; p])
                      -> (f64, [[f64; i]; h], [f64; h], [[f64; h]; o], [f64; o]) {
        grad(|a, b, c, d| loss_b(a, b, c, d, x, labels), w1, b1, w2, b2)
    }

    pub fn mlp_grad_c(w1: [[f64; i]; h], b1: [f64; h], w2: [[f64; h]; o], b2: [f64; o],
                      x: [[f64; i]; p], labels: [usize; p])
                      -> (f64, [[f64; i]; h], [f64; h], [[f64; h]; o], [f64; o]) {
        grad(|a, b, c, d| loss_c(a, b, c, d, x, labels), w1, b1, w2, b2)
    }
}

/// The MLP's weights, batch and labels, flat and row-major.
pub struct MlpIn {
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: Vec<f64>,
    pub x: Vec<f64>,
    pub labels: Vec<usize>,
}

impl MlpIn {
    fn new(seed: u64) -> MlpIn {
        let mut rng = Rng::new(seed);
        let mut scaled =
            |n: usize, s: f64| -> Vec<f64> { rng.vec(n).iter().map(|v| v * s).collect() };
        let w1 = scaled(MLP_H * MLP_I, 0.3);
        let b1 = scaled(MLP_H, 0.1);
        let w2 = scaled(MLP_O * MLP_H, 0.3);
        let b2 = scaled(MLP_O, 0.1);
        let x = scaled(MLP_P * MLP_I, 1.0);
        let labels = (0..MLP_P).map(|_| rng.below(MLP_O)).collect();
        MlpIn {
            w1,
            b1,
            w2,
            b2,
            x,
            labels,
        }
    }
}

/// The hand-written MLP's workspace: the hidden activations and logits of one sample, and
/// the adjoints of the logits and of the hidden pre-activations.
pub struct MlpWork {
    a1: Vec<f64>,
    z: Vec<f64>,
    dz: Vec<f64>,
    dh: Vec<f64>,
}

impl MlpWork {
    pub fn new() -> MlpWork {
        MlpWork {
            a1: vec![0.0; MLP_H],
            z: vec![0.0; MLP_O],
            dz: vec![0.0; MLP_O],
            dh: vec![0.0; MLP_H],
        }
    }
}

impl Default for MlpWork {
    fn default() -> Self {
        MlpWork::new()
    }
}

/// One sample's forward pass: the hidden activations into `a1`, the logits into `z`;
/// returns the sample's cross-entropy with label `label`.
#[inline]
fn mlp_forward(inp: &MlpIn, xs: &[f64], label: usize, a1: &mut [f64], z: &mut [f64]) -> f64 {
    let ni = xs.len();
    for ((a, row), b) in a1.iter_mut().zip(inp.w1.chunks_exact(ni)).zip(&inp.b1) {
        let s: f64 = row.iter().zip(xs).map(|(w, x)| w * x).sum();
        *a = (s + b).tanh();
    }
    let nh = a1.len();
    for ((zc, row), b) in z.iter_mut().zip(inp.w2.chunks_exact(nh)).zip(&inp.b2) {
        let s: f64 = row.iter().zip(a1.iter()).map(|(w, a)| w * a).sum();
        *zc = s + b;
    }
    let mx = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lse = mx + z.iter().map(|v| (v - mx).exp()).sum::<f64>().ln();
    lse - z[label]
}

/// The loss over the batch, by hand.
pub fn mlp_loss_hand(ws: &mut MlpWork, inp: &MlpIn) -> f64 {
    let mut loss = 0.0;
    for (xs, &label) in inp.x.chunks_exact(MLP_I).zip(&inp.labels) {
        loss += mlp_forward(inp, xs, label, &mut ws.a1, &mut ws.z);
    }
    loss
}

/// The loss and its gradient by backpropagation, derived by hand: per sample, the logits'
/// adjoint is `softmax(z) - onehot(label)`, `W2`'s `dz a1^T`, the hidden pre-activations'
/// `(W2^T dz) * (1 - a1^2)`, `W1`'s that times `x^T`. Gradients go to `g1`, `gb1`, `g2`,
/// `gb2` (zeroed first).
pub fn mlp_grad_hand(
    ws: &mut MlpWork,
    inp: &MlpIn,
    g1: &mut [f64],
    gb1: &mut [f64],
    g2: &mut [f64],
    gb2: &mut [f64],
) -> f64 {
    let MlpWork { a1, z, dz, dh } = ws;
    g1.fill(0.0);
    gb1.fill(0.0);
    g2.fill(0.0);
    gb2.fill(0.0);
    let mut loss = 0.0;
    for (xs, &label) in inp.x.chunks_exact(MLP_I).zip(&inp.labels) {
        loss += mlp_forward(inp, xs, label, a1, z);
        let mx = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for (d, v) in dz.iter_mut().zip(z.iter()) {
            *d = (v - mx).exp();
            total += *d;
        }
        for d in dz.iter_mut() {
            *d /= total;
        }
        dz[label] -= 1.0;
        dh.fill(0.0);
        for ((d, grow), (wrow, gb)) in dz
            .iter()
            .zip(g2.chunks_exact_mut(MLP_H))
            .zip(inp.w2.chunks_exact(MLP_H).zip(gb2.iter_mut()))
        {
            *gb += d;
            for (((g, a), w), h) in grow.iter_mut().zip(a1.iter()).zip(wrow).zip(dh.iter_mut()) {
                *g += d * a;
                *h += d * w;
            }
        }
        for (((h, a), grow), gb) in dh
            .iter()
            .zip(a1.iter())
            .zip(g1.chunks_exact_mut(MLP_I))
            .zip(gb1.iter_mut())
        {
            let dpre = h * (1.0 - a * a);
            *gb += dpre;
            for (g, x) in grow.iter_mut().zip(xs) {
                *g += dpre * x;
            }
        }
    }
    loss
}

/// The softmax cross-entropy of a 32-64-10 MLP (tanh hidden layer, linear output layer),
/// summed over a batch of 128 samples with labels in `0..10`. A: prelude (`matvec`, `add`,
/// `map`, `logsumexp`), a helper, `sum(build(..))`; B: every sum an `ifold` written out, the
/// batch sum an `ifold`; C: rows by `dot`, the per-sample losses `let`-bound, then `sum`.
pub struct MlpLoss {
    inp: MlpIn,
    region: Region<'static>,
    ws: MlpWork,
    out: [f64; 4],
}

/// One call of MLP loss kernel `$kernel`.
macro_rules! mlp_loss_call {
    ($w:expr, $kernel:path) => {{
        let w = $w;
        let inp = black_box(&w.inp);
        $kernel(
            &inp.w1,
            &inp.b1,
            &inp.w2,
            &inp.b2,
            &inp.x,
            &inp.labels,
            &mut w.region,
        )
        .unwrap()
    }};
}

impl Workload for MlpLoss {
    const GROUP: &'static str = "mlp_loss";
    const SIZE: &'static str = "32-64-10 tanh MLP, softmax cross-entropy, batch of 128";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = MlpLoss {
            inp: MlpIn::new(41),
            region: Region::new(),
            ws: MlpWork::new(),
            out: [f64::NAN; 4],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        self.out[0] = mlp_loss_call!(&mut *self, mlp_loss_a);
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        self.out[K] = match K {
            1 => mlp_loss_call!(&mut *self, mlp_loss_b),
            _ => mlp_loss_call!(&mut *self, mlp_loss_c),
        };
    }

    #[inline]
    fn hand(&mut self) {
        self.out[3] = mlp_loss_hand(&mut self.ws, black_box(&self.inp));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        vec![self.out[slot(v)]]
    }

    fn tolerance() -> f64 {
        // The dot products add their terms in other orders.
        1e-9
    }
}

/// The MLP loss's value and gradient by `W1`, `b1`, `W2`, `b2`: fsmooth's `grad` of the
/// three spellings of [`MlpLoss`], and backpropagation derived by hand ([`mlp_grad_hand`]).
pub struct MlpGrad {
    inp: MlpIn,
    region: Region<'static>,
    ws: MlpWork,
    /// Per variant: the loss, then the gradients by W1, b1, W2, b2, flat.
    out: [Vec<f64>; 4],
}

/// The gradient's four parts in one flat buffer after the loss: W1, b1, W2, b2.
fn grad_parts(g: &mut [f64]) -> (&mut f64, &mut [f64], &mut [f64], &mut [f64], &mut [f64]) {
    let (loss, rest) = g.split_first_mut().unwrap();
    let (g1, rest) = rest.split_at_mut(MLP_H * MLP_I);
    let (gb1, rest) = rest.split_at_mut(MLP_H);
    let (g2, gb2) = rest.split_at_mut(MLP_O * MLP_H);
    (loss, g1, gb1, g2, gb2)
}

/// One call of MLP gradient kernel `$kernel` into `out[$slot]`.
macro_rules! mlp_grad_call {
    ($w:expr, $kernel:path, $slot:expr) => {{
        let w = $w;
        let inp = black_box(&w.inp);
        let (loss, g1, gb1, g2, gb2) = grad_parts(&mut w.out[$slot]);
        *loss = $kernel(
            g1,
            gb1,
            g2,
            gb2,
            &inp.w1,
            &inp.b1,
            &inp.w2,
            &inp.b2,
            &inp.x,
            &inp.labels,
            &mut w.region,
        )
        .unwrap();
    }};
}

impl Workload for MlpGrad {
    const GROUP: &'static str = "mlp_grad";
    const SIZE: &'static str = "gradient of mlp_loss by W1, b1, W2, b2";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let len = 1 + MLP_H * MLP_I + MLP_H + MLP_O * MLP_H + MLP_O;
        let mut w = MlpGrad {
            inp: MlpIn::new(41),
            region: Region::new(),
            ws: MlpWork::new(),
            out: std::array::from_fn(|_| vec![0.0; len]),
        };
        super::check(&mut w);
        // The gradient by b2 sums softmax - onehot over the batch: its elements add to 0.
        let gb2 = &w.out[3][len - MLP_O..];
        assert!(gb2.iter().sum::<f64>().abs() < 1e-9);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        mlp_grad_call!(&mut *self, mlp_grad_a, 0);
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        match K {
            1 => mlp_grad_call!(&mut *self, mlp_grad_b, 1),
            _ => mlp_grad_call!(&mut *self, mlp_grad_c, 2),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let inp = black_box(&self.inp);
        let (loss, g1, gb1, g2, gb2) = grad_parts(&mut self.out[3]);
        *loss = mlp_grad_hand(&mut self.ws, inp, g1, gb1, g2, gb2);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        // The sums over the batch and the dot products add in other orders.
        1e-9
    }
}

// ---- histogram -----------------------------------------------------------------------------

/// Values and bins of the histogram.
pub const HIST_N: usize = 10_000;
pub const HIST_B: usize = 64;

fsmooth! {
    /// Spelling A: LANGUAGE.md section 13's histogram, an `ifold` whose state is the
    /// counts, the bin's row updated in place reading `h[bin]`.
    pub fn histogram_a(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            let bin = x[i].min(b - 1);
            build(b, |j| if j == bin { h[bin] + 1 } else { h[j] })
        })
    }

    /// Spelling B: the same update with `j != bin`, the branches swapped, reading `h[j]`,
    /// and the bin written where it is read.
    pub fn histogram_b(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            build(b, |j| if j != x[i].min(b - 1) { h[j] } else { h[j] + 1 })
        })
    }

    /// Spelling C: the same update reading `h[j] + 1` under `j == bin`. (`scatter_add(b, n,
    /// |i| (x[i].min(b - 1), 1))`, LANGUAGE.md section 15, is rejected: "cannot find
    /// function `scatter_add` in this block".)
    pub fn histogram_c(x: [usize; n], b: usize) -> [usize; b] {
        ifold(n, build(b, |_| 0), |h, i| {
            let bin = x[i].min(b - 1);
            build(b, |j| if j == bin { h[j] + 1 } else { h[j] })
        })
    }
}

/// A histogram of 10^4 values in `0..72` into 64 bins, values past the last bin counted in
/// it (clamped). A: section 13's `ifold` over the values with the row updated in place
/// (`if j == bin { h[bin] + 1 } else { h[j] }`); B: the same with `j != bin`, the branches
/// swapped, `h[j]` and the bin written in place; C: `h[j] + 1` under `j == bin`.
pub struct Histogram {
    x: Vec<usize>,
    region: Region<'static>,
    out: [Vec<usize>; 4],
}

/// The counts by hand.
#[inline]
pub fn histogram_hand(counts: &mut [usize], x: &[usize]) {
    counts.fill(0);
    let last = counts.len() - 1;
    for &v in x {
        counts[v.min(last)] += 1;
    }
}

impl Workload for Histogram {
    const GROUP: &'static str = "histogram_1e4";
    const SIZE: &'static str = "10^4 values, 64 bins (clamped)";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(42);
        let x = (0..HIST_N).map(|_| rng.below(HIST_B + 8)).collect();
        let mut w = Histogram {
            x,
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0; HIST_B]),
        };
        super::check(&mut w);
        assert_eq!(w.out[3].iter().sum::<usize>(), HIST_N);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        histogram_a(
            &mut self.out[0],
            black_box(&self.x),
            HIST_B,
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, x) = (&mut self.out[K], black_box(&self.x));
        match K {
            1 => histogram_b(out, x, HIST_B, &mut self.region).unwrap(),
            _ => histogram_c(out, x, HIST_B, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        histogram_hand(&mut self.out[3], black_box(&self.x));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].iter().map(|&c| c as f64).collect()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

// ---- k-means assignment --------------------------------------------------------------------

/// Points, their dimension and the number of centres.
pub const KM_N: usize = 1_000;
pub const KM_D: usize = 2;
pub const KM_K: usize = 8;

fsmooth! {
    fn dist2(a: [f64; d], b: [f64; d]) -> f64 {
        sqnorm(sub(a, b))
    }

    /// Spelling A: a distance helper over the prelude; each label an `ifold` carrying the
    /// best centre and its distance; the cost a `sum(build(..))` reading the labels (from
    /// the output).
    pub fn kmeans_a(pts: [[f64; d]; n], c: [[f64; d]; k], d: usize) -> ([usize; n], f64) {
        let labels = build(n, |i| {
            let (best, _) = ifold(k, (0, dist2(pts[i], c[0])), |(best, bd), j| {
                let dj = dist2(pts[i], c[j]);
                if dj < bd { (j, dj) } else { (best, bd) }
            });
            best
        });
        let cost = sum(build(n, |i| dist2(pts[i], c[labels[i]])));
        (labels, cost)
    }

    /// Spelling B: no helper: the distances written out as `ifold`s over the dimension,
    /// the cost an `ifold` adding each point's distance.
    pub fn kmeans_b(pts: [[f64; d]; n], c: [[f64; d]; k], d: usize) -> ([usize; n], f64) {
        let labels = build(n, |i| {
            let d0 = ifold(d, 0.0, |t, q| t + (pts[i][q] - c[0][q]) * (pts[i][q] - c[0][q]));
            ifold(k, (0, d0), |(best, bd), j| {
                let dj = ifold(d, 0.0, |t, q| t + (pts[i][q] - c[j][q]) * (pts[i][q] - c[j][q]));
                if dj < bd { (j, dj) } else { (best, bd) }
            }).0
        });
        let cost = ifold(n, 0.0, |acc, i| {
            let l = labels[i];
            acc + ifold(d, 0.0, |t, q| t + (pts[i][q] - c[l][q]) * (pts[i][q] - c[l][q]))
        });
        (labels, cost)
    }

    /// The nearest centre of `p` and its squared distance.
    fn nearest(p: [f64; d], c: [[f64; d]; k]) -> (usize, f64) {
        let e0 = sub(p, c[0]);
        ifold(k, (0, dot(e0, e0)), |(best, bd), j| {
            let e = sub(p, c[j]);
            let dj = dot(e, e);
            if dj < bd { (j, dj) } else { (best, bd) }
        })
    }

    /// Spelling C: one `ifold` over the points whose state is the labels and the cost, the
    /// point's label updated in place (LANGUAGE.md section 13), a helper for the nearest
    /// centre.
    pub fn kmeans_c(pts: [[f64; d]; n], c: [[f64; d]; k], d: usize) -> ([usize; n], f64) {
        ifold(n, (build(n, |_| 0), 0.0), |(labels, cost), i| {
            let (best, bd) = nearest(pts[i], c);
            (build(n, |r| if r == i { best } else { labels[r] }), cost + bd)
        })
    }
}

/// One k-means assignment step: 10^3 points in 2-D, 8 centres; the label of every point
/// (the first nearest centre) and the cost, the sum of the squared distances to it. A: a
/// distance helper `sqnorm(sub(a, b))`, labels by a `build` of `ifold`s, the cost
/// `sum(build(..))` reading the labels; B: the same with the distances written out as
/// `ifold`s and the cost an `ifold`; C: one `ifold` over the points with the state (labels,
/// cost), the label updated in place.
pub struct KMeans {
    pts: Vec<f64>,
    centres: Vec<f64>,
    region: Region<'static>,
    labels: [Vec<usize>; 4],
    cost: [f64; 4],
}

/// Labels and cost by hand.
#[inline]
pub fn kmeans_hand(labels: &mut [usize], pts: &[f64], centres: &[f64]) -> f64 {
    let d = KM_D;
    let dist =
        |p: &[f64], c: &[f64]| -> f64 { p.iter().zip(c).map(|(a, b)| (a - b) * (a - b)).sum() };
    let mut cost = 0.0;
    for (l, p) in labels.iter_mut().zip(pts.chunks_exact(d)) {
        let (mut best, mut bd) = (0, dist(p, &centres[..d]));
        for (j, c) in centres.chunks_exact(d).enumerate().skip(1) {
            let dj = dist(p, c);
            if dj < bd {
                (best, bd) = (j, dj);
            }
        }
        *l = best;
        cost += bd;
    }
    cost
}

impl Workload for KMeans {
    const GROUP: &'static str = "kmeans_1e3";
    const SIZE: &'static str = "10^3 points in 2-D, k = 8";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(43);
        let mut w = KMeans {
            pts: rng.vec(KM_N * KM_D),
            centres: rng.vec(KM_K * KM_D),
            region: Region::new(),
            labels: std::array::from_fn(|_| vec![0; KM_N]),
            cost: [f64::NAN; 4],
        };
        super::check(&mut w);
        // Every centre is some point's nearest.
        assert!((0..KM_K).all(|j| w.labels[3].contains(&j)));
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (pts, c) = black_box((&self.pts, &self.centres));
        self.cost[0] = kmeans_a(&mut self.labels[0], pts, c, KM_D, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (pts, c) = black_box((&self.pts, &self.centres));
        let labels = &mut self.labels[K];
        self.cost[K] = match K {
            1 => kmeans_b(labels, pts, c, KM_D, &mut self.region).unwrap(),
            _ => kmeans_c(labels, pts, c, KM_D, &mut self.region).unwrap(),
        };
    }

    #[inline]
    fn hand(&mut self) {
        let (pts, c) = black_box((&self.pts, &self.centres));
        self.cost[3] = kmeans_hand(&mut self.labels[3], pts, c);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let s = slot(v);
        let mut out: Vec<f64> = self.labels[s].iter().map(|&l| l as f64).collect();
        out.push(self.cost[s]);
        out
    }

    fn tolerance() -> f64 {
        1e-12
    }
}

// ---- conjugate gradients on the 1-D Poisson matrix -----------------------------------------

/// Unknowns and steps.
pub const CG_N: usize = 1000;
pub const CG_STEPS: usize = 50;

fsmooth! {
    /// The 1-D Poisson matrix (2 on the diagonal, -1 beside it) times `v`.
    fn poisson(v: [f64; n]) -> [f64; n] {
        build(n, |i| {
            let left = if i > 0 { v[i - 1] } else { 0.0 };
            let right = if i + 1 < n { v[i + 1] } else { 0.0 };
            2.0 * v[i] - left - right
        })
    }

    /// Spelling A: prelude functions (`dot`, `add`, `sub`, `smul`), a helper for the
    /// matrix, `let`-bound vectors.
    pub fn cg_a(b: [f64; n], steps: usize) -> [f64; n] {
        let (x, _, _, _) = ifold(steps, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| {
            let ap = poisson(p);
            let alpha = rs / dot(p, ap);
            let x1 = add(x, smul(p, alpha));
            let r1 = sub(r, smul(ap, alpha));
            let rs1 = dot(r1, r1);
            let p1 = add(r1, smul(p, rs1 / rs));
            (x1, r1, p1, rs1)
        });
        x
    }

    /// Spelling B: no prelude arithmetic: the matrix through `pad`, every vector a `build`,
    /// every dot product `sum(build(..))`, the new state written in the tuple.
    pub fn cg_b(b: [f64; n], steps: usize) -> [f64; n] {
        let state = ifold(steps, (build(n, |_| 0.0), b, b, sum(build(n, |i| b[i] * b[i]))),
            |(x, r, p, rs), _| {
                let pp = pad(p, 1, 1, 0.0);
                let ap = build(n, |i| 2.0 * pp[i + 1] - pp[i] - pp[i + 2]);
                let alpha = rs / sum(build(n, |i| p[i] * ap[i]));
                let r1 = build(n, |i| r[i] - alpha * ap[i]);
                let rs1 = sum(build(n, |i| r1[i] * r1[i]));
                let beta = rs1 / rs;
                (build(n, |i| x[i] + alpha * p[i]), r1, build(n, |i| r1[i] + beta * p[i]), rs1)
            });
        state.0
    }

    /// One CG step as a helper, its sums `ifold`s.
    fn cg_step(x: [f64; n], r: [f64; n], p: [f64; n], rs: f64)
        -> ([f64; n], [f64; n], [f64; n], f64) {
        let ap = build(n, |i| {
            let left = if i == 0 { 0.0 } else { p[i - 1] };
            let right = if i == n - 1 { 0.0 } else { p[i + 1] };
            2.0 * p[i] - left - right
        });
        let alpha = rs / ifold(n, 0.0, |t, i| t + p[i] * ap[i]);
        let r1 = map2(r, ap, |ri, ai| ri - alpha * ai);
        let rs1 = ifold(n, 0.0, |t, i| t + r1[i] * r1[i]);
        (map2(x, p, |xi, pi| xi + alpha * pi), r1, map2(r1, p, |ri, pi| ri + rs1 / rs * pi), rs1)
    }

    /// Spelling C: the step a helper, sums `ifold`s, vectors `map2`s.
    pub fn cg_c(b: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, (build(n, |_| 0.0), b, b, ifold(n, 0.0, |t, i| t + b[i] * b[i])),
            |(x, r, p, rs), _| cg_step(x, r, p, rs)).0
    }
}

/// Conjugate gradients on the 1-D Poisson matrix (tridiagonal 2, -1), n = 1000, 50 steps
/// from x = 0: an `ifold` over the state `(x, r, p, rs)`, returning x. A: prelude functions
/// and a matrix helper; B: `pad` for the matrix, `build`s and `sum(build(..))`; C: the step
/// a helper, `ifold` sums, `map2`.
pub struct CgPoisson {
    b: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 4],
    /// The hand-written variant's residual, direction and matrix-vector product.
    r: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
}

/// CG by hand: `x` from 0, `steps` steps; `r`, `p` and `ap` are workspace of `b`'s length.
pub fn cg_hand(
    x: &mut [f64],
    b: &[f64],
    steps: usize,
    r: &mut [f64],
    p: &mut [f64],
    ap: &mut [f64],
) {
    let n = b.len();
    x.fill(0.0);
    r.copy_from_slice(b);
    p.copy_from_slice(b);
    let mut rs: f64 = b.iter().map(|v| v * v).sum();
    for _ in 0..steps {
        ap[0] = 2.0 * p[0] - p[1];
        for i in 1..n - 1 {
            ap[i] = 2.0 * p[i] - p[i - 1] - p[i + 1];
        }
        ap[n - 1] = 2.0 * p[n - 1] - p[n - 2];
        let pap: f64 = p.iter().zip(ap.iter()).map(|(a, b)| a * b).sum();
        let alpha = rs / pap;
        let mut rs1 = 0.0;
        for (((xi, ri), pi), ai) in x.iter_mut().zip(r.iter_mut()).zip(p.iter()).zip(ap.iter()) {
            *xi += alpha * pi;
            *ri -= alpha * ai;
            rs1 += *ri * *ri;
        }
        let beta = rs1 / rs;
        for (pi, ri) in p.iter_mut().zip(r.iter()) {
            *pi = ri + beta * *pi;
        }
        rs = rs1;
    }
}

impl Workload for CgPoisson {
    const GROUP: &'static str = "cg_poisson";
    const SIZE: &'static str = "n = 1000, 50 steps";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = CgPoisson {
            b: Rng::new(44).vec(CG_N),
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0.0; CG_N]),
            r: vec![0.0; CG_N],
            p: vec![0.0; CG_N],
            ap: vec![0.0; CG_N],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (b, steps) = black_box((&self.b, CG_STEPS));
        cg_a(&mut self.out[0], b, steps, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (b, steps) = black_box((&self.b, CG_STEPS));
        let out = &mut self.out[K];
        match K {
            1 => cg_b(out, b, steps, &mut self.region).unwrap(),
            _ => cg_c(out, b, steps, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let (b, steps) = black_box((&self.b, CG_STEPS));
        let [.., x] = &mut self.out;
        cg_hand(x, b, steps, &mut self.r, &mut self.p, &mut self.ap);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        // The dot products add in other orders, and 50 steps carry the differences on.
        1e-9
    }
}
