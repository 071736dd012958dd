//! Image reductions (issue 38), each written three ways as a user would spell them from the
//! docs, beside a hand-written Rust version: 2 x 2 down-sampling of a 512 x 512 image (the
//! mean of each 2 x 2 block) and a 3-level pyramid of it, each level read back from its
//! output. Spelling A is [`Variant::Fsmooth`], B and C are [`Variant::SpellingB`] and
//! [`Variant::SpellingC`].

use super::{Rng, SPELLED, Variant, Workload, spelled_slot as slot};
use fsmooth::{Region, fsmooth};
use std::hint::black_box;

/// The image's side.
pub const IMG: usize = 512;

fsmooth! {
    /// Spelling A's half: LANGUAGE.md section 13's, explicit index arithmetic.
    fn half(img: [[f64; w]; h]) -> [[f64; w / 2]; h / 2] {
        build(h / 2, |r| build(w / 2, |c| {
            0.25 * (img[2 * r][2 * c] + img[2 * r][2 * c + 1]
                + img[2 * r + 1][2 * c] + img[2 * r + 1][2 * c + 1])
        }))
    }

    /// Spelling B's half: the block's four pixels an `ifold` over `k`, `k / 2` and `k % 2`
    /// picking the row and column.
    fn half_fold(img: [[f64; w]; h]) -> [[f64; w / 2]; h / 2] {
        build(h / 2, |r| build(w / 2, |c| {
            0.25 * ifold(4, 0.0, |s, k| s + img[2 * r + k / 2][2 * c + k % 2])
        }))
    }

    /// One row of spelling C's half, from the two rows it averages.
    fn half_row(top: [f64; w], bot: [f64; w]) -> [f64; w / 2] {
        build(w / 2, |c| 0.25 * (top[2 * c] + top[2 * c + 1] + bot[2 * c] + bot[2 * c + 1]))
    }

    /// Spelling C's half for the pyramid: a helper per pair of rows.
    fn half_rows(img: [[f64; w]; h]) -> [[f64; w / 2]; h / 2] {
        build(h / 2, |r| half_row(img[2 * r], img[2 * r + 1]))
    }

    /// Spelling A: size names, `w` a parameter.
    pub fn downsample_a(img: [[f64; w]; h], w: usize) -> [[f64; w / 2]; h / 2] {
        half(img)
    }

    /// Spelling B: the literal 512.
    pub fn downsample_b(img: [[f64; 512]; 512]) -> [[f64; 256]; 256] {
        half_fold(img)
    }

    /// Spelling C: sizes `2 * w` by `2 * h`, the rows taken in pairs by `split`, each row in
    /// pairs of pixels by `split`, with `map` and `map2`. (Written as a helper
    /// `fn half_split(img: [[f64; 2 * w]; 2 * h]) -> [[f64; w]; h]` called with this very
    /// `img`, the macro rejects the call: "argument `img` of `half_split` expects
    /// `[[f64; 2 * w]; 2 * h]`, found `[[f64; 2 * w]; 2 * h]`".)
    pub fn downsample_c(img: [[f64; 2 * w]; 2 * h], w: usize) -> [[f64; w]; h] {
        map(split(2, img), |rows| {
            map2(split(2, rows[0]), split(2, rows[1]), |p, q| 0.25 * (p[0] + p[1] + q[0] + q[1]))
        })
    }

    /// Spelling A: LANGUAGE.md section 13's pyramid, the levels `let`-bound.
    pub fn pyramid_a(img: [[f64; w]; h], w: usize)
        -> ([[f64; w / 2]; h / 2], [[f64; w / 4]; h / 4], [[f64; w / 8]; h / 8]) {
        let l1 = half(img);
        let l2 = half(l1);
        (l1, l2, half(l2))
    }

    /// Spelling B: the literal 512, no `let`: each level written out where it is read.
    pub fn pyramid_b(img: [[f64; 512]; 512])
        -> ([[f64; 256]; 256], [[f64; 128]; 128], [[f64; 64]; 64]) {
        (half_fold(img), half_fold(half_fold(img)), half_fold(half_fold(half_fold(img))))
    }

    /// Spelling C: a helper per pair of rows, every level `let`-bound.
    pub fn pyramid_c(img: [[f64; w]; h], w: usize)
        -> ([[f64; w / 2]; h / 2], [[f64; w / 4]; h / 4], [[f64; w / 8]; h / 8]) {
        let l1 = half_rows(img);
        let l2 = half_rows(l1);
        let l3 = half_rows(l2);
        (l1, l2, l3)
    }
}

/// The 2 x 2 block means of `src` (`w` wide) into `dst` (`w / 2` wide), by hand: two source
/// rows and one destination row at a time.
#[inline]
pub fn half_hand(dst: &mut [f64], src: &[f64], w: usize) {
    let wh = w / 2;
    for (d, rows) in dst.chunks_exact_mut(wh).zip(src.chunks_exact(2 * w)) {
        let (top, bot) = rows.split_at(w);
        for ((o, t), b) in d
            .iter_mut()
            .zip(top.chunks_exact(2))
            .zip(bot.chunks_exact(2))
        {
            *o = 0.25 * (t[0] + t[1] + b[0] + b[1]);
        }
    }
}

/// A 512 x 512 image of values in [-1, 1).
fn image(seed: u64) -> Vec<f64> {
    Rng::new(seed).vec(IMG * IMG)
}

/// 2 x 2 down-sampling of a 512 x 512 image (the mean of each block `img[2 r + a][2 c + b]`).
/// A: explicit index arithmetic, size names; B: the four pixels an `ifold` over `k`, the
/// literal 512; C: `split` into row pairs and pixel pairs with `map`/`map2`, sizes `2 * w`.
pub struct Downsample {
    img: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 4],
}

impl Workload for Downsample {
    const GROUP: &'static str = "downsample_512";
    const SIZE: &'static str = "512 x 512 -> 256 x 256";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Downsample {
            img: image(3805),
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0.0; IMG * IMG / 4]),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let img = black_box(&self.img);
        downsample_a(&mut self.out[0], img, IMG, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let img = black_box(&self.img);
        let out = &mut self.out[K];
        match K {
            1 => downsample_b(out, img, &mut self.region).unwrap(),
            _ => downsample_c(out, img, IMG / 2, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        half_hand(&mut self.out[3], black_box(&self.img), IMG);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        // The four pixels are added in the same order everywhere.
        0.0
    }
}

/// A 3-level pyramid of a 512 x 512 image, `(l1, l2, l3)` of 256, 128 and 64 square, each
/// level the 2 x 2 block means of the one before. A: LANGUAGE.md section 13's `let l1 =
/// half(img); let l2 = half(l1); (l1, l2, half(l2))`; B: the literal 512 and the levels
/// written out as nested calls (`half(half(img))`), no `let`; C: a helper per pair of rows,
/// every level `let`-bound.
pub struct Pyramid {
    img: Vec<f64>,
    region: Region<'static>,
    /// Per variant: l1, l2, l3.
    out: [[Vec<f64>; 3]; 4],
}

impl Workload for Pyramid {
    const GROUP: &'static str = "pyramid_512";
    const SIZE: &'static str = "512 x 512 -> 256, 128, 64";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Pyramid {
            img: image(3806),
            region: Region::new(),
            out: std::array::from_fn(|_| {
                std::array::from_fn(|l| vec![0.0; (IMG >> (l + 1)) * (IMG >> (l + 1))])
            }),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let img = black_box(&self.img);
        let [l1, l2, l3] = &mut self.out[0];
        pyramid_a(l1, l2, l3, img, IMG, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let img = black_box(&self.img);
        let [l1, l2, l3] = &mut self.out[K];
        match K {
            1 => pyramid_b(l1, l2, l3, img, &mut self.region).unwrap(),
            _ => pyramid_c(l1, l2, l3, img, IMG, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let img = black_box(&self.img);
        let [l1, l2, l3] = &mut self.out[3];
        half_hand(l1, img, IMG);
        half_hand(l2, l1, IMG / 2);
        half_hand(l3, l2, IMG / 4);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].concat()
    }

    fn tolerance() -> f64 {
        // The four pixels are added in the same order everywhere.
        0.0
    }
}
