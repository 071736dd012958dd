//! Layout views: a concat of two maps as a result, a zero-padded 3-point moving average
//! (`pad` and `slide` read as sources) and a zero-padded 3x3 filter over a 256 x 256 image.

use super::tuples::slot;
use super::{Rng, Variant, WITH_NO_VIEWS, Workload, kernels_v2 as k2};
use fsmooth::Region;
use std::hint::black_box;

/// `out = [2 a + 1, b * b]`, the two parts one after the other.
#[inline]
pub fn concat_maps_hand(out: &mut [f64], a: &[f64], b: &[f64]) {
    let (lo, hi) = out.split_at_mut(a.len());
    for (o, &v) in lo.iter_mut().zip(a) {
        *o = 2.0 * v + 1.0;
    }
    for (o, &v) in hi.iter_mut().zip(b) {
        *o = v * v;
    }
}

/// 3-point moving average with zero edges: the two edges apart, windows in between.
#[inline]
pub fn smooth3_hand(out: &mut [f64], a: &[f64]) {
    let n = a.len();
    if n < 2 {
        if let (Some(o), Some(&v)) = (out.first_mut(), a.first()) {
            *o = v / 3.0;
        }
        return;
    }
    out[0] = (a[0] + a[1]) / 3.0;
    for (o, w) in out[1..n - 1].iter_mut().zip(a.windows(3)) {
        *o = (w[0] + w[1] + w[2]) / 3.0;
    }
    out[n - 1] = (a[n - 2] + a[n - 1]) / 3.0;
}

/// A 3x3 filter with weights `k` over a `w`-wide row-major image padded with zeros. Row by
/// row: each output row adds, for each of the three source rows that exist, that row
/// filtered by one row of `k` (the first and last columns apart, windows in between).
#[inline]
pub fn filter3x3_hand(out: &mut [f64], img: &[f64], w: usize, k: &[[f64; 3]; 3]) {
    let h = img.len() / w;
    for (y, orow) in out.chunks_exact_mut(w).enumerate() {
        orow.fill(0.0);
        for (dy, kr) in k.iter().enumerate() {
            // Source row y + dy - 1, if inside the image.
            let Some(sy) = (y + dy).checked_sub(1).filter(|&sy| sy < h) else {
                continue;
            };
            let src = &img[sy * w..(sy + 1) * w];
            if w == 1 {
                orow[0] += kr[1] * src[0];
                continue;
            }
            orow[0] += kr[1] * src[0] + kr[2] * src[1];
            for (o, s) in orow[1..w - 1].iter_mut().zip(src.windows(3)) {
                *o += kr[0] * s[0] + kr[1] * s[1] + kr[2] * s[2];
            }
            orow[w - 1] += kr[0] * src[w - 2] + kr[1] * src[w - 1];
        }
    }
}

/// `concat(map(a, f), map(b, g))` with `N / 2` elements in each part, `N` in the result.
pub struct ConcatMaps<const N: usize> {
    a: Vec<f64>,
    b: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 3],
}

impl<const N: usize> Workload for ConcatMaps<N> {
    const GROUP: &'static str = if N == 1_000 {
        "concat_1e3"
    } else {
        "concat_1e6"
    };
    const SIZE: &'static str = if N == 1_000 {
        "n = 10^3 (two parts of 500)"
    } else {
        "n = 10^6 (two parts of 500,000)"
    };
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(21);
        let mut w = ConcatMaps {
            a: rng.vec(N / 2),
            b: rng.vec(N - N / 2),
            region: Region::new(),
            out: [vec![0.0; N], vec![0.0; N], vec![0.0; N]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (out, a, b) = black_box((&mut self.out[0], &self.a, &self.b));
        k2::concat_maps(out, a, b, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, a, b) = black_box((&mut self.out[1], &self.a, &self.b));
        concat_maps_hand(out, a, b);
    }

    #[inline]
    fn no_views(&mut self) {
        let (out, a, b) = black_box((&mut self.out[2], &self.a, &self.b));
        k2::no_views::concat_maps(out, a, b, &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// `build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0)` over `N` samples.
pub struct Smooth3<const N: usize> {
    a: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 3],
}

impl<const N: usize> Workload for Smooth3<N> {
    const GROUP: &'static str = if N == 10_000 {
        "smooth3_1e4"
    } else {
        "smooth3_1e6"
    };
    const SIZE: &'static str = if N == 10_000 { "n = 10^4" } else { "n = 10^6" };
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Smooth3 {
            a: Rng::new(22).vec(N),
            region: Region::new(),
            out: [vec![0.0; N], vec![0.0; N], vec![0.0; N]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (out, a) = black_box((&mut self.out[0], &self.a));
        k2::smooth3(out, a, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, a) = black_box((&mut self.out[1], &self.a));
        smooth3_hand(out, a);
    }

    #[inline]
    fn no_views(&mut self) {
        let (out, a) = black_box((&mut self.out[2], &self.a));
        k2::no_views::smooth3(out, a, &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// Image side of [`Filter3x3`].
pub const FILTER_SIDE: usize = 256;

/// A zero-padded 3x3 filter (weights 1 2 1 / 2 4 2 / 1 2 1, over 16) on a 256 x 256 image.
pub struct Filter3x3 {
    img: Vec<f64>,
    k: [[f64; 3]; 3],
    region: Region<'static>,
    out: [Vec<f64>; 3],
}

impl Workload for Filter3x3 {
    const GROUP: &'static str = "filter3x3_256";
    const SIZE: &'static str = "256 x 256 image, zero padding";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let n = FILTER_SIDE * FILTER_SIDE;
        let k = [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]].map(|r| r.map(|v| v / 16.0));
        let mut w = Filter3x3 {
            img: Rng::new(23).vec(n),
            k,
            region: Region::new(),
            out: [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        // The width at run time in every variant, as in `blur_256`.
        let (out, img, w, k) = black_box((&mut self.out[0], &self.img, FILTER_SIDE, &self.k));
        k2::filter3x3(out, img, w, k.as_flattened(), &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, img, w, k) = black_box((&mut self.out[1], &self.img, FILTER_SIDE, &self.k));
        filter3x3_hand(out, img, w, k);
    }

    #[inline]
    fn no_views(&mut self) {
        let (out, img, w, k) = black_box((&mut self.out[2], &self.img, FILTER_SIDE, &self.k));
        k2::no_views::filter3x3(out, img, w, k.as_flattened(), &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}
