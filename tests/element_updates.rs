//! A fold step that replaces one row of a matrix state by that row with one element
//! changed (`build(by, |r| if r == iy { build(bx, |c| if c == ix { h[r][c] + 1 } else {
//! h[r][c] }) } else { h[r] })`, a 2-D histogram written as a nested in-place update) changes
//! that element alone: O(1) a step and no scratch, as the flat `scatter_add` spelling
//! (LANGUAGE.md sections 13 and 15). It took a row of the frame and a copy of it a step.

use fsmooth::{Region, fsmooth};

fsmooth! {
    /// The nested in-place update.
    pub fn hist2_nested(x: [f64; n], y: [f64; n], bx: usize, by: usize) -> [[usize; bx]; by] {
        ifold(n, build(by, |_| build(bx, |_| 0)), |h, i| {
            let ix = ((x[i] * (bx as f64)) as usize).min(bx - 1);
            let iy = ((y[i] * (by as f64)) as usize).min(by - 1);
            build(by, |r| if r == iy { build(bx, |c| if c == ix { h[r][c] + 1 } else { h[r][c] }) } else { h[r] })
        })
    }

    /// The nested update with the new count read at the bin itself, `h[iy][ix]`.
    pub fn hist2_at_bin(x: [f64; n], y: [f64; n], bx: usize, by: usize) -> [[usize; bx]; by] {
        ifold(n, build(by, |_| build(bx, |_| 0)), |h, i| {
            let ix = ((x[i] * (bx as f64)) as usize).min(bx - 1);
            let iy = ((y[i] * (by as f64)) as usize).min(by - 1);
            build(by, |r| if r == iy { build(bx, |c| if c == ix { h[iy][ix] + 1 } else { h[r][c] }) } else { h[r] })
        })
    }

    /// The flat `scatter_add`, split into rows.
    pub fn hist2_flat(x: [f64; n], y: [f64; n], bx: usize, by: usize) -> [[usize; bx]; by] {
        split(bx, scatter_add(by * bx, n, |i| {
            let ix = ((x[i] * (bx as f64)) as usize).min(bx - 1);
            let iy = ((y[i] * (by as f64)) as usize).min(by - 1);
            (iy * bx + ix, 1)
        }))
    }

    /// Unclamped columns: a value past the row's end changes nothing (no element is
    /// chosen), and the element's new value reads another row of the state.
    pub fn shifted(x: [usize; n], w: [f64; n], m: usize) -> [[f64; m]; 2] {
        ifold(n, build(2, |_| build(m, |_| 0.0)), |s, i| {
            build(2, |r| if r == i % 2 {
                build(m, |c| if c == x[i] { s[r][c] + w[i] + s[1 - r][0] } else { s[r][c] })
            } else {
                s[r]
            })
        })
    }
}

#[test]
fn one_element_of_a_row_updated_in_place() {
    let (bx, by) = (5usize, 3usize);
    for n in [0usize, 1, 9, 400] {
        let x: Vec<f64> = (0..n).map(|k| ((k * 7) % 11) as f64 / 10.0).collect();
        let y: Vec<f64> = (0..n).map(|k| ((k * 5) % 13) as f64 / 12.0).collect();
        let mut want = vec![0usize; bx * by];
        for i in 0..n {
            let ix = ((x[i] * bx as f64) as usize).min(bx - 1);
            let iy = ((y[i] * by as f64) as usize).min(by - 1);
            want[iy * bx + ix] += 1;
        }
        let mut got = vec![usize::MAX; bx * by];
        hist2_nested(&mut got, &x, &y, bx, by, &mut Region::new()).unwrap();
        assert_eq!(got, want, "nested, n = {n}");
        hist2_flat(&mut got, &x, &y, bx, by, &mut Region::new()).unwrap();
        assert_eq!(got, want, "flat, n = {n}");
        hist2_at_bin(&mut got, &x, &y, bx, by, &mut Region::new()).unwrap();
        assert_eq!(got, want, "at the bin, n = {n}");

        let m = 4usize;
        let xs: Vec<usize> = (0..n).map(|k| (k * 3) % 6).collect();
        let w: Vec<f64> = (0..n).map(|k| k as f64 * 0.5 + 1.0).collect();
        let mut want = vec![0.0; 2 * m];
        for i in 0..n {
            let r = i % 2;
            if xs[i] < m {
                want[r * m + xs[i]] += w[i] + want[(1 - r) * m];
            }
        }
        let mut got = vec![f64::NAN; 2 * m];
        shifted(&mut got, &xs, &w, m, &mut Region::new()).unwrap();
        assert_eq!(got, want, "shifted, n = {n}");
    }
    for n in [10, 10_000] {
        assert_eq!(hist2_nested::scratch_len(n, 16, 9), 0);
        assert_eq!(hist2_flat::scratch_len(n, 16, 9), 0);
        assert_eq!(hist2_at_bin::scratch_len(n, 16, 9), 0);
        assert_eq!(shifted::scratch_len(n, 8), 0);
    }
}
