//! A matrix padded with a row (`pad(m, 1, 1, zeros)`) read element by element: each read
//! takes its element of the row chosen, with no row stored (LANGUAGE.md section 9: reading
//! a view copies nothing).

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// The first column of a matrix padded above and below with a row of zeros.
    pub fn first_column(m: [[f64; w]; h], w: usize) -> [f64; h + 2] {
        let p = pad(m, 1, 1, build(w, |_| 0.0));
        build(h + 2, |r| p[r][0])
    }

    /// The rows above and below, from the matrix padded with a row of zeros (read at two
    /// rows of the padding in one loop: stored, `(h + 2) w` slots, see BENCHMARKS.md).
    pub fn above_below(img: [[f64; w]; h], w: usize) -> [[f64; w]; h] {
        let p = pad(img, 1, 1, build(w, |_| 0.0));
        build(h, |r| build(w, |c| p[r][c] + p[r + 2][c]))
    }

    /// A 3 x 3 box blur over the image padded with zeros on every side: each row padded,
    /// then the rows.
    pub fn blur(img: [[f64; w]; h], w: usize) -> [[f64; w]; h] {
        let p = pad(build(h, |r| pad(img[r], 1, 1, 0.0)), 1, 1, build(w + 2, |_| 0.0));
        build(h, |r| build(w, |c| sum(build(3, |dr| sum(build(3, |dc| p[r + dr][c + dc])))) / 9.0))
    }
}

fn image(h: usize, w: usize) -> Vec<f64> {
    (0..h * w)
        .map(|k| ((k * 11) % 23) as f64 * 0.5 - 3.0)
        .collect()
}

fn blur_ref(img: &[f64], h: usize, w: usize) -> Vec<f64> {
    let at = |r: isize, c: isize| {
        if r < 0 || c < 0 || r >= h as isize || c >= w as isize {
            0.0
        } else {
            img[r as usize * w + c as usize]
        }
    };
    let mut out = vec![0.0; h * w];
    for r in 0..h {
        for c in 0..w {
            let mut s = -0.0;
            for dr in 0..3 {
                let mut t = -0.0;
                for dc in 0..3 {
                    t += at(r as isize + dr - 1, c as isize + dc - 1);
                }
                s += t;
            }
            out[r * w + c] = s / 9.0;
        }
    }
    out
}

#[test]
fn padded_rows_are_read_by_element() {
    for (h, w) in [(1usize, 1usize), (2, 3), (5, 4), (7, 9)] {
        let img = image(h, w);
        let mut col = vec![f64::NAN; h + 2];
        first_column(&mut col, &img, w, &mut Region::new()).unwrap();
        let mut want = vec![0.0; h + 2];
        for r in 0..h {
            want[r + 1] = img[r * w];
        }
        assert_eq!(col, want, "{h} x {w}");
        let mut out = vec![f64::NAN; h * w];
        above_below(&mut out, &img, w, &mut Region::new()).unwrap();
        let mut want = vec![0.0; h * w];
        for r in 0..h {
            for c in 0..w {
                let up = if r > 0 { img[(r - 1) * w + c] } else { 0.0 };
                let down = if r + 1 < h { img[(r + 1) * w + c] } else { 0.0 };
                want[r * w + c] = up + down;
            }
        }
        assert_eq!(out, want, "{h} x {w}");
        blur(&mut out, &img, w, &mut Region::new()).unwrap();
        assert_eq!(out, blur_ref(&img, h, w), "{h} x {w}");
    }
}

#[test]
fn padded_rows_take_no_scratch() {
    for w in [1usize, 10, 10_000] {
        assert_eq!(first_column::scratch_len(w, 5), 0);
        assert_eq!(blur::scratch_len(w, 5), 0);
        assert_eq!(blur::scratch_len(w, 5_000), 0);
    }
}
