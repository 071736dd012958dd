//! Folds with small array states (issue 38), each written three ways as a user would spell
//! them from the docs, beside a hand-written Rust version: Welford's mean and variance per
//! feature, Goertzel at 8 frequencies, a 6 x 6 Cholesky solve and a Kalman prediction packed
//! into one array. Spelling A is [`Variant::Fsmooth`], B and C are [`Variant::SpellingB`]
//! and [`Variant::SpellingC`]; each workload's doc says which is which. The hand-written
//! variants are plain loops over slices with fixed-size local arrays.

use super::{Rng, SPELLED, SPELLED_DYN, Variant, Workload, spelled_slot as slot};
use fsmooth::{Region, fsmooth};
use std::hint::black_box;

type M4 = [[f64; 4]; 4];
type M6 = [[f64; 6]; 6];

// ---- Welford: mean and variance of 16 features -------------------------------------------

/// Samples and features.
pub const WF_N: usize = 10_000;
pub const WF_D: usize = 16;

fsmooth! {
    /// Spelling A: a tuple-state `ifold` of two `build`s, the literal 16, the new mean
    /// `let`-bound.
    pub fn welford_a(x: [[f64; 16]; n]) -> ([f64; 16], [f64; 16]) {
        let (mean, m2) = ifold(n, (build(16, |_| 0.0), build(16, |_| 0.0)), |(mean, m2), i| {
            let k = (i + 1) as f64;
            let mean1 = build(16, |j| mean[j] + (x[i][j] - mean[j]) / k);
            (mean1, build(16, |j| m2[j] + (x[i][j] - mean[j]) * (x[i][j] - mean1[j])))
        });
        (mean, build(16, |j| m2[j] / (n as f64)))
    }

    /// One Welford update of every feature with sample `xi`, the `k`-th.
    fn welford_step(mean: [f64; d], m2: [f64; d], xi: [f64; d], k: f64)
        -> ([f64; d], [f64; d]) {
        let delta = sub(xi, mean);
        let mean1 = add(mean, map(delta, |v| v / k));
        (mean1, add(m2, emul(delta, sub(xi, mean1))))
    }

    /// Spelling B: the step a helper over the prelude (`sub`, `add`, `map`, `emul`), the
    /// size name `d`.
    pub fn welford_b(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {
        let zero = build(d, |_| 0.0);
        let (mean, m2) = ifold(n, (zero, zero), |(mean, m2), i| {
            welford_step(mean, m2, x[i], (i + 1) as f64)
        });
        (mean, map(m2, |v| v / (n as f64)))
    }

    /// Spelling C: the state one `[[f64; 16]; 2]` (mean and M2 as rows), the new state an
    /// array literal.
    pub fn welford_c(x: [[f64; 16]; n]) -> ([f64; 16], [f64; 16]) {
        let s = ifold(n, build(2, |_| build(16, |_| 0.0)), |s, i| {
            let mean1 = build(16, |j| s[0][j] + (x[i][j] - s[0][j]) / ((i + 1) as f64));
            [mean1, build(16, |j| s[1][j] + (x[i][j] - s[0][j]) * (x[i][j] - mean1[j]))]
        });
        (s[0], build(16, |j| s[1][j] / (n as f64)))
    }
}

/// Mean and population variance of each feature of 10^4 samples of 16 features, by
/// Welford's online update. A: a tuple-state `ifold` of `build`s (literal 16); B: a step
/// helper over the prelude, size name `d`; C: the state one `[[f64; 16]; 2]`.
pub struct Welford {
    x: Vec<[f64; WF_D]>,
    region: Region<'static>,
    out: [([f64; WF_D], [f64; WF_D]); 5],
}

/// Welford by hand: the mean and M2 in local arrays, one pass over the rows.
#[inline]
pub fn welford_hand(mean_out: &mut [f64; WF_D], var_out: &mut [f64; WF_D], x: &[[f64; WF_D]]) {
    let mut mean = [0.0; WF_D];
    let mut m2 = [0.0; WF_D];
    for (i, row) in x.iter().enumerate() {
        let k = (i + 1) as f64;
        for j in 0..WF_D {
            let d = row[j] - mean[j];
            mean[j] += d / k;
            m2[j] += d * (row[j] - mean[j]);
        }
    }
    let n = x.len() as f64;
    *mean_out = mean;
    for (v, m) in var_out.iter_mut().zip(&m2) {
        *v = m / n;
    }
}

/// Welford by hand over a run-time number of features `d` (spelling B's size name): the
/// mean and M2 kept in the outputs, as a Rust programmer writes the size-generic version.
#[inline]
pub fn welford_hand_dyn(mean: &mut [f64], var: &mut [f64], x: &[f64], d: usize) {
    mean.fill(0.0);
    var.fill(0.0);
    for (i, row) in x.chunks_exact(d).enumerate() {
        let k = (i + 1) as f64;
        for ((m, m2), &v) in mean.iter_mut().zip(var.iter_mut()).zip(row) {
            let delta = v - *m;
            *m += delta / k;
            *m2 += delta * (v - *m);
        }
    }
    let n = (x.len() / d) as f64;
    for v in var.iter_mut() {
        *v /= n;
    }
}

impl Workload for Welford {
    const GROUP: &'static str = "welford_1e4";
    const SIZE: &'static str = "10^4 samples of 16 features";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(3801);
        // Feature j around j, with spread 1 + j / 4: means far from 0.
        let x = (0..WF_N)
            .map(|_| std::array::from_fn(|j| j as f64 + (1.0 + j as f64 / 4.0) * rng.f64()))
            .collect();
        let mut w = Welford {
            x,
            region: Region::new(),
            out: [([0.0; WF_D], [0.0; WF_D]); 5],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED_DYN
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (m, v) = &mut self.out[0];
        welford_a(m, v, black_box(&self.x).as_flattened(), &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (m, v) = &mut self.out[K];
        let x = black_box(&self.x).as_flattened();
        match K {
            1 => welford_b(m, v, x, WF_D, &mut self.region).unwrap(),
            _ => welford_c(m, v, x, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let (m, v) = &mut self.out[3];
        welford_hand(m, v, black_box(&self.x));
    }

    #[inline]
    fn hand_dyn(&mut self) {
        let (m, v) = &mut self.out[4];
        welford_hand_dyn(m, v, black_box(&self.x).as_flattened(), black_box(WF_D));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (m, var) = &self.out[slot(v)];
        m.iter().chain(var).copied().collect()
    }

    fn tolerance() -> f64 {
        // Every spelling does the hand version's operations in its order.
        0.0
    }
}

// ---- Goertzel at 8 frequencies -------------------------------------------------------------

/// Samples, and the DFT bins (of 4096) whose power is computed.
pub const GZ_N: usize = 4096;
pub const GZ_BINS: [usize; 8] = [3, 17, 40, 100, 255, 512, 900, 1500];

fsmooth! {
    /// Spelling A: one `ifold` whose state is the tuple `(s1, s2)` of `[f32; 8]`s, the
    /// literal 8.
    pub fn goertzel_a(x: [f32; n], c: [f32; 8]) -> [f32; 8] {
        let (s1, s2) = ifold(n, (build(8, |_| 0.0f32), build(8, |_| 0.0f32)), |(s1, s2), i| {
            (build(8, |k| x[i] + c[k] * s1[k] - s2[k]), s1)
        });
        build(8, |k| s1[k] * s1[k] + s2[k] * s2[k] - c[k] * s1[k] * s2[k])
    }

    /// The power of one frequency (coefficient `c`): scalar states.
    fn goertzel_power(x: [f32; n], c: f32) -> f32 {
        let (s1, s2) = ifold(n, (0.0, 0.0), |(s1, s2), i| (x[i] + c * s1 - s2, s1));
        s1 * s1 + s2 * s2 - c * s1 * s2
    }

    /// Spelling B: a helper for one frequency, `map`ped over the coefficients (size name
    /// `m`): eight passes over the signal with scalar states.
    pub fn goertzel_b(x: [f32; n], c: [f32; m]) -> [f32; m] {
        map(c, |ck| goertzel_power(x, ck))
    }

    /// Spelling C: the state one `[f32; 16]`, s1 then s2, the new one a `concat` of the new
    /// s1 and the old s1 (a slice).
    pub fn goertzel_c(x: [f32; n], c: [f32; 8]) -> [f32; 8] {
        let s = ifold(n, build(16, |_| 0.0f32), |s, i| {
            concat(build(8, |k| x[i] + c[k] * s[k] - s[k + 8]), s[0..8])
        });
        build(8, |k| s[k] * s[k] + s[k + 8] * s[k + 8] - c[k] * s[k] * s[k + 8])
    }
}

/// Goertzel's algorithm at 8 frequencies over 4096 `f32` samples: `s = x + c s1 - s2` per
/// frequency, returning the 8 powers `s1^2 + s2^2 - c s1 s2` (f32). A: one fold, tuple state
/// of two `[f32; 8]`; B: a scalar helper `map`ped over the coefficients; C: one fold, the
/// state one `[f32; 16]` updated by `concat`.
pub struct Goertzel {
    x: Vec<f32>,
    c: [f32; 8],
    region: Region<'static>,
    out: [[f32; 8]; 4],
}

/// Goertzel by hand: the 8 pairs of states in local arrays, one pass over the signal.
#[inline]
pub fn goertzel_hand(power: &mut [f32; 8], x: &[f32], c: &[f32; 8]) {
    let mut s1 = [0.0f32; 8];
    let mut s2 = [0.0f32; 8];
    for &v in x {
        for k in 0..8 {
            let s = v + c[k] * s1[k] - s2[k];
            s2[k] = s1[k];
            s1[k] = s;
        }
    }
    for k in 0..8 {
        power[k] = s1[k] * s1[k] + s2[k] * s2[k] - c[k] * s1[k] * s2[k];
    }
}

impl Workload for Goertzel {
    const GROUP: &'static str = "goertzel_4096";
    const SIZE: &'static str = "4096 f32 samples, 8 frequencies";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(3802);
        let tau = 2.0 * std::f64::consts::PI;
        // Tones at bins 17 and 512, and noise.
        let x = (0..GZ_N)
            .map(|i| {
                let t = i as f64 / GZ_N as f64;
                ((tau * 17.0 * t).sin() + 0.5 * (tau * 512.0 * t).cos() + 0.1 * rng.f64()) as f32
            })
            .collect();
        let c = GZ_BINS.map(|b| (2.0 * (tau * b as f64 / GZ_N as f64).cos()) as f32);
        let mut w = Goertzel {
            x,
            c,
            region: Region::new(),
            out: [[0.0; 8]; 4],
        };
        super::check(&mut w);
        // The two tones stand out.
        let p = w.out[3];
        assert!(p[1] > 100.0 * p[0] && p[5] > 100.0 * p[4]);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (x, c) = black_box((&self.x, &self.c));
        goertzel_a(&mut self.out[0], x, c, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (x, c) = black_box((&self.x, &self.c));
        let out = &mut self.out[K];
        match K {
            1 => goertzel_b(out, x, c, &mut self.region).unwrap(),
            _ => goertzel_c(out, x, c, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let (x, c) = black_box((&self.x, &self.c));
        goertzel_hand(&mut self.out[3], x, c);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].iter().map(|&p| p as f64).collect()
    }

    fn tolerance() -> f64 {
        // The same f32 operations in the same order (no fused multiply-add anywhere).
        0.0
    }
}

// ---- Cholesky solve, n = 6 -----------------------------------------------------------------

fsmooth! {
    /// `U = L^T` of `a = U^T U`, row `j` of `U` per step (an in-place row update), each
    /// entry `a`'s minus the earlier terms one by one.
    fn chol_upper(a: [[f64; n]; n]) -> [[f64; n]; n] {
        ifold(n, build(n, |_| build(n, |_| 0.0)), |u, j| {
            let d = ifold(j, a[j][j], |s, k| s - u[k][j] * u[k][j]).sqrt();
            build(n, |r| if r == j {
                build(n, |c| if c < j { 0.0 } else if c == j { d } else {
                    ifold(j, a[j][c], |s, k| s - u[k][j] * u[k][c]) / d
                })
            } else {
                u[r]
            })
        })
    }

    /// Spelling A: size name `n`; the factor `U = L^T` row by row, then forward and back
    /// substitution as folds replacing one element per step, every sum subtracting term by
    /// term from its right-hand side.
    pub fn cholesky_solve_a(a: [[f64; n]; n], b: [f64; n]) -> [f64; n] {
        let u = chol_upper(a);
        let y = ifold(n, build(n, |_| 0.0), |y, i| {
            let yi = ifold(i, b[i], |s, k| s - u[k][i] * y[k]) / u[i][i];
            build(n, |r| if r == i { yi } else { y[r] })
        });
        ifold(n, build(n, |_| 0.0), |x, t| {
            let i = n - 1 - t;
            let xi = ifold(t, y[i], |s, q| s - u[i][i + 1 + q] * x[i + 1 + q]) / u[i][i];
            build(n, |r| if r == i { xi } else { x[r] })
        })
    }

    /// `L` column by column (Cholesky-Crout), each column a fold step; sums over the whole
    /// row with the terms past the diagonal zero.
    fn chol_lower6(a: [[f64; 6]; 6]) -> [[f64; 6]; 6] {
        ifold(6, build(6, |_| build(6, |_| 0.0)), |l, j| {
            let d = (a[j][j] - sum(build(6, |k| if k < j { l[j][k] * l[j][k] } else { 0.0 }))).sqrt();
            build(6, |i| build(6, |c| if c != j || i < j { l[i][c] } else if i == j { d } else {
                (a[i][j] - sum(build(6, |k| if k < j { l[i][k] * l[j][k] } else { 0.0 }))) / d
            }))
        })
    }

    fn forward6(l: [[f64; 6]; 6], b: [f64; 6]) -> [f64; 6] {
        ifold(6, build(6, |_| 0.0), |y, i| build(6, |r| if r == i {
            (b[i] - sum(build(6, |k| if k < i { l[i][k] * y[k] } else { 0.0 }))) / l[i][i]
        } else {
            y[r]
        }))
    }

    fn backward6(l: [[f64; 6]; 6], y: [f64; 6]) -> [f64; 6] {
        ifold(6, build(6, |_| 0.0), |x, t| {
            let i = 5 - t;
            build(6, |r| if r == i {
                (y[i] - sum(build(6, |k| if k > i { l[k][i] * x[k] } else { 0.0 }))) / l[i][i]
            } else {
                x[r]
            })
        })
    }

    /// Spelling B: the literal 6; `L` column by column and the two substitutions as
    /// helpers, every sum `sum(build(6, ..))` over the whole row, masked.
    pub fn cholesky_solve_b(a: [[f64; 6]; 6], b: [f64; 6]) -> [f64; 6] {
        let l = chol_lower6(a);
        backward6(l, forward6(l, b))
    }

    /// `L` row by row (Cholesky-Banachiewicz): each row an inner fold over its columns.
    fn chol_rows(a: [[f64; n]; n]) -> [[f64; n]; n] {
        ifold(n, build(n, |_| build(n, |_| 0.0)), |l, i| {
            let row = ifold(i + 1, build(n, |_| 0.0), |row, j| {
                let v = if j == i {
                    (a[i][i] - ifold(j, 0.0, |s, k| s + row[k] * row[k])).sqrt()
                } else {
                    (a[i][j] - ifold(j, 0.0, |s, k| s + row[k] * l[j][k])) / l[j][j]
                };
                build(n, |c| if c == j { v } else { row[c] })
            });
            build(n, |r| if r == i { row } else { l[r] })
        })
    }

    /// Spelling C: size name `n`; `L` row by row, sums as `ifold`s from 0, the back
    /// substitution computing `x` backwards and returned through `reverse`.
    pub fn cholesky_solve_c(a: [[f64; n]; n], b: [f64; n]) -> [f64; n] {
        let l = chol_rows(a);
        let y = ifold(n, build(n, |_| 0.0), |y, i| {
            let yi = (b[i] - ifold(i, 0.0, |s, k| s + l[i][k] * y[k])) / l[i][i];
            build(n, |r| if r == i { yi } else { y[r] })
        });
        // xr[t] = x[n - 1 - t]
        let xr = ifold(n, build(n, |_| 0.0), |xr, t| {
            let i = n - 1 - t;
            let xi = (y[i] - ifold(t, 0.0, |s, q| s + l[n - 1 - q][i] * xr[q])) / l[i][i];
            build(n, |r| if r == t { xi } else { xr[r] })
        });
        reverse(xr)
    }
}

/// Solves `A x = b` for a symmetric positive definite 6 x 6 `A` by Cholesky, `A = L L^T`,
/// then forward and back substitution. A: size name `n`, `U = L^T` row by row, sums
/// subtracting term by term; B: the literal 6, `L` column by column, helpers, masked
/// `sum(build(6, ..))`; C: size name `n`, `L` row by row by inner folds, sums from 0, the
/// back substitution backwards through `reverse`.
pub struct CholeskySolve {
    a: M6,
    b: [f64; 6],
    region: Region<'static>,
    out: [[f64; 6]; 4],
}

/// Cholesky solve by hand on stack arrays: `L` column by column, then the substitutions,
/// each sum subtracting term by term from its right-hand side.
#[inline]
pub fn cholesky_solve_hand(x: &mut [f64; 6], a: &M6, b: &[f64; 6]) {
    let mut l = [[0.0; 6]; 6];
    for j in 0..6 {
        let mut s = a[j][j];
        for k in 0..j {
            s -= l[j][k] * l[j][k];
        }
        let d = s.sqrt();
        l[j][j] = d;
        for i in j + 1..6 {
            let mut s = a[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            l[i][j] = s / d;
        }
    }
    let mut y = [0.0; 6];
    for i in 0..6 {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i][k] * y[k];
        }
        y[i] = s / l[i][i];
    }
    for i in (0..6).rev() {
        let mut s = y[i];
        for k in i + 1..6 {
            s -= l[k][i] * x[k];
        }
        x[i] = s / l[i][i];
    }
}

impl Workload for CholeskySolve {
    const GROUP: &'static str = "cholesky_solve_6";
    const SIZE: &'static str = "6 x 6 SPD";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(3803);
        // A = M M^T + 2 I, exactly symmetric.
        let m: M6 = std::array::from_fn(|_| std::array::from_fn(|_| rng.f64()));
        let mut a = [[0.0; 6]; 6];
        for i in 0..6 {
            for j in 0..=i {
                let s: f64 = (0..6).map(|k| m[i][k] * m[j][k]).sum();
                a[i][j] = s + if i == j { 2.0 } else { 0.0 };
                a[j][i] = a[i][j];
            }
        }
        let mut w = CholeskySolve {
            a,
            b: std::array::from_fn(|_| rng.f64()),
            region: Region::new(),
            out: [[0.0; 6]; 4],
        };
        super::check(&mut w);
        // The hand-written solution solves the system.
        let x = w.out[3];
        for i in 0..6 {
            let r: f64 = (0..6).map(|j| w.a[i][j] * x[j]).sum();
            assert!((r - w.b[i]).abs() < 1e-12);
        }
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (a, b): (&M6, &[f64; 6]) = black_box((&self.a, &self.b));
        cholesky_solve_a(&mut self.out[0], a.as_flattened(), b, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (a, b): (&M6, &[f64; 6]) = black_box((&self.a, &self.b));
        let out = &mut self.out[K];
        match K {
            1 => cholesky_solve_b(out, a.as_flattened(), b, &mut self.region).unwrap(),
            _ => cholesky_solve_c(out, a.as_flattened(), b, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let (a, b): (&M6, &[f64; 6]) = black_box((&self.a, &self.b));
        cholesky_solve_hand(&mut self.out[3], a, b);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].to_vec()
    }

    fn tolerance() -> f64 {
        // A does the hand version's operations in its order (exact); B and C subtract a sum
        // instead of each term (and C adds the back substitution's terms backwards): at most
        // 3e-16 apart over 2000 random systems of this kind.
        1e-14
    }
}

// ---- Kalman prediction packed into one array ----------------------------------------------

fsmooth! {
    /// Spelling A: prelude products, `let`-bound `xn` and `pn`, packed by a `build` with
    /// `if` and index arithmetic.
    pub fn kalman_packed_a(x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4],
                           q: [[f64; 4]; 4]) -> [f64; 20] {
        let xn = matvec(f, x);
        let pn = madd(matmul(matmul(f, p), transpose(f)), q);
        build(20, |i| if i < 4 { xn[i] } else { pn[(i - 4) / 4][(i - 4) % 4] })
    }

    /// Spelling B: the same products packed by the views `concat` and `join`.
    pub fn kalman_packed_b(x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4],
                           q: [[f64; 4]; 4]) -> [f64; 20] {
        concat(matvec(f, x), join(madd(matmul(matmul(f, p), transpose(f)), q)))
    }

    /// Spelling C: size name `m`, every product an `ifold` written out, `F P` and `Pn`
    /// `let`-bound, packed by `concat` and `join`. (Packed instead by
    /// `build(m + m * m, |i| if i < m { ifold(m, 0.0, |s, k| s + f[i][k] * x[k]) } else {
    /// let r = (i - m) / m; let c = (i - m) % m; ifold(m, 0.0, |s, k| s + fp[r][k] * f[c][k])
    /// + q[r][c] })`, the kernel compiles but leaves `out[m..]` unwritten: a compiler bug.)
    pub fn kalman_packed_c(x: [f64; m], p: [[f64; m]; m], f: [[f64; m]; m],
                           q: [[f64; m]; m]) -> [f64; m + m * m] {
        let fp = build(m, |r| build(m, |c| ifold(m, 0.0, |s, k| s + f[r][k] * p[k][c])));
        let pn = build(m, |r| build(m, |c| ifold(m, 0.0, |s, k| s + fp[r][k] * f[c][k]) + q[r][c]));
        concat(build(m, |i| ifold(m, 0.0, |s, k| s + f[i][k] * x[k])), join(pn))
    }
}

/// A Kalman prediction, `xn = F x` and `Pn = F P F^T + Q` for 4 states, packed into one
/// array of 20 (`xn`, then `Pn` row-major). A: prelude products, a `build` with `if`; B:
/// the same products, `concat` and `join`; C: size name `m`, `ifold` sums, `F P` and `Pn`
/// bound, `concat` and `join`.
pub struct KalmanPacked {
    x: [f64; 4],
    p: M4,
    f: M4,
    q: M4,
    region: Region<'static>,
    out: [[f64; 20]; 4],
}

/// The prediction by hand on stack arrays: `F P` into a local, then `(F P) F^T + Q`.
#[inline]
pub fn kalman_packed_hand(out: &mut [f64; 20], x: &[f64; 4], p: &M4, f: &M4, q: &M4) {
    for i in 0..4 {
        let mut s = 0.0;
        for k in 0..4 {
            s += f[i][k] * x[k];
        }
        out[i] = s;
    }
    let mut fp = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            let mut s = 0.0;
            for k in 0..4 {
                s += f[i][k] * p[k][j];
            }
            fp[i][j] = s;
        }
    }
    for i in 0..4 {
        for j in 0..4 {
            let mut s = 0.0;
            for k in 0..4 {
                s += fp[i][k] * f[j][k];
            }
            out[4 + 4 * i + j] = s + q[i][j];
        }
    }
}

impl Workload for KalmanPacked {
    const GROUP: &'static str = "kalman_packed";
    const SIZE: &'static str = "4 states: F x and F P F^T + Q in one [f64; 20]";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(3804);
        let dt = 0.1;
        let f = [
            [1.0, 0.0, dt, 0.0],
            [0.0, 1.0, 0.0, dt],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        let spd = super::tuples::spd;
        let (p, q) = (spd(&mut rng, 1.0, 1.0), spd(&mut rng, 0.01, 0.001));
        let mut w = KalmanPacked {
            x: std::array::from_fn(|_| rng.f64()),
            p,
            f,
            q,
            region: Region::new(),
            out: [[0.0; 20]; 4],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (x, p, f, q): (&[f64; 4], &M4, &M4, &M4) =
            black_box((&self.x, &self.p, &self.f, &self.q));
        let (p, f, q) = (p.as_flattened(), f.as_flattened(), q.as_flattened());
        kalman_packed_a(&mut self.out[0], x, p, f, q, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (x, p, f, q): (&[f64; 4], &M4, &M4, &M4) =
            black_box((&self.x, &self.p, &self.f, &self.q));
        let (p, f, q) = (p.as_flattened(), f.as_flattened(), q.as_flattened());
        let out = &mut self.out[K];
        match K {
            1 => kalman_packed_b(out, x, p, f, q, &mut self.region).unwrap(),
            _ => kalman_packed_c(out, x, p, f, q, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let (x, p, f, q): (&[f64; 4], &M4, &M4, &M4) =
            black_box((&self.x, &self.p, &self.f, &self.q));
        kalman_packed_hand(&mut self.out[3], x, p, f, q);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].to_vec()
    }

    fn tolerance() -> f64 {
        // Every sum adds its terms in the hand version's order.
        0.0
    }
}

// ---- Gauss-Seidel sweeps ------------------------------------------------------------------

/// Grid points and sweeps.
pub const GS_N: usize = 1_000;
pub const GS_SWEEPS: usize = 20;

fsmooth! {
    /// Spelling A: the sweeps as a fold whose step is a fold over the points started from
    /// the state, one point replaced per step (`j == i`).
    pub fn gauss_seidel_a(f: [f64; n], h2: f64, sweeps: usize) -> [f64; n] {
        ifold(sweeps, build(n, |_| 0.0), |u, _| ifold(n, u, |v, i| {
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < n { v[i + 1] } else { 0.0 };
            let nv = 0.5 * (l + r + h2 * f[i]);
            build(n, |j| if j == i { nv } else { v[j] })
        }))
    }

    /// Spelling B: one flat fold over `sweeps * n` steps, the point `t % n`.
    pub fn gauss_seidel_b(f: [f64; n], h2: f64, sweeps: usize) -> [f64; n] {
        ifold(sweeps * n, build(n, |_| 0.0), |v, t| {
            let i = t % n;
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < n { v[i + 1] } else { 0.0 };
            build(n, |j| if j != i { v[j] } else { 0.5 * (l + r + h2 * f[i]) })
        })
    }

    /// One sweep as a helper.
    fn gs_sweep(u: [f64; n], f: [f64; n], h2: f64) -> [f64; n] {
        ifold(n, u, |v, i| {
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            let r = if i + 1 < n { v[i + 1] } else { 0.0 };
            build(n, |j| if j == i { 0.5 * (l + r + h2 * f[i]) } else { v[j] })
        })
    }

    /// Spelling C: the sweep a helper, `ifold`ed.
    pub fn gauss_seidel_c(f: [f64; n], h2: f64, sweeps: usize) -> [f64; n] {
        ifold(sweeps, build(n, |_| 0.0), |u, _| gs_sweep(u, f, h2))
    }
}

/// Gauss-Seidel for `-u'' = f` on 1,000 points (zero ends), 20 sweeps: A nested folds, the
/// inner one started from the state; B one flat fold over `t % n`; C the sweep a helper.
pub struct GaussSeidel {
    f: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 4],
}

/// Gauss-Seidel by hand: the sweeps over one array, in place.
#[inline]
pub fn gauss_seidel_hand(u: &mut [f64], f: &[f64], h2: f64, sweeps: usize) {
    let n = u.len();
    u.fill(0.0);
    for _ in 0..sweeps {
        for i in 0..n {
            let l = if i > 0 { u[i - 1] } else { 0.0 };
            let r = if i + 1 < n { u[i + 1] } else { 0.0 };
            u[i] = 0.5 * (l + r + h2 * f[i]);
        }
    }
}

const GS_H2: f64 = 1e-6;

impl Workload for GaussSeidel {
    const GROUP: &'static str = "gauss_seidel_1e3";
    const SIZE: &'static str = "1,000 points, 20 sweeps";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(2207);
        let f = (0..GS_N).map(|_| rng.f64() - 0.5).collect();
        let mut w = GaussSeidel {
            f,
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0.0; GS_N]),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let f = black_box(&self.f);
        gauss_seidel_a(&mut self.out[0], f, GS_H2, GS_SWEEPS, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let f = black_box(&self.f);
        let out = &mut self.out[K];
        match K {
            1 => gauss_seidel_b(out, f, GS_H2, GS_SWEEPS, &mut self.region).unwrap(),
            _ => gauss_seidel_c(out, f, GS_H2, GS_SWEEPS, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        gauss_seidel_hand(&mut self.out[3], black_box(&self.f), GS_H2, GS_SWEEPS);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        // The same operations in the same order.
        0.0
    }
}
