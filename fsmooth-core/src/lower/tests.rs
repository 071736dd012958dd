//! Tests of the translation, through the code it generates.

pub(super) fn expand(src: &str) -> String {
    crate::expand(src.parse().unwrap()).to_string()
}

/// The generated `scratch_len` body of the only kernel in `out` (an expansion).
pub(super) fn scratch(out: &str) -> &str {
    let from = out.find("fn scratch_len").expect("a scratch_len");
    let body = &out[from..];
    let open = body.find('{').expect("a body");
    let close = body.find('}').expect("a body");
    body[open + 1..close].trim()
}

#[test]
fn constant_elements_of_a_run_time_row_load_from_the_whole_row() {
    // Written out, `sum(cams[i % n][3..6])` and `cams[i % n][9]` are four loads at
    // constant offsets from row i % n: all from the parameter's row of 11, one range
    // check for LLVM to keep.
    let out = expand(
        "pub fn k(cams: [[f64; 11]; n], p: usize) -> [f64; p] {
            build(p, |i| sum(cams[i % n][3..6]) * cams[i % n][9])
        }",
    );
    assert_eq!(
        out.matches("ldr_row :: < 11usize > (cams").count(),
        4,
        "{out}"
    );
    assert!(!out.contains(":: ld (cams"), "{out}");
}

#[test]
fn matrix_products_take_the_rows_of_their_operands_in_turn() {
    // (Untiled: with tiles, b's rows are cut per tile, `ldr`.)
    let out = expand(
        "#![fsmooth(unroll = false)] pub fn k(a: [[f64; m]; n], b: [[f64; m]; m]) -> [[f64; m]; n] { matmul(a, b) }",
    );
    assert!(out.contains("rows (__r"), "{out}");
    assert!(out.contains("b . get (0usize ..)"), "{out}");
    assert!(!out.contains("b . get ((i"), "{out}");
}

#[test]
fn loop_indexes_into_arrays_of_that_size_are_proven() {
    let out =
        expand("pub fn k(a: [f64; n], b: [f64; n]) -> [f64; n] { build(n, |i| a[i] * b[i]) }");
    assert!(!out.contains("check"), "{out}");
    // `x + 2` with x < w - 2 into w elements.
    let out = expand("pub fn k(v: [f64; w]) -> [f64; w - 2] { build(w - 2, |x| v[x + 2] - v[x]) }");
    assert!(!out.contains(":: check"), "{out}");
}

#[test]
fn subtractions_bounded_by_loops_are_unchecked() {
    // c < j < d: `j - c - 1` and `2 * d - c - 1` cannot underflow.
    let out = expand(
        "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
            build(d, |j| ifold(j, x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * x[c]))
        }",
    );
    assert!(!out.contains(":: sub ("), "{out}");
    // One division: the length `d * (d + 1) / 2`, at entry.
    assert_eq!(out.matches(":: div (").count(), 1, "{out}");
    // `i - 1` with i from 0 can underflow: checked.
    let out = expand("pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[(i - 1) % n]) }");
    assert!(out.contains(":: sub ("), "{out}");
}

#[test]
fn a_branch_knows_its_condition() {
    // Fixed ends: the `else` has 1 <= i < n - 1, so `a[i - 1]` and `a[i + 1]` are plain
    // loads, and `n - 1` inside the loop over 0..n cannot underflow.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i == 0 || i == n - 1 { a[i] } else { a[i - 1] + a[i] + a[i + 1] })
        }",
    );
    assert!(!out.contains(":: check ("), "{out}");
    assert!(!out.contains(":: sub ("), "{out}");
    assert!(!out.contains(":: add ("), "{out}");
    // The same with the comparisons written the other way round and negated.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if !(0 < i && n - 1 > i) { a[i] } else { a[i - 1] + a[i + 1] })
        }",
    );
    assert!(!out.contains(":: check ("), "{out}");
    assert!(!out.contains(":: sub (i"), "{out}");
    // Only the branch that knows it: `then` of `i == 0 || ..` may have i = 0.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i == 0 || i == n - 1 { a[(i - 1) % n] } else { a[i] })
        }",
    );
    assert!(out.contains(":: sub (i"), "{out}");
    // A load proven by the branch alone is no stream: a stream cuts its row for the whole
    // loop, and `a[1..n + 1]` does not exist. (With a test of something else than `i` the
    // build is not peeled.)
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i == n - 1 || a[0] > 1.0 { a[i] } else { a[i + 1] })
        }",
    );
    assert!(!out.contains("a . get (1usize"), "{out}");
    // Peeled, the interior `0..n - 1` streams `a[i + 1]` from `a[1..n]`.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i == n - 1 { a[i] } else { a[i + 1] })
        }",
    );
    assert!(
        out.contains("a . get (1usize .. (1usize) . wrapping_add (__mid"),
        "{out}"
    );
    // A bound that is not the loop's last index tells nothing of `i + 1`.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i == n - 2 { a[i] } else { a[i + 1] })
        }",
    );
    assert!(out.contains(":: check ("), "{out}");
}

#[test]
fn a_build_branching_at_its_ends_is_peeled() {
    // Fixed ends: the first and last steps whole, the interior the `else` alone with its
    // loads as streams (but `a[i - 1]`, which is `a[j]`, a plain load LLVM needs no check
    // for) and no test.
    let src = "pub fn k(a: [f64; n]) -> [f64; n] {
        build(n, |i| if i == 0 || i == n - 1 { a[i] } else { a[i - 1] + a[i] + a[i + 1] })
    }";
    let out = expand(src);
    assert!(out.contains("let __mid"), "{out}");
    for start in ["1usize", "2usize"] {
        assert!(
            out.contains(&format!(
                "a . get ({start} .. ({start}) . wrapping_add (__mid"
            )),
            "{out}"
        );
    }
    // Not when a test reads something else, or a point inside the range is excluded.
    for src in [
        "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| if i == 0 || a[i] > 0.0 { a[i] } else { 2.0 * a[i] }) }",
        "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| if i == 0 || i == 5 { a[i] } else { 2.0 * a[i] }) }",
        // A size the loop's count says nothing of.
        "pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n] { build(n, |i| if i < m { a[i] } else { b[0] }) }",
    ] {
        assert!(!expand(src).contains("let __mid"), "{src}");
    }
    // `n - 2` fails for n = 1, where `i == 0` short-circuits it (and in the second for
    // n < 2); the interior skips the test, but runs only when n >= 4 (n >= 3), where `n - 2`
    // cannot fail. The ends still test it.
    for src in [
        "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| if i == 0 || i >= n - 2 { a[i] } else { 2.0 * a[i] }) }",
        "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| if i < n - 2 { a[i] } else { 2.0 * a[i] }) }",
    ] {
        let out = expand(src);
        assert!(out.contains("let __mid"), "{out}");
        assert_eq!(out.matches(":: sub (n , 2usize").count(), 2, "{out}");
    }
}

#[test]
fn clamped_borders_are_peeled_in_both_dimensions() {
    // `max`, `min` and `clamp` on the index are `if`s the interior decides (at a tie both
    // branches are the same value, so `i.max(1)` is `i` from i = 1 on): no check, no
    // underflow test, no branch, and every load of the interior a stream.
    for (clamps, peeled) in [
        (
            "let y0 = y.max(1) - 1; let y2 = (y + 1).min(h - 1); let x0 = x.max(1) - 1; let x2 = (x + 1).min(w - 1);",
            1,
        ),
        (
            "let y0 = (y + 0).clamp(1, h) - 1; let y2 = (y + 2).clamp(1, h) - 1; let x0 = (x + 0).clamp(1, w) - 1; let x2 = (x + 2).clamp(1, w) - 1;",
            1,
        ),
    ] {
        let src = format!(
            "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w]; h] {{
                build(h, |y| build(w, |x| {{ {clamps}
                    img[y0][x0] + img[y0][x2] + 2.0 * img[y][x] + img[y2][x0] + img[y2][x2]
                }}))
            }}"
        );
        let out = expand(&src);
        assert_eq!(out.matches("let __mid").count(), 1 + 3 * peeled, "{out}");
        // The interior's interior (the second of the three inner interiors: first rows,
        // interior rows, last rows): five streams, then the element with nothing checked.
        // (Its header: the first loop over slots in the rows' interior, over the slices
        // alone when the index is read nowhere.)
        let rows = &out[out.find("for j_").expect("the rows' interior")..];
        let at = rows.find("__slot").expect("an interior loop");
        let inner = &rows[..at];
        let inner = &inner[inner.rfind("if let").unwrap()..];
        assert_eq!(inner.matches("img . get (").count(), 5, "{inner}");
        let interior = &rows[at..];
        let interior = &interior[..interior.find("let __rest").unwrap()];
        assert!(!interior.contains(":: check ("), "{interior}");
        assert!(!interior.contains(":: sub ("), "{interior}");
        assert!(!interior.contains(":: add ("), "{interior}");
        assert!(!interior.contains(" if "), "{interior}");
    }
}

#[test]
fn packed_triangle_indexes_are_proven() {
    // GMM's lower triangle: the index is quadratic in c, but rising in c and in j.
    let out = expand(
        "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
            build(d, |j| ifold(j, q[j] * x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * x[c]))
        }",
    );
    assert!(!out.contains(":: check ("), "{out}");
    assert!(!out.contains(":: mul (c"), "{out}");
    // And read at a running index (`Dps::running`), whose step shrinks by one: no
    // division or multiplication by the fold's index is left in its loop.
    assert!(out.contains("__at"), "{out}");
    assert!(!out.contains("/ 2usize"), "{out}");
    assert!(out.contains("wrapping_sub (1usize)"), "{out}");
    // One slot further is not in bounds: checked.
    let out = expand(
        "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
            build(d, |j| ifold(j, q[j] * x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c)] * x[c]))
        }",
    );
    assert!(out.contains(":: check ("), "{out}");
}

#[test]
fn loads_at_one_quadratic_index_share_its_run() {
    // Loads of two arrays at `c (c + 1) / 2 + c` (one load of each after CSE), one at
    // `c (2d - c - 1) / 2`: two running indexes, not three.
    let out = expand(
        "pub fn k(q: [f64; d * (d + 1) / 2], p: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
            build(d, |j| ifold(j, 0.0, |acc, c| acc + q[c * (c + 1) / 2 + c] * x[c] - p[c * (c + 1) / 2 + c] + q[c * (2 * d - c - 1) / 2]))
        }",
    );
    assert_eq!(out.matches("let mut __at").count(), 2, "{out}");
}

#[test]
fn row_offsets_name_their_width_and_start() {
    use crate::lir::{self, Ex, Wrap};
    use crate::lower::blocking::row_of;
    use quote::format_ident;
    let (l, w, s) = (format_ident!("l"), format_ident!("w"), format_ident!("s"));
    let v = |i: &proc_macro2::Ident| Ex::Var(i.clone());
    let mul = |a: Ex, b: Ex| Ex::Wrap(Wrap::Mul, Box::new(a), Box::new(b));
    let add = |a: Ex, b: Ex| Ex::Wrap(Wrap::Add, Box::new(a), Box::new(b));
    let text = |r: Option<(Option<Ex>, Ex)>| {
        r.map(|(s, w)| {
            (
                s.map(|s| lir::same(&s, &Ex::Var(format_ident!("s")))),
                lir::same(&w, &Ex::Var(format_ident!("w"))),
            )
        })
    };
    // l * w, w * l, l * w + s and s + l * w: rows of width w, from 0 or from s.
    assert_eq!(text(row_of(&mul(v(&l), v(&w)), &l)), Some((None, true)));
    assert_eq!(text(row_of(&mul(v(&w), v(&l)), &l)), Some((None, true)));
    assert_eq!(
        text(row_of(&add(mul(v(&l), v(&w)), v(&s)), &l)),
        Some((Some(true), true))
    );
    assert_eq!(
        text(row_of(&add(v(&s), mul(v(&l), v(&w))), &l)),
        Some((Some(true), true))
    );
    // Not rows: l * l, l * w + l, l alone.
    assert_eq!(text(row_of(&mul(v(&l), v(&l)), &l)), None);
    assert_eq!(text(row_of(&add(mul(v(&l), v(&w)), v(&l)), &l)), None);
    assert_eq!(text(row_of(&v(&l), &l)), None);
}

#[test]
fn inexact_quadratic_indexes_keep_their_arithmetic() {
    // `c * c / 2` rounds down at odd c: its differences are not a polynomial's, so it
    // is not read at a running index (the packed triangle is: see above).
    let out = expand(
        "pub fn k(q: [f64; d * d], x: [f64; d]) -> [f64; d] {
            build(d, |j| ifold(j, 0.0, |acc, c| acc + q[c * c / 2] * x[c]))
        }",
    );
    assert!(!out.contains("__at"), "{out}");
    assert!(out.contains("/ 2usize"), "{out}");
}

#[test]
fn integer_valued_polynomials() {
    use crate::front::size::Size;
    use crate::lower::bounds::divisions_exact;
    let c = || Size::Loop(7);
    let d = || Size::Name("d".into());
    let half = |s: Size| Size::Div(Box::new(s), Box::new(Size::Lit(2)));
    // c (2d - c - 1) / 2 and c (c + 1) / 2 are integers; c c / 2 and d / 2 are not.
    let tri = Size::times(
        c(),
        Size::minus(
            Size::minus(Size::times(Size::Lit(2), d()), c()),
            Size::Lit(1),
        ),
    );
    assert!(divisions_exact(&half(tri)));
    assert!(divisions_exact(&half(Size::times(
        c(),
        Size::plus(c(), Size::Lit(1))
    ))));
    assert!(!divisions_exact(&half(Size::times(c(), c()))));
    assert!(!divisions_exact(&half(d())));
    assert!(!divisions_exact(&Size::Rem(Box::new(c()), Box::new(d()))));
}

#[test]
fn rows_read_along_a_loop_become_streams() {
    // img[y][x + 2] in a loop over x: the row is cut once, read through an iterator.
    let out = expand(
        "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h] {
            build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 2]))
        }",
    );
    assert!(out.contains("img . get ("), "{out}");
    assert!(!out.contains("ld (img"), "{out}");
}

#[test]
fn triangle_folds_read_rows_as_streams() {
    // A fold of j terms under a loop over j (GMM's packed triangle): row r of x is cut
    // once per j (its first j elements) rather than each term checked; the other index
    // is no stream.
    let out = expand(
        "pub fn k(l: [f64; n], x: [[f64; n]; m]) -> [f64; m] {
            build(m, |r| sum(build(n, |j| {
                ifold(j, x[r][j], |acc, c| acc + l[c * (j + 1) % n] * x[r][c])
            })))
        }",
    );
    assert!(!out.contains("ld (x"), "{out}");
    assert!(out.contains("ld (l ,"), "{out}");
}

#[test]
fn loops_whose_index_is_unused_zip_slices_alone() {
    // Destination slots and source rows only: no range in the chain.
    let out = expand(
        "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h] {
            build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 2]))
        }",
    );
    assert!(out.contains("in (__d) . zip"), "{out}");
}

#[test]
fn short_fixed_loops_take_no_row_cuts() {
    // A 4 x 4 product unrolls into loads at constant offsets.
    let out = expand("pub fn k(a: [[f64; 4]; 4], x: [f64; 4]) -> [f64; 4] { matvec(a, x) }");
    assert!(!out.contains("a . get ("), "{out}");
    // The same product of run-time size cuts rows.
    let out = expand(
        "pub fn k(a: [[f64; m]; n], x: [f64; m], y: [f64; n]) -> f64 { dot(matvec(a, x), y) }",
    );
    assert!(out.contains("a . get ("), "{out}");
}

#[test]
fn sum_folds_inside_builds_are_interchanged() {
    // matmul: the inner loop runs along rows of b, accumulating into the output row
    // (untiled, with unrolling off).
    let out = expand(
        "#![fsmooth(unroll = false)] pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
    );
    assert!(out.contains("* __slot = * __slot +"), "{out}");
    // Tiled: 16, then 4, then 1 column at a time, each tile's sums in locals over the
    // whole loop over k, b's row cut once per k for a tile, stored once at the end.
    let out = expand(
        "pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
    );
    assert!(!out.contains("* __slot = * __slot +"), "{out}");
    for w in [16, 4, 1] {
        assert!(out.contains(&format!("ldr :: < {w}usize >")), "{w}: {out}");
    }
    // (Each tile's sums for the rows one at a time; where the target has AVX, for both
    // rows of a pair and for the row left over: `tiles_cover_two_rows_where_the_target_has_avx`.)
    assert_eq!(
        out.matches("let mut __t").count(),
        (16 + 4 + 1) * 4,
        "{out}"
    );
    // Small fixed sizes keep the written order.
    let out =
        expand("pub fn k(a: [[f64; 4]; 4], b: [[f64; 4]; 4]) -> [[f64; 4]; 4] { matmul(a, b) }");
    assert!(!out.contains("* __slot = * __slot +"), "{out}");
}

#[test]
fn column_tiles_store_their_sums_as_one_row() {
    let out = expand(
        "pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
    );
    assert!(out.contains("st_row (out"), "{out}");
    // The rows of b are a stream along the sum, each tile's loads one segment of the row.
    assert!(out.contains(":: rows (__rb"), "{out}");
    assert!(out.contains("ldr :: < 16usize > (__sg"), "{out}");
    // Rows wider than the columns read: still tiles, but no row stream (the loads prove
    // only the columns read, and a row stream stops at a partial last row).
    let out = expand(
        "pub fn k(c: [[f64; m]; n], t: [[f64; m]; m]) -> [[f64; m - 1]; n] {
            build(n, |i| build(m - 1, |j| ifold(m, 0.0, |acc, l| acc + c[i][l] * t[l][j])))
        }",
    );
    assert!(out.contains("st_row (out"), "{out}");
    assert!(!out.contains("__sg"), "{out}");
    // Tiles of 16 and of 4 store rows; the last columns, one at a time, store slots (in
    // each of the four copies of the tiles, as above).
    assert_eq!(out.matches("st_row (").count(), 2 * 4, "{out}");
    assert!(out.contains(":: st (out"), "{out}");
}

#[test]
fn tiles_cover_two_rows_where_the_target_has_avx() {
    let out = expand(
        "pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
    );
    let (wide, narrow) = out
        .split_once("} else {")
        .expect("two codes, chosen by the target");
    assert!(
        wide.contains("if cfg ! (target_feature = \"avx\")"),
        "{out}"
    );
    // Two rows a pair, each row's sixteen sums in its own locals, both from one segment of
    // b's row per step (so one segment for the tile, not one per row).
    assert!(wide.contains("let __tr"), "{wide}");
    assert!(
        wide.contains("let mut __t") && wide.contains("_1x15"),
        "{wide}"
    );
    // (Loads of sixteen-wide segments: both rows of the pairs', and the row left over's.)
    assert_eq!(
        wide.matches("ldr :: < 16usize > (__sg").count(),
        2 * 16 + 16,
        "{wide}"
    );
    assert_eq!(wide.matches("Some (__sg").count(), 2 + 2, "{wide}");
    // The row a pair leaves over runs as the rows one at a time do.
    assert!(wide.contains("for __lr"), "{wide}");
    assert!(!narrow.contains("__tr"), "{narrow}");
    // Unrolling off (`jam`), or a product of fixed small sizes: no pairs.
    for src in [
        "#![fsmooth(unroll = false)] pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
        "pub fn k(a: [[f64; 4]; 4], b: [[f64; 4]; 4]) -> [[f64; 4]; 4] { matmul(a, b) }",
    ] {
        assert!(!expand(src).contains("target_feature"), "{src}");
    }
}

#[test]
fn builds_over_sum_folds_take_eight_then_four_rows_at_a_time() {
    // A dense layer's rows: eight accumulators in one loop, one row cut each, the bias
    // added as the eight rows are stored (one row store); then four rows from where the
    // eights ended; then the rows left over, one at a time.
    let out = expand(
        "pub fn k(w: [[f64; m]; n], b: [f64; n], x: [f64; m]) -> [f64; n] { add(matvec(w, x), b) }",
    );
    // (Eight accumulators, then four.)
    assert_eq!(out.matches("let mut __a").count(), 12, "{out}");
    assert!(out.contains(": usize = (n / 8usize) ;"), "{out}");
    assert!(
        out.contains(". wrapping_mul (8usize)) / 4usize) ;"),
        "{out}"
    );
    assert_eq!(out.matches("st_row (out").count(), 2, "{out}");
    assert!(out.contains("for __left"), "{out}");
    // A constant count takes only the widths that fit: six rows are four and two. (Rows
    // too large for unrolling to write the six out.)
    let terms: Vec<String> = (0..60).map(|k| format!("w[i][{k}] * 1.5")).collect();
    let out = expand(&format!(
        "pub fn k(w: [[f64; 64]; 6], x: [f64; 64]) -> [f64; 6] {{ build(6, |i| dot(w[i], x) + {}) }}",
        terms.join(" + ")
    ));
    assert!(!out.contains("/ 8usize"), "{out}");
    assert!(out.contains("(6usize / 4usize)"), "{out}");
    assert_eq!(out.matches("let mut __a").count(), 4, "{out}");
    // Alone, a matrix-vector product is not interchanged (its inner loop would walk down
    // the columns of w) but taken in groups of rows.
    let out = expand("pub fn k(w: [[f64; m]; n], x: [f64; m]) -> [f64; n] { matvec(w, x) }");
    assert!(out.contains("let __nb"), "{out}");
    assert!(!out.contains("* __slot = * __slot +"), "{out}");
    // Not with unrolling off, nor when the fold's length depends on the row (a triangle),
    // nor when a term may fail (an unproven index): the first failing row must fail first.
    for src in [
        "#![fsmooth(unroll = false)] pub fn k(w: [[f64; m]; n], x: [f64; m]) -> [f64; n] { build(n, |i| dot(w[i], x) + 1.0) }",
        "pub fn k(x: [f64; n]) -> [f64; n] { build(n, |i| ifold(i, 0.0, |acc, l| acc + x[l]) * 2.0) }",
        "pub fn k(x: [f64; n], p: usize) -> [f64; n] { build(n, |i| ifold(n, 0.0, |acc, l| acc + x[l + p]) * 2.0) }",
    ] {
        let out = expand(src);
        assert!(!out.contains("let __nb"), "{src}\n{out}");
    }
    // Nor when a row reads the destination's buffer (the state of a power iteration and
    // the product share the frame); the loop it falls back to indexes by its own row
    // index, not by a row of the group it gave up.
    let out = expand(
        "pub fn k(a: [[f64; n]; n], v0: [f64; n], t: usize) -> f64 { sum(ifold(t, v0, |v, s| { let u = matvec(a, v); smul(u, 1.0 / norm(u)) })) }",
    );
    assert!(!out.contains("let __nb"), "{out}");
    let group_row = out
        .match_indices("__r")
        .any(|(at, _)| out[at + 3..].starts_with(|c: char| c.is_ascii_digit()));
    assert!(!group_row, "{out}");
}

#[test]
fn remainders_are_below_their_divisor() {
    // `i % n` indexes `[_; n]` without a check; the `%` keeps its own (n may be 0).
    let out = expand("pub fn k(a: [f64; n], p: usize) -> [f64; p] { build(p, |i| a[i % n]) }");
    assert!(!out.contains(":: check ("), "{out}");
    assert!(out.contains(":: rem ("), "{out}");
    // Not into a shorter array.
    let out = expand(
        "pub fn k(a: [f64; n], b: [f64; n - 1], p: usize) -> [f64; p] { build(p, |i| a[0] + b[i % n]) }",
    );
    assert!(out.contains(":: check ("), "{out}");
}

#[test]
fn unproven_indexes_are_checked() {
    let out = expand("pub fn k(v: [f64; n], i: usize) -> f64 { v[i] }");
    assert!(out.contains(":: check (i , n) ?"), "{out}");
    let out = expand("pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[i + 1]) }");
    assert!(out.contains(":: check"), "{out}");
}

#[test]
fn ifold_accumulator_takes_two_buffers() {
    let out = expand(
        "pub fn k(v: [f64; n], t: usize) -> f64 { sum(ifold(t, v, |s, i| build(n, |j| s[n - 1 - j] * 2.0))) }",
    );
    // A step reading other elements of the state keeps two buffers, taken in turn, two steps a turn: no offsets swapped at run time.
    assert!(out.contains("__pair") && !out.contains("swap"), "{out}");
    assert!(
        out.contains("scratch_len (n : usize , t : usize) -> usize { n + n")
            || out.contains("saturating_add (n , n)"),
        "{out}"
    );
}

#[test]
fn an_ifold_into_the_output_iterates_in_it_and_one_buffer() {
    // The steps write the output and one buffer in turn: no swap, no final copy, n slots.
    let out = expand(
        "pub fn k(v: [f64; n], t: usize) -> [f64; n] { ifold(t, v, |s, i| build(n, |j| s[n - 1 - j] * 2.0)) }",
    );
    assert!(!out.contains("swap"), "{out}");
    assert!(
        out.contains("pub const fn scratch_len (n : usize) -> usize { n }"),
        "{out}"
    );
    // Each step reads one buffer and writes the other.
    assert!(out.contains("out . get_mut"), "{out}");
    assert!(out.contains("scratch . get_mut"), "{out}");
}

#[test]
fn an_allocation_of_no_slots_still_has_a_frame() {
    // Unfused, the zero windows of `slide(3, [s, 0.5])` are mapped into a buffer of 0 slots,
    // which the code fills and reads: the frame it names must exist (it was left out, and
    // `scratch` was an unknown name), empty.
    let out = expand(
        "#![fsmooth(fusion = false)] pub fn k(s: f64) -> f64 { sum(map(slide(3, [s, 0.5]), |w| 1.0)) }",
    );
    assert!(out.contains("scratch ."), "{out}");
    assert!(out.contains("let scratch"), "{out}");
    assert!(out.contains("SCRATCH_LEN : usize = 0usize"), "{out}");
}

#[test]
fn a_fold_that_adds_to_an_array_runs_in_place() {
    // Row sums into one vector: no second buffer, no swap, no final copy.
    let out = expand(
        "pub fn k(x: [[f64; m]; n]) -> [f64; m] { ifold(n, build(m, |j| 0.0), |acc, i| add(acc, x[i])) }",
    );
    assert!(!out.contains("swap"), "{out}");
    // A one-element term adds to its element alone: no loop over the state per step.
    let out = expand(
        "pub fn k(x: [f64; p], idx: [usize; p], m: usize) -> [f64; m] {
            ifold(p, build(m, |j| 0.0), |acc, i| build(m, |j| acc[j] + if j == idx[i] % m { x[i] } else { 0.0 }))
        }",
    );
    assert!(!out.contains("swap"), "{out}");
    assert_eq!(out.matches(" in 0 ..").count(), 1, "{out}");
}

/// A chain of transforms (the hand model's bones): step k replaces row k by its parent's
/// row times its own, or keeps it for a root.
const BONE_CHAIN: &str =
    "pub fn k(rels: [[[f64; 4]; 4]; b], parents: [usize; b]) -> [[[f64; 4]; 4]; b] {
    ifold(b, rels, |acc, k| build(b, |j| {
        if j == k {
            if parents[k] == k { acc[k] } else { matmul(acc[parents[k]], acc[k]) }
        } else {
            acc[j]
        }
    }))
}";

#[test]
fn a_fold_replacing_one_row_a_step_updates_it_in_place() {
    // A chain of transforms: step k replaces row k from its parent's row. The state is the
    // result: it iterates in the output (LANGUAGE.md section 13), each step computes the 16
    // values of row k (written out) and stores them over it: no scratch, not two states
    // (one row of the frame before the row was stored as one literal).
    let out = expand(BONE_CHAIN);
    assert!(out.contains("let __row_"), "{out}");
    assert!(
        !out.contains("__cur_") && !out.contains("__steps_"),
        "{out}"
    );
    assert!(
        out.contains("scratch_len (b : usize) -> usize { 0usize }"),
        "{out}"
    );
    // `!=` with the branches the other way round, an element of a vector.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            ifold(n, a, |acc, k| build(n, |j| if k != j { acc[j] } else { 2.0 * acc[k] }))
        }",
    );
    assert!(out.contains("let __row_"), "{out}");
    // Forward mode through such a fold: its state is the pair (value, tangent), each
    // component replacing its row k (the `if`'s projections taken into its branches by the
    // last `tuples` pass), both updated in place: no double-buffered state.
    let out = expand(
        "fn chain(rels: [[f64; 2]; b], parents: [usize; b]) -> [[f64; 2]; b] {
            ifold(b, rels, |acc, k| build(b, |j| {
                if j == k {
                    if parents[k] == k { acc[k] } else { emul(acc[parents[k]], acc[k]) }
                } else {
                    acc[j]
                }
            }))
        }
        pub fn d(rels: [[f64; 2]; b], parents: [usize; b], t: [[f64; 2]; b]) -> [[f64; 2]; b] {
            jvp(|r| chain(r, parents), rels, t).1
        }",
    );
    assert!(
        out.contains("_0 : usize = k_") && out.contains("_1 : usize = k_"),
        "{out}"
    );
    assert!(!out.contains("__cur"), "{out}");
    // Not when the kept branch is not the state's own element, or the row depends on j.
    for src in [
        "pub fn k(a: [f64; n]) -> [f64; n] { ifold(n, a, |acc, k| build(n, |j| if j == k { 1.0 } else { a[j] })) }",
        "pub fn k(a: [f64; n]) -> [f64; n] { ifold(n, a, |acc, k| build(n, |j| if j == k { acc[j] + 1.0 } else { acc[j] })) }",
    ] {
        assert!(!expand(src).contains("let __row_"), "{src}");
    }
}

/// GMM's objective by its triangle and means, as LANGUAGE.md section 12 writes the gradient.
const TRIANGLE_GRADIENT: &str = "
    fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
        build(d, |j| ifold(j, icf_k[j].exp() * xc[j], |acc, c| {
            acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c]
        }))
    }
    fn objective(a: [f64; k], means: [[f64; d]; k], icf: [[f64; d * (d + 1) / 2]; k], x: [[f64; d]; n]) -> f64 {
        ifold(n, 0.0, |acc, i| acc + logsumexp(build(k, |c| {
            a[c] - 0.5 * sqnorm(q_times(icf[c], sub(x[i], means[c])))
        })))
    }
    pub fn g(a: [f64; k], means: [[f64; d]; k], icf: [[f64; d * (d + 1) / 2]; k], x: [[f64; d]; n])
        -> (f64, [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) {
        grad(|mu, q| objective(a, mu, q, x), means, icf)
    }";

#[test]
fn a_reverse_sweep_adds_along_the_packed_triangle_at_running_indexes() {
    // The reverse of the triangle's fold adds `adj_j * xc[c]` at the packed index and reads
    // the triangle there, in a loop updating its state in place: both at one running index
    // (two additions a term), as the primal's loads are; no `2 * d` checked per term. Two
    // triangle loops: the kept rows' (computed once per point, not again by the sweep, and
    // summed into the value there, not by a loop of its own) and the reverse's.
    let out = expand(TRIANGLE_GRADIENT);
    assert_eq!(out.matches("let mut __at").count(), 2, "{out}");
    assert!(!out.contains("mul (2usize , d"), "{out}");
}

#[test]
fn an_adjoint_row_is_summed_in_the_gradient_s_row_itself() {
    // Each component's adjoint rows (of its triangle, of its mean) are summed straight into
    // the gradient's rows for that component (reverse mode's sums into rows, lowered as
    // increments of one row): no frame row zeroed, summed into and then added to the
    // gradient's, no negated copy for the mean's.
    let out = expand(TRIANGLE_GRADIENT);
    assert!(!out.contains("add_within ("), "{out}");
    assert!(out.contains("let __row_at"), "{out}");
    assert!(!out.contains("= (- :: fsmooth :: __rt :: ld"), "{out}");
}

#[test]
fn a_fold_adding_to_one_row_a_step_adds_in_place() {
    // `build(p, |r| if r == e { row } else { acc[r] })`, `row` adding to `acc[r]`: the terms
    // are added to row `e` of the state where it lies (no row computed in the frame and
    // copied over, no second state); a row outside the state is left alone.
    for row in [
        "build(m, |j| acc[r][j] + x[i][j])",
        "build(m, |j| if j == i % m { acc[r][j] + x[i][0] } else { acc[r][j] })",
    ] {
        let out = expand(&format!(
            "pub fn k(x: [[f64; m]; n], idx: [usize; n], p: usize) -> [[f64; m]; p] {{
                ifold(n, build(p, |r| build(m, |j| 0.0)), |acc, i| build(p, |r| {{
                    if r == idx[i] {{ {row} }} else {{ acc[r] }}
                }}))
            }}"
        ));
        assert!(out.contains("let __row_at"), "{row}: {out}");
        assert!(
            !out.contains("swap") && !out.contains("let __row_ "),
            "{row}: {out}"
        );
        assert!(out.contains("if (__row_at"), "{row}: {out}");
    }
}

#[test]
fn an_unrolled_reverse_sweep_keeps_its_adjoints_in_locals() {
    // A Jacobian's rows by `vjp`: each sweep over the 2 results is unrolled, its state a
    // tuple of a scalar and small arrays. Taken apart after `unroll`, the arrays are
    // literals that fusion makes scalars: nothing is stored in the frame.
    let out = expand(
        "fn f(c: [f64; 3], w: f64) -> [f64; 2] {
            smul([c[0] * c[1], c[1] / c[2]], w)
        }
        pub fn rows(c: [f64; 3], w: f64) -> [[f64; 4]; 2] {
            build(2, |r| {
                let seed = build(2, |q| if q == r { 1.0 } else { 0.0 });
                let g = vjp(|a, b| f(a, b), (c, w), seed);
                concat(g.1, [g.2])
            })
        }",
    );
    assert!(!out.contains("st (scratch"), "{out}");
}

#[test]
fn a_test_adding_to_the_index_and_a_slice_window_are_peeled_to_streams() {
    // `i + 1 < n` is `i + 1` below the loop's count: it cannot overflow, so it is decided in
    // the interior as `i == n - 1` is; and the written-out `sum(a[i - 1..i + 2])` reads its
    // three elements as streams of `a`, as `a[i - 1] + a[i] + a[i + 1]` does, not as loads
    // of a row cut per step.
    let out = expand(
        "pub fn k(a: [f64; n]) -> [f64; n] {
            build(n, |i| if i > 0 && i + 1 < n { sum(a[i - 1..i + 2]) / 3.0 } else { a[i] })
        }",
    );
    assert!(out.contains("let __mid"), "{out}");
    for start in ["1usize", "2usize"] {
        assert!(
            out.contains(&format!(
                "a . get ({start} .. ({start}) . wrapping_add (__mid"
            )),
            "{out}"
        );
    }
    let interior = out.split_once("__slot").map_or("", |s| s.1);
    let interior = interior.split("__rest").next().unwrap_or("");
    assert!(!interior.is_empty() && !interior.contains("ldr"), "{out}");
}

#[test]
fn a_clamp_written_as_an_if_chain_is_decided_in_the_interior() {
    // `if x + dx == 0 { 0 } else if x + dx > w { w - 1 } else { x + dx - 1 }`: in the
    // interior `1..w - 1` (and `1..h - 1` for the rows) every test is decided and every
    // read is proven, so no index is checked there.
    let out = expand(
        "pub fn k(img: [[f64; w]; h], c: [[f64; 3]; 3], w: usize) -> [[f64; w]; h] {
            build(h, |y| build(w, |x| {
                ifold(3, 0.0, |acc, dy| ifold(3, acc, |acc, dx| {
                    let yy = if y + dy == 0 { 0 } else if y + dy > h { h - 1 } else { y + dy - 1 };
                    let xx = if x + dx == 0 { 0 } else if x + dx > w { w - 1 } else { x + dx - 1 };
                    acc + c[dy][dx] * img[yy][xx]
                }))
            }))
        }",
    );
    // The rows' interior (a plain loop over `j`), then the columns' interior in it (the
    // loop writing its slots).
    let rows = out.split_once("for j_").map_or("", |s| s.1);
    let interior = rows.split_once("__slot").map_or("", |s| s.1);
    let interior = interior.split("__rest").next().unwrap_or("");
    assert!(!interior.is_empty(), "{out}");
    assert!(!interior.contains(":: check ("), "{interior}");
    assert!(!interior.contains(" if "), "{interior}");
}

#[test]
fn a_tuple_state_of_small_arrays_lives_in_local_arrays_stepped_in_pairs() {
    // A running maximum and a rotation over 16 features: each state in two local arrays
    // taken in turn, two steps a turn, no offsets swapped at run time and no frame slots for
    // the state.
    let out = expand(
        "pub fn k(x: [[f64; 16]; n]) -> f64 {
            let (a, b) = ifold(n, (build(16, |_| 0.0), build(16, |_| 0.0)), |(a, b), i| {
                (build(16, |j| a[15 - j] + x[i][j]), build(16, |j| b[j] + a[(j + 1) % 16]))
            });
            sum(a) + sum(b)
        }",
    );
    // Two for `a`'s pair, two for the fold's value the sums read (`b` updated in place in
    // its own: its new elements read only their old ones, and `a`'s).
    assert_eq!(out.matches("= & mut [0f64 ; 16usize]").count(), 4, "{out}");
    assert!(!out.contains("swap"), "{out}");
    assert!(out.contains("__pair"), "{out}");
    // Larger, or of a size name: the frame's buffers, still in pairs.
    let out = expand(
        "pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], f64) {
            ifold(n, (build(d, |_| 0.0), 0.0), |(s, t), i| {
                (build(d, |j| s[(j + 1) % d] + x[i][j]), t + s[0])
            })
        }",
    );
    assert!(!out.contains("local_") && !out.contains("swap"), "{out}");
    assert!(out.contains("__pair"), "{out}");
}

#[test]
fn reads_at_a_constant_stride_are_rows_of_a_stream() {
    // The four reads of a 2 x 2 block: two row streams of width 2 (one per source row), each
    // element a constant place in its row, no checked load.
    let out = expand(
        "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w / 2]; h / 2] {
            build(h / 2, |r| build(w / 2, |c| {
                img[2 * r][2 * c] + img[2 * r][2 * c + 1] + img[2 * r + 1][2 * c] + img[2 * r + 1][2 * c + 1]
            }))
        }",
    );
    assert_eq!(
        out.matches(":: rows_of :: < _ , 2usize > (__e").count(),
        2,
        "{out}"
    );
    assert!(!out.contains(":: check ("), "{out}");
}

#[test]
fn a_split_row_of_an_argument_reads_as_its_elements() {
    // Down-sampling by `split` into row pairs and pixel pairs reads what the indexed
    // spelling reads: the same row streams, no row loads through a check.
    let split = expand(
        "pub fn k(img: [[f64; 2 * w]; 2 * h], w: usize) -> [[f64; w]; h] {
            map(split(2, img), |rows| {
                map2(split(2, rows[0]), split(2, rows[1]), |p, q| 0.25 * (p[0] + p[1] + q[0] + q[1]))
            })
        }",
    );
    let indexed = expand(
        "pub fn k(img: [[f64; 2 * w]; 2 * h], w: usize) -> [[f64; w]; h] {
            build(h, |r| build(w, |c| 0.25 * (img[2 * r][2 * c] + img[2 * r][2 * c + 1]
                + img[2 * r + 1][2 * c] + img[2 * r + 1][2 * c + 1])))
        }",
    );
    for out in [&split, &indexed] {
        assert_eq!(
            out.matches(":: rows_of :: < _ , 2usize > (").count(),
            2,
            "{out}"
        );
        assert!(!out.contains("ldr"), "{out}");
    }
    // A row at an index that runs a loop is not read again at each read of its split.
    let k = crate::middle::fuse::tests::optimized(
        "pub fn k(img: [[f64; 2 * w]; h], w: usize) -> [f64; w] {
            let v = split(2, img[ifold(h, 0, |b, q| if img[q][0] > img[b][0] { q } else { b })]);
            build(w, |c| v[c][0] + v[c][1])
        }",
    );
    let folds = crate::middle::fuse::tests::count(&k.body, &|k| {
        matches!(k, crate::middle::ir::Kind::Ifold(..))
    });
    assert_eq!(folds, 1, "{k}");
}

#[test]
fn rows_an_inner_loop_streams_from_stay_slices() {
    // A row of literal width read at constant places is an array (`rows_of`); one that an
    // inner loop streams from stays a slice (`rows`): as an array LLVM wrote Welford's
    // 16-element loops out, 9% dearer (docs/BENCHMARKS.md).
    let out = expand(
        "pub fn k(x: [[f64; 16]; n]) -> [f64; 16] {
            ifold(n, build(16, |_| 0.0), |m, i| build(16, |j| m[j] + (x[i][j] - m[j]) / ((i + 1) as f64)))
        }",
    );
    assert!(
        out.contains(":: rows (") && !out.contains("rows_of"),
        "{out}"
    );
}

#[test]
fn constant_elements_of_a_row_taken_whole_share_its_range_check() {
    // A bone chain's step reads `acc[parents[k]][r][c]` and `acc[k][r][c]` at constant
    // `r` and `c`: each of the two 4 x 4 rows is loaded through one check of its 16 slots
    // (`Dps::blocks`), not one per row of 4.
    let out = expand(BONE_CHAIN);
    assert!(out.contains("ldr_row :: < 16usize > (out"), "{out}");
    assert!(!out.contains("< 4usize > (out"), "{out}");
}

#[test]
fn a_stream_starts_at_a_let_bound_before_its_loop() {
    // `weights[vert][k]` along the loop over `k`, after `let vert = idx[j]`: the row is cut
    // once before the loop (a stream), not loaded with a check at every step.
    let out = expand(
        "pub fn k(w: [[f64; b]; v], idx: [usize; c], t: [[f64; 3]; b]) -> [[f64; 3]; c] {
            build(c, |j| {
                let vert = idx[j];
                ifold(b, [0.0, 0.0, 0.0], |s, k| add(s, smul(t[k], w[vert][k])))
            })
        }",
    );
    assert!(!out.contains(":: ld (w ,"), "{out}");
}

#[test]
fn a_dense_layer_s_reverse_runs_as_a_hand_written_backprop_loop() {
    // Per output, the weights' row is read as a slice (the loop adding in place takes
    // streams): no checked load of `w`, no zeroed buffer added afterwards (`add_within`).
    let out = expand(
        "pub fn k(w: [[f64; h]; o], a: [f64; h]) -> (f64, [[f64; h]; o], [f64; h]) {
            grad(|w, a| sum(build(o, |c| dot(w[c], a).tanh())), w, a)
        }",
    );
    assert!(!out.contains(":: ld (w ,"), "{out}");
    assert!(!out.contains("add_within"), "{out}");
    // Two layers: the per-output loop fills the hidden layer's adjoint and adds into the
    // gradient's row of `w2` (in the frame) through a `&mut` stream of that row, not a
    // checked load and store per element (`lir/in_place.rs`, fills).
    let out = expand(
        "pub fn k(w1: [[f64; i]; h], w2: [[f64; h]; o], x: [[f64; i]; p], labels: [usize; p])
            -> (f64, [[f64; i]; h], [[f64; h]; o]) {
            grad(|w1, w2| sum(build(p, |s| {
                let a1 = map(matvec(w1, x[s]), |v| v.tanh());
                let z = matvec(w2, a1);
                logsumexp(z) - z[labels[s]]
            })), w1, w2)
        }",
    );
    assert!(out.contains("__pm"), "{out}");
    assert!(!out.contains("add_within"), "{out}");
}

/// Linear blend skinning as the hand model writes it: per point, a fold over the bones of
/// their 4 x 4 transforms (in the frame) applied to the point's rest position, weighted.
const SKINNING: &str = "pub fn k(t0: [[[f64; 4]; 4]; b], m: [[[f64; 4]; 4]; b], pos: [[f64; 3]; v],
        w: [[f64; b]; v], idx: [usize; c]) -> [[f64; 3]; c] {
    let t = build(b, |i| matmul(t0[i], m[i]));
    build(c, |j| {
        let x = pos[idx[j]];
        let (s0, s1, s2) = ifold(b, (0.0, 0.0, 0.0), |(s0, s1, s2), k| {
            let tk = t[k];
            let wk = w[idx[j]][k];
            (
                s0 + (tk[0][0] * x[0] + tk[0][1] * x[1] + tk[0][2] * x[2] + tk[0][3]) * wk,
                s1 + (tk[1][0] * x[0] + tk[1][1] * x[1] + tk[1][2] * x[2] + tk[1][3]) * wk,
                s2 + (tk[2][0] * x[0] + tk[2][1] * x[1] + tk[2][2] * x[2] + tk[2][3]) * wk,
            )
        });
        [s0, s1, s2]
    })
}";

#[test]
fn rows_of_the_frame_read_at_the_loop_s_index_are_a_row_stream() {
    // `t[k]`, a 4 x 4 matrix of the frame at the fold's index: the frame's rows of 16 taken
    // one after the other (`lir::row_streams`, row loads), no range check per bone.
    let out = expand(SKINNING);
    assert!(out.contains("rows_of :: < _ , 16usize > ("), "{out}");
    assert!(!out.contains("ldr :: < 16usize > (scratch"), "{out}");
}

#[test]
fn loads_fixed_during_a_loop_are_made_before_it() {
    // `x = pos[idx[j]]` is bound before the fold, read in each step: its three loads are
    // made once per point, before the loop over the bones (`lir::invariant_loads`).
    let out = expand(SKINNING);
    let inner = out.rfind("for (").expect("the loop over the bones");
    let loads: Vec<usize> = out
        .match_indices("ldr_row :: < 3usize > (pos")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(loads.len(), 3, "{out}");
    assert!(loads.iter().all(|&i| i < inner), "{out}");
}

#[test]
fn a_row_bound_at_a_computed_index_computes_it_once() {
    // `x = t[(j + p) % n]` is read in every step of the fold: the checked index is computed
    // where `x` is bound, once per `j`, not in each step (and the row's loads can then be
    // made before the loop).
    let out = expand(
        "pub fn k(t: [[f64; 4]; n], b: [f64; m], p: usize) -> [f64; n] {
            build(n, |j| {
                let x = t[(j + p) % n];
                ifold(m, 0.0, |acc, k| acc * 0.5 + (x[0] + x[3]) * b[k])
            })
        }",
    );
    assert_eq!(out.matches("\"(j + p) % n\"").count(), 1, "{out}");
}

#[test]
fn a_pair_into_the_frame_is_one_row_store_into_an_output_two() {
    // Into the frame (a Jacobian's column pair) one `st_row`, one range check; into an
    // output, whose length the entry checks, two stores (BA's residual pair: 0.7% cheaper).
    let frame = expand(
        "pub fn k(a: [f64; n], b: [f64; n]) -> [f64; n] {
            let t = build(n, |i| [a[i] * 2.0, b[i] + 1.0]);
            build(n, |i| t[n - 1 - i][0] * t[i][1])
        }",
    );
    assert!(frame.contains("st_row (scratch"), "{frame}");
    let out = expand(
        "pub fn k(a: [f64; n], b: [f64; n]) -> [[f64; 2]; n] {
            build(n, |i| [a[i] * 2.0, b[i] + 1.0])
        }",
    );
    assert!(!out.contains("st_row"), "{out}");
}

#[test]
fn every_column_of_an_index_array_is_one_check_of_the_whole_array() {
    // `x[e[j][0]]` and `x[e[j][1]]`: one pass over `e` at entry, not one a column; and an
    // element at a place known only at run time (`f[j][q % 3]`) needs no check of its own
    // once every column is checked.
    let out = expand(
        "pub fn k(x: [f64; m], e: [[usize; 2]; p]) -> [f64; p] {
            build(p, |j| x[e[j][0]] - x[e[j][1]])
        }",
    );
    assert_eq!(out.matches("check_column").count(), 1, "{out}");
    assert!(
        out.contains("check_column (e , 0usize , 1usize , m)"),
        "{out}"
    );
    let out = expand(
        "pub fn k(x: [f64; m], f: [[usize; 3]; p], q: usize) -> [f64; p] {
            build(p, |j| x[f[j][0]] + x[f[j][1]] + x[f[j][2]] + x[f[j][q % 3]])
        }",
    );
    assert_eq!(out.matches("check_column").count(), 1, "{out}");
    assert!(!out.contains("check ("), "{out}");
    // One column alone is checked alone: the others may hold anything.
    let out = expand(
        "pub fn k(x: [f64; m], e: [[usize; 2]; p]) -> [f64; p] {
            build(p, |j| x[e[j][0]] * 2.0)
        }",
    );
    assert!(
        out.contains("check_column (e , 0usize , 2usize , m)"),
        "{out}"
    );
}

#[test]
fn a_row_at_a_multiple_of_its_width_is_read_as_a_row_of_the_buffer() {
    // `v[a]` of rows of 3, `a` an index read from data: `ldr_row` with the row's index (one
    // comparison with the number of rows), not `ldr` with the offset `a * 3`; a row at the
    // loop's own index keeps its offset, whose range LLVM proves.
    let out = expand(
        "pub fn k(v: [[f64; 3]; m], e: [usize; p], w: [[f64; 3]; p]) -> [f64; p] {
            build(p, |j| v[e[j]][0] * v[e[j]][2] + w[j][0] * w[j][1])
        }",
    );
    assert_eq!(out.matches("ldr_row :: < 3usize > (v").count(), 2, "{out}");
    assert!(!out.contains("ldr :: < 3usize > (v"), "{out}");
    assert!(!out.contains("ldr_row :: < 3usize > (w"), "{out}");
    // A row at the index of a loop over the buffer's own rows (`e[j]`, `p` read from
    // `e.len()`): as a row, the loop's bound is the number of rows.
    let out = expand(
        "pub fn k(v: [f64; m], e: [[usize; 2]; p]) -> [f64; p] {
            build(p, |j| v[e[j][0]] * v[e[j][1]])
        }",
    );
    assert!(out.contains("ldr_row_of :: < 2usize , _ > (e"), "{out}");
}

#[test]
fn a_sum_beside_a_fold_of_a_rebuilt_array_keeps_that_fold_s_one_buffer() {
    // `siblings` leaves an array rebuilt whole each step out of the sum's fold: alone it
    // iterates in the output and one buffer (m slots); in the pair's tuple state it took
    // two (2m). A row update beside the sum joins it and needs none.
    let whole = expand(
        "pub fn k(x: [f64; m], c: [usize; p]) -> (f64, [f64; m]) {
            let s = ifold(p, 0.0, |acc, j| acc + x[c[j]]);
            (s, ifold(p, x, |h, j| build(m, |q| h[q] * 0.5 + h[(q + 1) % m] * 0.25)))
        }",
    );
    assert_eq!(scratch(&whole), "m", "{whole}");
    let row = expand(
        "pub fn k(x: [f64; m], c: [usize; p]) -> (f64, [f64; m]) {
            let s = ifold(p, 0.0, |acc, j| acc + x[c[j]]);
            (s, ifold(p, build(m, |q| 0.0), |h, j| build(m, |q| if q == c[j] { h[q] + 1.0 } else { h[q] })))
        }",
    );
    assert_eq!(scratch(&row), "0usize", "{row}");
}

#[test]
fn an_index_below_an_array_length_converts_as_a_signed_integer() {
    // `i + 1` is at most `n = x.len()`: below 2^63, one signed conversion.
    let out = expand(
        "pub fn k(x: [f64; n]) -> [f64; n] {
            build(n, |i| x[i] / ((i + 1) as f64))
        }",
    );
    assert!(out.contains("as i64) as f64"), "{out}");
    // A `usize` parameter no length bounds converts as written.
    let out = expand("pub fn k(p: usize) -> f64 { (p as f64) * 2.0 }");
    assert!(!out.contains("as i64"), "{out}");
    assert!(out.contains("(p as f64)"), "{out}");
}

#[test]
fn rows_of_literal_width_into_an_output_are_stored_as_rows() {
    // Every element of row `i` stored at every step: `&mut [f64; 2]` rows, no range test.
    let out = expand(
        "pub fn k(p: [[f64; 2]; n], s: f64) -> [[f64; 2]; n] {
            build(n, |i| [p[i][0] * s, p[i][1] + s])
        }",
    );
    assert!(out.contains("rows_of_mut :: < _ , 2usize >"), "{out}");
    // A row written elementwise under a test of the row: not a stream of rows.
    let out = expand(
        "pub fn k(p: [[f64; 2]; n]) -> [[f64; 2]; n] {
            build(n, |i| if i == 0 { [0.0, 0.0] } else { [p[i][0], p[i - 1][1]] })
        }",
    );
    assert!(!out.contains("rows_of_mut"), "{out}");
}
