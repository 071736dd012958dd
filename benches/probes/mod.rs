//! Code-generation probes: loops transcribed from the code `fsmooth!` generated for the
//! benchmark kernels (at the commit docs/BENCHMARKS.md names), each beside the same
//! computation in another loop shape that gives bit-identical results. Their instruction
//! counts show what a change of shape in the code generator would buy. They go stale when
//! the generator changes: regenerate with `FSRC=.. cargo test -p fsmooth-core --test
//! expand_debug -- --nocapture`.

// Counted loops on purpose: clippy's suggested `iter_mut().enumerate()` is the shape whose
// cost these probes measure.
#![allow(clippy::needless_range_loop)]

use fsmooth::__rt::{self as rt, ld, st};
use std::hint::black_box;

/// The blur's first pass as generated: the destination row cut once, product indices
/// `y * w + x + k` into `img`.
#[inline(never)]
pub fn blur_pass_generated(scratch: &mut [f64], img: &[f64], w: usize, h: usize) {
    let Some(w2) = w.checked_sub(2) else { return };
    if img.len() != h * w || scratch.len() != h * w2 {
        return;
    }
    for y in 0..h {
        if let Some(d) = scratch.get_mut(y.wrapping_mul(w2)..y.wrapping_mul(w2).wrapping_add(w2)) {
            for (x, slot) in (0..w2).zip(d.iter_mut()) {
                *slot = ld(img, y.wrapping_mul(w).wrapping_add(x))
                    + ld(img, y.wrapping_mul(w).wrapping_add(x.wrapping_add(1)))
                    + ld(img, y.wrapping_mul(w).wrapping_add(x.wrapping_add(2)));
            }
        }
    }
}

/// The same pass with the source row cut once per row, as the destination row already is,
/// and a counted loop.
#[inline(never)]
pub fn blur_pass_rows_cut(scratch: &mut [f64], img: &[f64], w: usize, h: usize) {
    let Some(w2) = w.checked_sub(2) else { return };
    if img.len() != h * w || scratch.len() != h * w2 {
        return;
    }
    for y in 0..h {
        let rows = (
            scratch.get_mut(y * w2..y * w2 + w2),
            img.get(y * w..y * w + w),
        );
        if let (Some(d), Some(row)) = rows {
            for x in 0..d.len() {
                d[x] = ld(row, x) + ld(row, x + 1) + ld(row, x + 2);
            }
        }
    }
}

/// One n x n product as generated for `matmul`: i-j-k, a dot product per element, product
/// indices into both operands.
#[inline(never)]
pub fn matmul_generated(c: &mut [f64], a: &[f64], b: &[f64], n: usize) {
    if a.len() != n * n || b.len() != n * n || c.len() != n * n {
        return;
    }
    for i in 0..n {
        if let Some(d) = c.get_mut(i.wrapping_mul(n)..i.wrapping_mul(n).wrapping_add(n)) {
            for (j, slot) in (0..n).zip(d.iter_mut()) {
                let mut acc = 0.0;
                for k in 0..n {
                    acc += ld(a, i.wrapping_mul(n).wrapping_add(k))
                        * ld(b, k.wrapping_mul(n).wrapping_add(j));
                }
                *slot = acc;
            }
        }
    }
}

/// The same product with the j and k loops interchanged and rows cut once: every c[i][j]
/// still sums its k terms in the same order from 0.0, so every bit is the same, and the
/// inner loop runs along contiguous rows.
#[inline(never)]
pub fn matmul_interchanged(c: &mut [f64], a: &[f64], b: &[f64], n: usize) {
    if a.len() != n * n || b.len() != n * n || c.len() != n * n {
        return;
    }
    for i in 0..n {
        if let (Some(d), Some(arow)) = (c.get_mut(i * n..i * n + n), a.get(i * n..i * n + n)) {
            for j in 0..d.len() {
                d[j] = 0.0;
            }
            for k in 0..arow.len() {
                let aik = arow[k];
                if let Some(brow) = b.get(k * n..k * n + n) {
                    for j in 0..d.len() {
                        d[j] += aik * ld(brow, j);
                    }
                }
            }
        }
    }
}

/// `sqnorm(q_times(icf_k, xc))` of the GMM kernel as generated: the strictly lower index
/// `d + c * (2 * d - c - 1) / 2 + (j - c - 1)` in checked arithmetic in the innermost loop.
#[inline(never)]
pub fn qtimes_generated(icf_k: &[f64], xc: &[f64]) -> Result<f64, fsmooth::Error> {
    let d = xc.len();
    let z2 = rt::div_exact(rt::mul(d, rt::add(d, 1, "")?, "")?, 2, "")?;
    if icf_k.len() != z2 {
        return Ok(0.0);
    }
    let mut acc = 0.0;
    for j in 0..d {
        let mut a = rt::exp(ld(icf_k, rt::check(j, z2)?)) * ld(xc, j);
        for c in 0..j {
            let col = rt::div(
                rt::mul(c, rt::sub(rt::sub(rt::mul(2, d, "")?, c, "")?, 1, "")?, "")?,
                2,
                "",
            )?;
            let row = rt::sub(rt::sub(j, c, "")?, 1, "")?;
            let idx = rt::add(rt::add(d, col, "")?, row, "")?;
            a += ld(icf_k, rt::check(idx, z2)?) * ld(xc, rt::check(c, d)?);
        }
        acc += a * a;
    }
    Ok(acc)
}

/// The same sums in the same order, the strictly lower index kept as a running offset.
#[inline(never)]
pub fn qtimes_running_index(icf_k: &[f64], xc: &[f64]) -> Result<f64, fsmooth::Error> {
    let d = xc.len();
    if icf_k.len() != d * (d + 1) / 2 {
        return Ok(0.0);
    }
    let (diag, lower) = icf_k.split_at(d);
    let mut acc = 0.0;
    for j in 0..d {
        let mut a = rt::exp(diag[j]) * xc[j];
        // Column c starts at c (2d - c - 1) / 2 in `lower`; row j is j - c - 1 below its top.
        let mut idx = j.wrapping_sub(1);
        for c in 0..j {
            a += lower[idx] * xc[c];
            idx += d - c - 2;
        }
        acc += a * a;
    }
    Ok(acc)
}

/// The product with the columns in tiles of 16 whose sums stay in locals over the whole k
/// loop (then 4, then 1: not needed at n = 64), each row segment of b cut once per k: the
/// shape `dps`'s tiles generate. Same sums in the same order as the two above.
#[inline(never)]
pub fn matmul_tiled(c: &mut [f64], a: &[f64], b: &[f64], n: usize) {
    const T: usize = 16;
    if a.len() != n * n || b.len() != n * n || c.len() != n * n {
        return;
    }
    for i in 0..n {
        let Some(arow) = a.get(i * n..i * n + n) else {
            continue;
        };
        for jb in 0..n / T {
            let j0 = jb * T;
            let mut t = [0.0f64; T];
            for (k, aik) in arow.iter().enumerate() {
                for (j, tj) in t.iter_mut().enumerate() {
                    *tj += aik * rt::ldr::<T>(b, k * n + j0, j);
                }
            }
            if let Some(d) = c.get_mut(i * n + j0..i * n + j0 + T) {
                d.copy_from_slice(&t);
            }
        }
    }
}

/// A matrix-vector product (64 x 256, the layer's) one dot product per row, as generated
/// before `dps`'s jam: each row's additions one chain.
#[inline(never)]
pub fn matvec_one_row(y: &mut [f64], w: &[f64], x: &[f64]) {
    let m = x.len();
    if w.len() != y.len() * m {
        return;
    }
    for (i, yi) in (0..y.len()).zip(y.iter_mut()) {
        let mut acc = -0.0;
        if let Some(row) = w.get(i.wrapping_mul(m)..i.wrapping_mul(m).wrapping_add(m)) {
            for (l, wil) in (0..m).zip(row.iter()) {
                acc += wil * ld(x, l);
            }
        }
        *yi = acc;
    }
}

/// The same four rows at a time (the jam's shape in finding 14, before it took eight at a
/// time; 64 rows leave none over): four chains in one loop, each row's additions in the same
/// order.
#[inline(never)]
pub fn matvec_four_rows(y: &mut [f64], w: &[f64], x: &[f64]) {
    let m = x.len();
    if w.len() != y.len() * m {
        return;
    }
    for q in 0..y.len() / 4 {
        let r = q * 4;
        let mut acc = [-0.0f64; 4];
        let rows = (
            w.get(r * m..r * m + m),
            w.get((r + 1) * m..(r + 1) * m + m),
            w.get((r + 2) * m..(r + 2) * m + m),
            w.get((r + 3) * m..(r + 3) * m + m),
        );
        if let (Some(r0), Some(r1), Some(r2), Some(r3)) = rows {
            for ((((l, a), b), c), d) in (0..m).zip(r0).zip(r1).zip(r2).zip(r3) {
                let xl = ld(x, l);
                acc[0] += a * xl;
                acc[1] += b * xl;
                acc[2] += c * xl;
                acc[3] += d * xl;
            }
        }
        for (t, v) in acc.into_iter().enumerate() {
            st(y, r + t, v);
        }
    }
}

/// One GMM objective's `q_times` (5,000 point-component pairs, d = 10) with `exp` of the
/// diagonal computed per pair, as in the kernel before `hoist`.
#[inline(never)]
pub fn qtimes_exp_per_point(icf: &[f64], xc: &[f64]) -> f64 {
    let mut total = 0.0;
    for _ in 0..1000 {
        for c in 0..5 {
            let row = icf.get(c * 55..c * 55 + 55).unwrap_or(&[]);
            let diag: [f64; 10] = core::array::from_fn(|j| rt::exp(ld(row, j)));
            total += qtimes_with_diag(row, &diag, xc);
        }
    }
    total
}

/// The same with the diagonal's `exp` computed once per component, before the loop over
/// points (the table `hoist` makes).
#[inline(never)]
pub fn qtimes_exp_hoisted(icf: &[f64], xc: &[f64]) -> f64 {
    let table: [[f64; 10]; 5] = core::array::from_fn(|c| {
        let row = icf.get(c * 55..c * 55 + 55).unwrap_or(&[]);
        core::array::from_fn(|j| rt::exp(ld(row, j)))
    });
    let mut total = 0.0;
    for _ in 0..1000 {
        for (c, diag) in table.iter().enumerate() {
            let row = icf.get(c * 55..c * 55 + 55).unwrap_or(&[]);
            total += qtimes_with_diag(row, black_box(diag), xc);
        }
    }
    total
}

/// `sqnorm(q_times(icf_k, xc))` given `exp` of the diagonal (`icf_k` packed, d = 10).
#[inline(always)]
fn qtimes_with_diag(icf_k: &[f64], diag: &[f64; 10], xc: &[f64]) -> f64 {
    let d = 10;
    let lower = icf_k.get(d..).unwrap_or(&[]);
    let mut acc = 0.0;
    for j in 0..d {
        let mut a = diag[j] * ld(xc, j);
        let mut idx = j.wrapping_sub(1);
        for c in 0..j {
            a += ld(lower, idx) * ld(xc, c);
            idx = idx.wrapping_add(d - c - 2);
        }
        acc += a * a;
    }
    acc
}

/// The size and frame of triangle probe `name`, `d` through `black_box`.
fn triangle<'a>(tri: &'a mut [Vec<f64>; 2], name: &str) -> (usize, &'a mut [f64]) {
    let k = usize::from(name.starts_with("gmm_d10"));
    (black_box([2, 10][k]), &mut tri[k])
}

/// `sqnorm(q_times(icf_k, xc))` for one point-component pair, as the kernel computes it
/// since finding 18: `frame` holds the `exp` table's row (`d` slots) then `xc` (`d`); each
/// element `j` is one fold over `c < j`, `xc[..j]` cut once per `j`, the packed index
/// computed and its load checked per term.
#[inline(never)]
pub fn triangle_by_rows(icf_k: &[f64], frame: &[f64], d: usize) -> f64 {
    let mut acc = -0.0f64;
    for j in 0..d {
        let mut a = ld(frame, j) * ld(frame, d + j);
        if let Some(xs) = frame.get(d..d.wrapping_add(j)) {
            for (c, x) in (0..j).zip(xs) {
                let at = d + c.wrapping_mul(2 * d - c - 1) / 2 + (j - c - 1);
                a += ld(icf_k, at) * *x;
            }
        }
        acc += a * a;
    }
    acc
}

/// The same by columns, the triangle interchanged: every element starts as its diagonal
/// term, then for each `c` the elements after it add column `c` of the packed triangle
/// (contiguous) times `xc[c]`, the frame split so that the elements (from slot `2 d`) can
/// be written while the table and `xc` are read; then the squares are summed. Each element
/// adds its terms in the same order.
#[inline(never)]
pub fn triangle_by_columns(icf_k: &[f64], frame: &mut [f64], d: usize) -> f64 {
    let Some(lower) = icf_k.get(d..) else {
        return 0.0;
    };
    let (lo, hi) = frame.split_at_mut((2 * d).min(frame.len()));
    if let (Some(v), Some(t), Some(x)) = (hi.get_mut(..d), lo.get(..d), lo.get(d..2 * d)) {
        for ((v, t), x) in v.iter_mut().zip(t).zip(x) {
            *v = *t * *x;
        }
    }
    let mut off = 0usize;
    for c in 0..d {
        let m = d - c - 1;
        let xc = ld(lo, d + c);
        if let (Some(v), Some(l)) = (hi.get_mut(c + 1..c + 1 + m), lower.get(off..off + m)) {
            for (v, l) in v.iter_mut().zip(l) {
                *v += *l * xc;
            }
        }
        off = off.wrapping_add(m);
    }
    let mut acc = -0.0f64;
    if let Some(v) = hi.get(..d) {
        for x in v {
            acc += *x * *x;
        }
    }
    acc
}

/// Per call of a kernel whose frame is 92 slots (the Kalman step): `Region::frame`.
#[inline(never)]
pub fn frame_92(region: &mut fsmooth::Region) {
    let f = region.frame(92).unwrap();
    st(f, 0, 1.0);
    black_box(f);
}

/// The probes, in pairs (generated shape, other shape), with the calls per measured run.
pub const PROBES: [(&str, u64); 16] = [
    ("blur_pass_generated", 10),
    ("blur_pass_rows_cut", 10),
    ("matmul64_generated", 10),
    ("matmul64_interchanged", 10),
    ("matmul64_tiled", 10),
    ("matvec_one_row", 20),
    ("matvec_four_rows", 20),
    ("gmm_d10_qtimes_exp_per_point", 2),
    ("gmm_d10_qtimes_exp_hoisted", 2),
    ("gmm_d10_qtimes_generated", 2),
    ("gmm_d10_qtimes_running_index", 2),
    ("gmm_d2_triangle_by_rows", 2),
    ("gmm_d2_triangle_by_columns", 2),
    ("gmm_d10_triangle_by_rows", 2),
    ("gmm_d10_triangle_by_columns", 2),
    ("region_frame_92", 2000),
];

/// Inputs for the probes.
pub struct Inputs {
    img: Vec<f64>,
    s: Vec<f64>,
    m: [Vec<f64>; 2],
    c: Vec<f64>,
    icf: Vec<f64>,
    xc: Vec<f64>,
    region: fsmooth::Region<'static>,
    /// The layer's weights (64 x 256), input and output.
    w: Vec<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    /// Five components' packed rows (d = 10).
    icf5: Vec<f64>,
    /// Frames for the triangle probes: `exp` table row and `xc`, then `d` more slots.
    tri: [Vec<f64>; 2],
}

const N: usize = 64;
const W: usize = 256;

impl Inputs {
    pub fn new() -> Inputs {
        let mut rng = crate::workloads::Rng::new(9);
        Inputs {
            img: rng.vec(W * W),
            s: vec![0.0; W * (W - 2)],
            m: [rng.vec(N * N), rng.vec(N * N)],
            c: vec![0.0; N * N],
            icf: rng.vec(55),
            xc: rng.vec(10),
            region: fsmooth::Region::new(),
            w: rng.vec(64 * 256),
            x: rng.vec(256),
            y: vec![0.0; 64],
            icf5: rng.vec(5 * 55),
            tri: [rng.vec(3 * 2), rng.vec(3 * 10)],
        }
    }

    /// `iters` runs of probe `name`; a GMM probe run is one objective's worth (5,000
    /// point-component pairs).
    pub fn run(&mut self, name: &str, iters: u64) {
        // Sizes through `black_box`, so that the probes are not specialised to constants.
        let (n, w) = (black_box(N), black_box(W));
        let [ma, mb] = &self.m;
        for _ in 0..iters {
            match name {
                "blur_pass_generated" => {
                    blur_pass_generated(black_box(&mut self.s), black_box(&self.img), w, w)
                }
                "blur_pass_rows_cut" => {
                    blur_pass_rows_cut(black_box(&mut self.s), black_box(&self.img), w, w)
                }
                "matmul64_generated" => matmul_generated(black_box(&mut self.c), ma, mb, n),
                "matmul64_interchanged" => matmul_interchanged(black_box(&mut self.c), ma, mb, n),
                "gmm_d10_qtimes_generated" => {
                    for _ in 0..5000 {
                        black_box(qtimes_generated(black_box(&self.icf), &self.xc).unwrap());
                    }
                }
                "gmm_d10_qtimes_running_index" => {
                    for _ in 0..5000 {
                        black_box(qtimes_running_index(black_box(&self.icf), &self.xc).unwrap());
                    }
                }
                "matmul64_tiled" => matmul_tiled(black_box(&mut self.c), ma, mb, n),
                "matvec_one_row" => matvec_one_row(black_box(&mut self.y), &self.w, &self.x),
                "matvec_four_rows" => matvec_four_rows(black_box(&mut self.y), &self.w, &self.x),
                "gmm_d10_qtimes_exp_per_point" => {
                    black_box(qtimes_exp_per_point(black_box(&self.icf5), &self.xc));
                }
                "gmm_d10_qtimes_exp_hoisted" => {
                    black_box(qtimes_exp_hoisted(black_box(&self.icf5), &self.xc));
                }
                "gmm_d2_triangle_by_rows" | "gmm_d10_triangle_by_rows" => {
                    let (d, f) = triangle(&mut self.tri, name);
                    for _ in 0..5000 {
                        black_box(triangle_by_rows(black_box(&self.icf), f, d));
                    }
                }
                "gmm_d2_triangle_by_columns" | "gmm_d10_triangle_by_columns" => {
                    let (d, f) = triangle(&mut self.tri, name);
                    for _ in 0..5000 {
                        black_box(triangle_by_columns(black_box(&self.icf), f, d));
                    }
                }
                "region_frame_92" => frame_92(&mut self.region),
                _ => panic!("no probe {name}"),
            }
        }
    }

    /// Checks that each pair computes the same bits, and the generated shapes what the
    /// kernels compute.
    pub fn check(&mut self) {
        let (mut s1, mut s2) = (self.s.clone(), self.s.clone());
        blur_pass_generated(&mut s1, &self.img, W, W);
        blur_pass_rows_cut(&mut s2, &self.img, W, W);
        assert!(same(&s1, &s2));

        let [ma, mb] = &self.m;
        let (mut c1, mut c2) = (self.c.clone(), self.c.clone());
        matmul_generated(&mut c1, ma, mb, N);
        matmul_interchanged(&mut c2, ma, mb, N);
        let eye: Vec<f64> = (0..N * N)
            .map(|k| if k / N == k % N { 1.0 } else { 0.0 })
            .collect();
        let mut c3 = self.c.clone();
        crate::workloads::kernels::chain(&mut c3, ma, mb, &eye, &mut self.region).unwrap();
        assert!(same(&c1, &c2) && same(&c1, &c3));

        let mut c4 = self.c.clone();
        matmul_tiled(&mut c4, ma, mb, N);
        assert!(same(&c2, &c4));

        let (mut y1, mut y2) = (self.y.clone(), self.y.clone());
        matvec_one_row(&mut y1, &self.w, &self.x);
        matvec_four_rows(&mut y2, &self.w, &self.x);
        assert!(same(&y1, &y2));

        let (h1, h2) = (
            qtimes_exp_per_point(&self.icf5, &self.xc),
            qtimes_exp_hoisted(&self.icf5, &self.xc),
        );
        assert_eq!(h1.to_bits(), h2.to_bits());

        let q1 = qtimes_generated(&self.icf, &self.xc).unwrap();
        let q2 = qtimes_running_index(&self.icf, &self.xc).unwrap();
        assert_eq!(q1.to_bits(), q2.to_bits());

        for d in [2, 10] {
            let (_, f) = triangle(&mut self.tri, if d == 2 { "gmm_d2" } else { "gmm_d10" });
            let r = triangle_by_rows(&self.icf, f, d);
            assert_eq!(r.to_bits(), triangle_by_columns(&self.icf, f, d).to_bits());
        }
    }
}

fn same(x: &[f64], y: &[f64]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
}
