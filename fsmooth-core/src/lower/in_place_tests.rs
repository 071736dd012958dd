//! Fold states updated in place (LANGUAGE.md section 13): the plan's rule on steps as users
//! write them, and the scratch the translation then takes.

use crate::lower::tests::{expand, scratch};

#[test]
fn an_elementwise_state_is_one_buffer_and_none_as_the_result() {
    // `x + alpha * p`: one buffer when the state is summed, none when it is the result.
    let summed = expand(
        "pub fn k(a: [f64; n], p: [f64; n], t: usize) -> f64 {
            sum(ifold(t, a, |x, i| build(n, |j| x[j] + 0.5 * p[j])))
        }",
    );
    assert_eq!(scratch(&summed), "n", "{summed}");
    assert!(!summed.contains("__pair"), "{summed}");
    let result = expand(
        "pub fn k(a: [f64; n], p: [f64; n], t: usize) -> [f64; n] {
            ifold(t, a, |x, i| { let y = build(n, |j| x[j] + 0.5 * p[j]); y })
        }",
    );
    assert_eq!(scratch(&result), "0usize", "{result}");
}

#[test]
fn a_tuple_state_whose_components_read_each_other_at_their_index_is_one_loop() {
    // Welford with a size name: the new mean read by the new M2 beside the old mean, both in
    // their outputs, one loop over the features (the two `build`s fused), no scratch.
    let out = expand(
        "pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {
            ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {
                let k = (i + 1) as f64;
                let mean1 = build(d, |j| mean[j] + (x[i][j] - mean[j]) / k);
                (mean1, build(d, |j| m2[j] + (x[i][j] - mean[j]) * (x[i][j] - mean1[j])))
            })
        }",
    );
    assert_eq!(scratch(&out), "0usize", "{out}");
    assert!(out.contains("__elem") && !out.contains("__pair"), "{out}");
}

#[test]
fn conjugate_gradient_keeps_its_stencil_and_updates_the_rest_in_place() {
    // CG on 1-D Poisson: `ap` reads p's neighbours (a buffer of its own), then x, r and p
    // each updated over itself: n slots besides the result.
    let out = expand(
        "pub fn k(b: [f64; n], steps: usize) -> [f64; n] {
            let (x, r, p, rs) = ifold(steps, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), it| {
                let ap = build(n, |i| {
                    let l = if i > 0 { p[i - 1] } else { 0.0 };
                    let h = if i + 1 < n { p[i + 1] } else { 0.0 };
                    2.0 * p[i] - l - h
                });
                let alpha = rs / dot(p, ap);
                let x1 = build(n, |i| x[i] + alpha * p[i]);
                let r1 = build(n, |i| r[i] - alpha * ap[i]);
                let rs1 = dot(r1, r1);
                let p1 = build(n, |i| r1[i] + rs1 / rs * p[i]);
                (x1, r1, p1, rs1)
            });
            x
        }",
    );
    assert!(!out.contains("__pair"), "{out}");
    assert_eq!(
        scratch(&out),
        "usize :: saturating_add (usize :: saturating_add (n , n) , n)",
        "{out}"
    );
}

#[test]
fn a_step_reading_the_old_state_after_its_new_value_keeps_two_buffers() {
    // The old state read after the new one is computed (its sum, for the scalar
    // component), or read at another index: two buffers, as before.
    for step in [
        "{ let y = build(n, |j| x[j] * 0.5); (y, s + sum(x)) }",
        "(build(n, |j| x[j] + x[0]), s)",
        "{ let y = x; (build(n, |j| y[j] + 1.0), s) }",
    ] {
        let src = format!(
            "pub fn k(a: [f64; n], t: usize) -> f64 {{
                let (x, s) = ifold(t, (a, 0.0), |(x, s), i| {step});
                sum(x) + s
            }}"
        );
        let out = expand(&src);
        if step.contains("let y = x;") {
            // A `let` naming the state is the state: in place.
            assert_eq!(scratch(&out), "n", "{step}: {out}");
        } else {
            assert!(out.contains("__pair"), "{step}: {out}");
        }
    }
}

#[test]
fn a_let_bound_constant_start_costs_what_it_costs_written_out() {
    // `let zero = build(d, |_| 0.0); (zero, zero)` as a fold's start is written where it is
    // read, as `(build(d, |_| 0.0), build(d, |_| 0.0))` is: no buffer for `zero`.
    let step = "|(m, s), i| (build(d, |j| m[j] + x[i][j]), build(d, |j| s[j] + x[i][j] * x[i][j]))";
    let bound = expand(&format!(
        "pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            let zero = build(d, |_| 0.0);
            ifold(n, (zero, zero), {step})
        }}"
    ));
    let written = expand(&format!(
        "pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), {step})
        }}"
    ));
    assert_eq!(scratch(&bound), "0usize", "{bound}");
    assert_eq!(scratch(&written), scratch(&bound));
}

#[test]
fn a_matrix_state_whose_elements_read_their_own_is_one_buffer() {
    // Each element of the new matrix reads only its own old element, however the rows are
    // spelled: in the output as the result, one buffer of h * w summed.
    for step in [
        "build(h, |r| build(w, |c| s[r][c] * 0.5 + 1.0))",
        "build(h, |r| map(s[r], |v| v * 0.5 + 1.0))",
        "map(s, |row| map(row, |v| v * 0.5 + 1.0))",
    ] {
        let result = expand(&format!(
            "pub fn k(m: [[f64; w]; h], w: usize, t: usize) -> [[f64; w]; h] {{
                ifold(t, m, |s, _| {step})
            }}"
        ));
        assert_eq!(scratch(&result), "0usize", "{step}\n{result}");
        let summed = expand(&format!(
            "pub fn k(m: [[f64; w]; h], w: usize, t: usize) -> f64 {{
                sum(join(ifold(t, m, |s, _| {step})))
            }}"
        ));
        assert_eq!(
            scratch(&summed),
            "usize :: saturating_mul (h , w)",
            "{step}\n{summed}"
        );
    }
    // A row read at another row's index is no update in place: two buffers.
    let shifted = expand(
        "pub fn k(m: [[f64; w]; h], w: usize, t: usize) -> f64 {
            sum(join(ifold(t, m, |s, _| build(h, |r| build(w, |c| s[(r + 1) % h][c] * 0.5)))))
        }",
    );
    assert_ne!(
        scratch(&shifted),
        "usize :: saturating_mul (h , w)",
        "{shifted}"
    );
}

#[test]
fn a_state_of_literal_rows_is_a_tuple_of_its_rows() {
    // Welford's mean and M2 as the rows of one `[[f64; 16]; 2]`, the new state an array
    // literal: the tuple spelling's scratch and code shape (no double buffer), whether the
    // first state is a `build`, a literal or an argument, as the result or read after.
    let tuple = expand(
        "pub fn k(x: [[f64; 16]; n]) -> ([f64; 16], [f64; 16]) {
            let (mean, m2) = ifold(n, (build(16, |_| 0.0), build(16, |_| 0.0)), |(mean, m2), i| {
                let mean1 = build(16, |j| mean[j] + (x[i][j] - mean[j]) / ((i + 1) as f64));
                (mean1, build(16, |j| m2[j] + (x[i][j] - mean[j]) * (x[i][j] - mean1[j])))
            });
            (mean, build(16, |j| m2[j] / (n as f64)))
        }",
    );
    for init in [
        "build(2, |_| build(16, |_| 0.0))",
        "[build(16, |_| 0.0), build(16, |_| 0.0)]",
    ] {
        let rows = expand(&format!(
            "pub fn k(x: [[f64; 16]; n]) -> ([f64; 16], [f64; 16]) {{
                let s = ifold(n, {init}, |s, i| {{
                    let mean1 = build(16, |j| s[0][j] + (x[i][j] - s[0][j]) / ((i + 1) as f64));
                    [mean1, build(16, |j| s[1][j] + (x[i][j] - s[0][j]) * (x[i][j] - mean1[j]))]
                }});
                (s[0], build(16, |j| s[1][j] / (n as f64)))
            }}"
        ));
        assert_eq!(scratch(&rows), scratch(&tuple), "{init}\n{rows}");
        assert!(!rows.contains("__pair"), "{rows}");
    }
    // An argument as the first state, the whole state the result.
    let out = expand(
        "pub fn k(x: [f64; n], s0: [[f64; n]; 2], t: usize) -> [[f64; n]; 2] {
            ifold(t, s0, |s, i| [build(n, |j| s[0][j] + x[j]), build(n, |j| s[1][j] * s[0][j])])
        }",
    );
    assert!(!out.contains("__pair"), "{out}");
}

#[test]
fn a_state_read_at_a_computed_row_or_whole_keeps_its_rows() {
    // Read at a row the step computes, or read whole: not taken apart (a tuple cannot be
    // indexed at run time). (A `build(2, ..)` step is written out by `unroll` first.)
    for src in [
        "pub fn k(x: [f64; n], t: usize) -> [[f64; n]; 2] {
            ifold(t, build(2, |_| x), |s, i| [build(n, |j| s[i % 2][j] + x[j]), s[1]])
        }",
        "pub fn k(x: [f64; n], t: usize) -> [[f64; n]; 2] {
            ifold(t, build(2, |_| x), |s, i| [build(n, |j| s[0][j] + sum(join(s))), s[1]])
        }",
    ] {
        let k = crate::middle::fuse::tests::optimized(src);
        assert_eq!(
            crate::middle::fuse::tests::count(&k.body, &|k| matches!(
                k,
                crate::middle::ir::Kind::Tuple(_)
            )),
            0,
            "{k}"
        );
    }
}

#[test]
fn a_state_of_concatenated_pieces_read_apart_is_a_tuple_of_its_pieces() {
    // Goertzel's two 8-element states as one `[f32; 16]`, the new one a `concat` of the new
    // first half and the old first half: the tuple spelling's scratch, no double buffer.
    let tuple = expand(
        "pub fn k(x: [f32; n], c: [f32; 8]) -> [f32; 8] {
            let (s1, s2) = ifold(n, (build(8, |_| 0.0f32), build(8, |_| 0.0f32)), |(s1, s2), i| {
                (build(8, |k| x[i] + c[k] * s1[k] - s2[k]), s1)
            });
            build(8, |k| s1[k] * s1[k] + s2[k] * s2[k] - c[k] * s1[k] * s2[k])
        }",
    );
    let pieces = expand(
        "pub fn k(x: [f32; n], c: [f32; 8]) -> [f32; 8] {
            let s = ifold(n, build(16, |_| 0.0f32), |s, i| {
                concat(build(8, |k| x[i] + c[k] * s[k] - s[k + 8]), s[0..8])
            });
            build(8, |k| s[k] * s[k] + s[k + 8] * s[k + 8] - c[k] * s[k] * s[k + 8])
        }",
    );
    assert_eq!(scratch(&pieces), scratch(&tuple), "{pieces}");
    assert!(!pieces.contains("__pair"), "{pieces}");
}

#[test]
fn a_state_read_across_its_pieces_keeps_its_shape() {
    // A read whose index may fall in either piece (`s[k + i % 2]`, `s[(3 * k + i) % 16]`, a
    // slice straddling the boundary): not taken apart. (A read at a literal index, as a
    // literal `build` written out leaves it, is in one piece.)
    for step in [
        "concat(build(8, |k| s[k + i % 2] * 0.5), s[0..8])",
        "concat(build(8, |k| s[(3 * k + i) % 16] * 0.5), s[0..8])",
        "concat(build(8, |k| s[k] * 0.5), s[4..12])",
    ] {
        let src = format!(
            "pub fn k(x: [f64; 16], t: usize) -> [f64; 16] {{ ifold(t, x, |s, i| {step}) }}"
        );
        let k = crate::middle::fuse::tests::optimized(&src);
        assert_eq!(
            crate::middle::fuse::tests::count(&k.body, &|k| matches!(
                k,
                crate::middle::ir::Kind::Tuple(_)
            )),
            0,
            "{step}\n{k}"
        );
    }
}

#[test]
fn a_small_state_of_literal_size_kept_in_two_buffers_lives_in_locals() {
    // A step reading other elements of the old state keeps two buffers: both local arrays
    // for at most 16 `f64`s (LANGUAGE.md section 13), as the result or read after the fold.
    for src in [
        "pub fn k(x: [f64; n]) -> f64 {
            let s = ifold(n, build(16, |_| 0.0), |s, i| build(16, |j| s[(j + 1) % 16] * 0.5 + x[i]));
            sum(s)
        }",
        "pub fn k(x: [f64; n]) -> [f64; 12] {
            ifold(n, build(12, |_| 0.0), |s, i| build(12, |j| if j == 0 { x[i] } else { s[j - 1] * 0.9 }))
        }",
    ] {
        let out = expand(src);
        assert_eq!(scratch(&out), "0usize", "{src}\n{out}");
    }
    // Past 16 elements, the frame: the value's home and the other buffer.
    let out = expand(
        "pub fn k(x: [f64; n]) -> f64 {
            let s = ifold(n, build(17, |_| 0.0), |s, i| build(17, |j| s[(j + 1) % 17] * 0.5 + x[i]));
            sum(s)
        }",
    );
    assert_eq!(scratch(&out), "34usize", "{out}");
}

#[test]
fn reverse_mode_through_a_scatter_keeps_nothing_per_step() {
    // The adjoint of `x` adds into row `i` twice per step (`x[i] * x[i]`, one choice per
    // factor): one choice (`middle::equal`), read at the row inside `if p == r` (its own
    // element there), updated in place in the gradient's output.
    let out = expand(
        "fn loss(x: [f64; n], idx: [usize; n], w: [f64; m]) -> f64 {
            let h = scatter_add(m, n, |i| (idx[i], x[i] * x[i]));
            dot(h, w)
        }
        pub fn loss_grad(x: [f64; n], idx: [usize; n], w: [f64; m]) -> (f64, [f64; n], [f64; m]) {
            grad(|x, w| loss(x, idx, w), x, w)
        }",
    );
    let s = scratch(&out);
    let names: Vec<&str> = s
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .collect();
    assert!(names.contains(&"m") && !names.contains(&"n"), "{s}");
    // A tuple state whose row update reads the row at `r` under `if p == r`, the other
    // component computed from elsewhere: both in place as the result.
    let out = expand(
        "pub fn k(x: [f64; n], a: [f64; m], t: usize) -> ([f64; m], [f64; n]) {
            ifold(t, (build(m, |_| 0.0), build(n, |_| 0.0)), |s, i| {
                let r = i % n;
                let q = build(m, |j| a[j] * s.0[j]);
                (build(m, |j| q[j] + 1.0), build(n, |p| if p == r { s.1[r] + x[r] } else { s.1[p] }))
            })
        }",
    );
    assert_eq!(scratch(&out), "0usize", "{out}");
}

#[test]
fn a_new_value_read_at_the_tested_row_is_stored_not_fused() {
    // Generated program 911's gradient: the step's `q`, read at `r` under `if p == r`, is not
    // computed element by element in the state's loop (it has no element `r` there): it is
    // stored, and the state is still updated in place. (It was grouped, and the translation
    // asked for its place without end.)
    let out = expand(
        "pub fn k(a: [f64; n], t: usize) -> [f64; n] {
            ifold(t, build(n, |_| 0.0), |s, i| {
                let r = i % n;
                let q = build(n, |j| a[j] * 2.0 + s[j]);
                build(n, |p| s[p] + (if p == r { q[r] + 1.0 } else { q[p] }))
            })
        }",
    );
    assert!(!out.contains("__internal_error"), "{out}");
    assert_eq!(scratch(&out), "n", "{out}");
}
