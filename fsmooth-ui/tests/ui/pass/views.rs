// Every layout view read as a source and written as a result, run against plain Rust loops.
use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    pub fn concat_src(a: [f64; n], b: [f64; m]) -> f64 {
        sum(concat(a, b))
    }

    pub fn concat_dst(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
        concat(map(a, |x| x.abs()), map(b, |x| x * x))
    }

    pub fn concat_rows(a: [[f64; 2]; n], b: [[f64; 2]; m]) -> [[f64; 2]; n + m] {
        concat(a, smul_rows(b, 3.0))
    }

    fn smul_rows(a: [[f64; c]; r], s: f64) -> [[f64; c]; r] {
        build(r, |i| smul(a[i], s))
    }

    pub fn join_src(m: [[f64; 3]; r], w: [f64; 3 * r]) -> f64 {
        dot(join(m), w)
    }

    pub fn join_dst(x: [[f64; d]; n], d: usize) -> [f64; n * d] {
        join(build(n, |i| smul(x[i], (i + 1) as f64)))
    }

    pub fn split_src(a: [f64; 2 * n]) -> [f64; n] {
        let p = split(2, a);
        build(n, |i| p[i][0] - p[i][1])
    }

    pub fn split_dst(a: [f64; 2 * n]) -> [[f64; 2]; n] {
        split(2, map(a, |x| x + 1.0))
    }

    pub fn reverse_src(a: [f64; n], g: f64) -> [f64; n] {
        map(reverse(a), |x| x * g)
    }

    pub fn reverse_dst(m: [[f64; 2]; n], g: f64) -> [[f64; 2]; n] {
        reverse(smul_rows(m, g))
    }

    pub fn interleave_src(a: [f64; n], b: [f64; n], w: [f64; 2 * n]) -> f64 {
        dot(interleave(a, b), w)
    }

    pub fn interleave_dst(l: [f64; n], r: [f64; n], g: f64) -> [f64; 2 * n] {
        interleave(smul(l, g), smul(r, g))
    }

    pub fn slide_src(a: [f64; n]) -> [f64; n - 2] {
        build(n - 2, |i| sum(slide(3, a)[i]))
    }

    pub fn slide_dst(a: [f64; n]) -> [[f64; 3]; n - 2] {
        slide(3, a)
    }

    /// A run-time window: `w > n + 1` is an error at entry.
    pub fn movavg(x: [f64; n], w: usize) -> [f64; n - w + 1] {
        build(n - w + 1, |i| sum(slide(w, x)[i]) / (w as f64))
    }

    pub fn pad_src(a: [f64; n]) -> [f64; n] {
        build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0)
    }

    pub fn pad_dst(a: [f64; n]) -> [f64; 1 + n + 2] {
        pad(map(a, |x| x * 2.0), 1, 2, -1.0)
    }

    pub fn pad_rows(m: [[f64; 3]; n], z: [f64; 3]) -> [[f64; 3]; n + 1] {
        pad(m, 1, 0, z)
    }

    pub fn transpose_src(m: [[f64; c]; r], c: usize) -> [f64; c] {
        build(c, |j| sum(transpose(m)[j]))
    }

    pub fn transpose_dst(m: [[f64; c]; r], c: usize) -> [[f64; r]; c] {
        transpose(smul_rows(m, 2.0))
    }

    /// Views of views: a palindrome.
    pub fn mirror(a: [f64; n]) -> [f64; 2 * n] {
        concat(a, reverse(a))
    }
}

fn main() -> Result<(), Error> {
    let mut region = Region::new();
    let a = [1.0, -2.0, 3.0, -4.0];
    let b = [0.5, 1.5, -2.5];

    assert!(concat_src(&a, &b, &mut region)? == a.iter().chain(&b).sum::<f64>());

    let mut out = [0.0; 7];
    concat_dst(&mut out, &a, &b, &mut region)?;
    for i in 0..7 {
        let want = if i < 4 {
            a[i].abs()
        } else {
            b[i - 4] * b[i - 4]
        };
        assert!(out[i] == want, "concat_dst[{i}]");
    }

    let (ra, rb) = ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]);
    let mut rows = [[0.0; 2]; 3];
    concat_rows(
        rows.as_flattened_mut(),
        ra.as_flattened(),
        rb.as_flattened(),
        &mut region,
    )?;
    assert!(rows == [ra[0], ra[1], [15.0, 18.0]], "concat_rows {rows:?}");

    let m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let w = [1.0, -1.0, 2.0, 0.5, 3.0, -2.0];
    let want: f64 = (0..6).map(|k| m[k / 3][k % 3] * w[k]).sum();
    assert!(join_src(m.as_flattened(), &w, &mut region)? == want);

    let mut flat = [0.0; 6];
    join_dst(&mut flat, m.as_flattened(), 3, &mut region)?;
    for k in 0..6 {
        assert!(
            flat[k] == m[k / 3][k % 3] * (k / 3 + 1) as f64,
            "join_dst[{k}]"
        );
    }

    let mut half = [0.0; 3];
    split_src(&mut half, &w, &mut region)?;
    for i in 0..3 {
        assert!(half[i] == w[2 * i] - w[2 * i + 1], "split_src[{i}]");
    }
    let mut pairs = [[0.0; 2]; 3];
    split_dst(pairs.as_flattened_mut(), &w, &mut region)?;
    for i in 0..3 {
        assert!(
            pairs[i] == [w[2 * i] + 1.0, w[2 * i + 1] + 1.0],
            "split_dst[{i}]"
        );
    }

    let mut rev = [0.0; 4];
    reverse_src(&mut rev, &a, 2.0, &mut region)?;
    for i in 0..4 {
        assert!(rev[i] == a[3 - i] * 2.0, "reverse_src[{i}]");
    }
    let mut rrows = [[0.0; 2]; 2];
    reverse_dst(
        rrows.as_flattened_mut(),
        ra.as_flattened(),
        -1.0,
        &mut region,
    )?;
    assert!(
        rrows == [[-3.0, -4.0], [-1.0, -2.0]],
        "reverse_dst {rrows:?}"
    );

    let (l, r) = ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]);
    let want: f64 = (0..6)
        .map(|k| if k % 2 == 0 { l[k / 2] } else { r[k / 2] } * w[k])
        .sum();
    assert!(interleave_src(&l, &r, &w, &mut region)? == want);
    let mut lr = [0.0; 6];
    interleave_dst(&mut lr, &l, &r, 0.5, &mut region)?;
    for k in 0..6 {
        assert!(
            lr[k] == if k % 2 == 0 { l[k / 2] } else { r[k / 2] } * 0.5,
            "interleave_dst[{k}]"
        );
    }

    let mut s3 = [0.0; 2];
    slide_src(&mut s3, &a, &mut region)?;
    for i in 0..2 {
        assert!(s3[i] == a[i] + a[i + 1] + a[i + 2], "slide_src[{i}]");
    }
    let mut wins = [[0.0; 3]; 2];
    slide_dst(wins.as_flattened_mut(), &a, &mut region)?;
    for i in 0..2 {
        assert!(wins[i] == [a[i], a[i + 1], a[i + 2]], "slide_dst[{i}]");
    }

    let mut avg = [0.0; 3];
    movavg(&mut avg, &a, 2, &mut region)?;
    for i in 0..3 {
        assert!(avg[i] == (a[i] + a[i + 1]) / 2.0, "movavg[{i}]");
    }
    // Six is wider than four samples and one: no windows, an error before anything is written.
    let mut none = [7.0; 0];
    let e = movavg(&mut none, &a, 6, &mut region);
    assert!(
        matches!(e, Err(Error::Arithmetic { .. })),
        "movavg(w = 6): {e:?}"
    );

    let mut sm = [0.0; 4];
    pad_src(&mut sm, &a, &mut region)?;
    for i in 0..4 {
        let at = |k: isize| {
            if (0..4).contains(&k) {
                a[k as usize]
            } else {
                0.0
            }
        };
        let k = i as isize;
        assert!(
            sm[i] == (at(k - 1) + at(k) + at(k + 1)) / 3.0,
            "pad_src[{i}]"
        );
    }
    let mut padded = [0.0; 7];
    pad_dst(&mut padded, &a, &mut region)?;
    assert!(
        padded == [-1.0, 2.0, -4.0, 6.0, -8.0, -1.0, -1.0],
        "pad_dst {padded:?}"
    );
    let mut prow = [[0.0; 3]; 3];
    pad_rows(
        prow.as_flattened_mut(),
        m.as_flattened(),
        &[9.0, 8.0, 7.0],
        &mut region,
    )?;
    assert!(prow == [[9.0, 8.0, 7.0], m[0], m[1]], "pad_rows {prow:?}");

    let mut cs = [0.0; 3];
    transpose_src(&mut cs, m.as_flattened(), 3, &mut region)?;
    for j in 0..3 {
        assert!(cs[j] == m[0][j] + m[1][j], "transpose_src[{j}]");
    }
    let mut t = [[0.0; 2]; 3];
    transpose_dst(t.as_flattened_mut(), m.as_flattened(), 3, &mut region)?;
    for i in 0..2 {
        for j in 0..3 {
            assert!(t[j][i] == 2.0 * m[i][j], "transpose_dst[{j}][{i}]");
        }
    }

    let mut pal = [0.0; 8];
    mirror(&mut pal, &a, &mut region)?;
    for i in 0..4 {
        assert!(pal[i] == a[i] && pal[7 - i] == a[i], "mirror[{i}]");
    }
    // A view of a parameter is read in place, and a view written as a result puts each
    // element straight into its place: none of these needs a frame (LANGUAGE.md section 9).
    let frames = [
        concat_dst::scratch_len(4, 3),
        concat_rows::scratch_len(2, 1),
        join_src::scratch_len(2),
        join_dst::scratch_len(3, 2),
        split_src::scratch_len(3),
        split_dst::scratch_len(3),
        reverse_src::scratch_len(4),
        reverse_dst::scratch_len(2),
        interleave_src::scratch_len(3),
        interleave_dst::scratch_len(3),
        slide_src::scratch_len(4),
        slide_dst::scratch_len(4),
        movavg::scratch_len(4, 2),
        pad_src::scratch_len(4),
        pad_dst::scratch_len(4),
        pad_rows::scratch_len(2),
        transpose_src::scratch_len(3, 2),
        transpose_dst::scratch_len(3, 2),
        mirror::scratch_len(4),
    ];
    assert!(frames.iter().all(|&f| f == 0), "frames {frames:?}");
    Ok(())
}
