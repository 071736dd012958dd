//! Stencils with boundaries (issue 21): a 1-D Jacobi iteration whose two ends stay fixed,
//! 10 steps over 1,000 points, and a 3 x 3 filter whose borders repeat the edge pixels
//! (clamped indexes) over a 256 x 256 image.

use super::{Rng, Variant, Workload, respelled};
use fsmooth::Region;
use std::hint::black_box;

fsmooth::fsmooth! {
    /// `steps` Jacobi sweeps: each inner point becomes the mean of itself and its two
    /// neighbours, the ends stay as they are.
    pub fn jacobi(a0: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, a0, |a, _t| build(n, |i| {
            if i == 0 || i == n - 1 { a[i] } else { (a[i - 1] + a[i] + a[i + 1]) / 3.0 }
        }))
    }

    /// A 3 x 3 filter with weights `k`; a neighbour outside the image is the nearest edge
    /// pixel (`(y + dy).clamp(1, h) - 1` is `y + dy - 1` kept in `0..h`).
    pub fn filter_clamped(img: [[f64; w]; h], k: [[f64; 3]; 3], w: usize) -> [[f64; w]; h] {
        build(h, |y| build(w, |x| {
            ifold(3, 0.0, |acc, dy| ifold(3, acc, |acc, dx| {
                acc + k[dy][dx] * img[(y + dy).clamp(1, h) - 1][(x + dx).clamp(1, w) - 1]
            }))
        }))
    }
}

/// The clamped filter by hand: the three source rows of each output row clamped once, the
/// first and last columns apart, the interior by windows; the terms added in the kernel's
/// order (row by row, from 0.0), so the results are equal to the bit.
#[inline]
pub fn filter_clamped_hand(out: &mut [f64], img: &[f64], w: usize, k: &[[f64; 3]; 3]) {
    let h = img.len() / w;
    for (y, orow) in out.chunks_exact_mut(w).enumerate() {
        let rows = [y.max(1) - 1, y, (y + 1).min(h - 1)].map(|r| &img[r * w..(r + 1) * w]);
        let pixel = |x: usize| {
            let mut s = 0.0;
            for (row, kr) in rows.iter().zip(k) {
                for (dx, kv) in kr.iter().enumerate() {
                    s += kv * row[(x + dx).clamp(1, w) - 1];
                }
            }
            s
        };
        if w < 3 {
            for (x, o) in orow.iter_mut().enumerate() {
                *o = pixel(x);
            }
            continue;
        }
        orow[0] = pixel(0);
        orow[w - 1] = pixel(w - 1);
        let [r0, r1, r2] = rows;
        for (((o, a), b), c) in orow[1..w - 1]
            .iter_mut()
            .zip(r0.windows(3))
            .zip(r1.windows(3))
            .zip(r2.windows(3))
        {
            *o = 0.0
                + k[0][0] * a[0]
                + k[0][1] * a[1]
                + k[0][2] * a[2]
                + k[1][0] * b[0]
                + k[1][1] * b[1]
                + k[1][2] * b[2]
                + k[2][0] * c[0]
                + k[2][1] * c[1]
                + k[2][2] * c[2];
        }
    }
}

/// The same by hand: two buffers in turn, the ends apart, the interior by windows.
#[inline]
pub fn jacobi_hand(out: &mut [f64], a0: &[f64], steps: usize, other: &mut [f64]) {
    let n = a0.len();
    out.copy_from_slice(a0);
    if n < 3 {
        return;
    }
    // `out` holds the state after an even number of sweeps, `other` after an odd one.
    let (mut cur, mut nxt) = (out, other);
    for _ in 0..steps {
        nxt[0] = cur[0];
        nxt[n - 1] = cur[n - 1];
        for (o, w) in nxt[1..n - 1].iter_mut().zip(cur.windows(3)) {
            *o = (w[0] + w[1] + w[2]) / 3.0;
        }
        std::mem::swap(&mut cur, &mut nxt);
    }
    if steps % 2 == 1 {
        nxt.copy_from_slice(cur);
    }
}

/// Points of [`Jacobi`].
pub const JACOBI_N: usize = 1_000;
/// Sweeps of [`Jacobi`].
pub const JACOBI_STEPS: usize = 10;

/// fsmooth, hand-written and the other two spellings (`respelled`).
const VARIANTS: [Variant; 4] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::SpellingB,
    Variant::SpellingC,
];

/// The slot of variant `v`'s result.
fn slot(v: Variant) -> usize {
    VARIANTS.iter().position(|s| *s == v).unwrap()
}

/// Jacobi 1-D, fixed ends, `JACOBI_STEPS` sweeps over `JACOBI_N` points.
pub struct Jacobi {
    a0: Vec<f64>,
    region: Region<'static>,
    other: Vec<f64>,
    out: [Vec<f64>; 4],
}

impl Workload for Jacobi {
    const GROUP: &'static str = "jacobi_1e3";
    const SIZE: &'static str = "n = 1,000, 10 sweeps";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Jacobi {
            a0: Rng::new(31).vec(JACOBI_N),
            region: Region::new(),
            other: vec![0.0; JACOBI_N],
            out: [(); 4].map(|_| vec![0.0; JACOBI_N]),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &VARIANTS
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (out, a0, steps) = black_box((&mut self.out[0], &self.a0, JACOBI_STEPS));
        jacobi(out, a0, steps, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, a0, steps) = black_box((&mut self.out[1], &self.a0, JACOBI_STEPS));
        jacobi_hand(out, a0, steps, &mut self.other);
    }

    /// B: the fixed ends and the windows by views (`concat`, `slide`); C: the inner points
    /// tested first, the window a slice, a helper per sweep (`respelled::jacobi_b`,
    /// `jacobi_c`).
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, a0, steps) = black_box((&mut self.out[1 + K], &self.a0, JACOBI_STEPS));
        let kernel = match K {
            1 => respelled::jacobi_b,
            _ => respelled::jacobi_c,
        };
        kernel(out, a0, steps, &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// Image side of [`FilterClamped`].
pub const CLAMPED_SIDE: usize = 256;

/// A 3 x 3 filter (weights 1 2 1 / 2 4 2 / 1 2 1, over 16) with clamped borders on a 256 x
/// 256 image.
pub struct FilterClamped {
    img: Vec<f64>,
    k: [[f64; 3]; 3],
    region: Region<'static>,
    out: [Vec<f64>; 4],
}

impl Workload for FilterClamped {
    const GROUP: &'static str = "filter_clamped_256";
    const SIZE: &'static str = "256 x 256 image, clamped borders";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let n = CLAMPED_SIDE * CLAMPED_SIDE;
        let k = [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]].map(|r| r.map(|v| v / 16.0));
        let mut w = FilterClamped {
            img: Rng::new(37).vec(n),
            k,
            region: Region::new(),
            out: [(); 4].map(|_| vec![0.0; n]),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &VARIANTS
    }

    #[inline]
    fn fsmooth(&mut self) {
        // The width at run time, as in `filter3x3_256`.
        let (out, img, w, k) = black_box((&mut self.out[0], &self.img, CLAMPED_SIDE, &self.k));
        filter_clamped(out, img, k.as_flattened(), w, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, img, w, k) = black_box((&mut self.out[1], &self.img, CLAMPED_SIDE, &self.k));
        filter_clamped_hand(out, img, w, k);
    }

    /// B: the three source rows bound to names by `min` and `max`, the nine terms written
    /// out; C: the neighbour's indexes clamped by `if` tests (`respelled::filter_clamped_b`,
    /// `filter_clamped_c`).
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, img, w, k) = black_box((&mut self.out[1 + K], &self.img, CLAMPED_SIDE, &self.k));
        let kernel = match K {
            1 => respelled::filter_clamped_b,
            _ => respelled::filter_clamped_c,
        };
        kernel(out, img, k.as_flattened(), w, &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}
