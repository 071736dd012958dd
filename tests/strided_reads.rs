//! Reads at a constant stride of a loop's index (issue 38): 2 x 2 blocks of an image, and
//! index arithmetic with `/` and `%` that a written-out loop folds to constants.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// The mean of each 2 x 2 block (rows of a stride-2 stream).
    pub fn half(img: [[f64; w]; h], w: usize) -> [[f64; w / 2]; h / 2] {
        build(h / 2, |r| build(w / 2, |c| {
            0.25 * (img[2 * r][2 * c] + img[2 * r][2 * c + 1]
                + img[2 * r + 1][2 * c] + img[2 * r + 1][2 * c + 1])
        }))
    }

    /// Every other element, from the second.
    pub fn odd(a: [f64; 2 * m]) -> [f64; m] {
        build(m, |i| a[2 * i + 1])
    }

    /// `(2 * j + 1) / 2` is `j` in `usize` arithmetic, also once `j` is a constant (a
    /// generated program whose written-out loop read the element after).
    pub fn halves(a: [f32; n], s: f32) -> [[f32; 3]; n] {
        let img = build(2 * n, |y| interleave(slide(3, pad(a, 1, 1, s))[y / 2], [s, 1.5, -0.5]));
        let q = build(n, |r| build(3, |j| img[2 * r + 1][j * 2 + 1]));
        let up = build(2 * n, |y| build(6, |z| q[y / 2][z / 2] * 0.5));
        build(n, |r| build(3, |j| up[1 + 2 * r][j * 2 + 1]))
    }
}

#[test]
fn strided_reads_read_the_right_elements() {
    for (w, h) in [(2, 2), (4, 6), (6, 4), (5, 3)] {
        let img: Vec<f64> = (0..w * h).map(|v| (v * v % 17) as f64).collect();
        let mut out = vec![f64::NAN; (w / 2) * (h / 2)];
        // An odd side rounds down, as Rust's `/` (LANGUAGE.md section 16; v2 rejected it):
        // the last row or column is not read.
        half(&mut out, &img, w, &mut Region::new()).unwrap();
        for r in 0..h / 2 {
            for c in 0..w / 2 {
                let at = |y: usize, x: usize| img[y * w + x];
                let want = 0.25
                    * (at(2 * r, 2 * c)
                        + at(2 * r, 2 * c + 1)
                        + at(2 * r + 1, 2 * c)
                        + at(2 * r + 1, 2 * c + 1));
                assert_eq!(out[r * (w / 2) + c], want, "{w} x {h} ({r}, {c})");
            }
        }
    }
    let a: Vec<f64> = (0..10).map(|v| v as f64).collect();
    let mut out = vec![f64::NAN; 5];
    odd(&mut out, &a, &mut Region::new()).unwrap();
    assert_eq!(out, [1.0, 3.0, 5.0, 7.0, 9.0]);
    let mut out = vec![f32::NAN; 9];
    halves(&mut out, &[1.0, 2.0, 3.0], 7.0, &mut Region::new()).unwrap();
    assert_eq!(out, [3.5, 0.75, -0.25].repeat(3));
}

fsmooth! {
    #![fsmooth(fusion = false)]
    /// Unfused, the quotient is an index of an array in the frame.
    pub fn rounded() -> [f64; 3] {
        build(3, |j| [1.0, 4.0, 2.0, 5.0, 3.0, 6.0][(2 * j + 1) / 2 * 2])
    }
}

#[test]
fn a_quotient_rounds_down_in_every_spelling() {
    let mut out = [f64::NAN; 3];
    rounded(&mut out, &mut Region::new()).unwrap();
    assert_eq!(out, [1.0, 2.0, 3.0]);
}
