//! Arrays written over the one they replace ([`crate::lower::overwrite`]): the rule on
//! chains as users write them, and where it must not apply.

use crate::lower::tests::{expand, scratch};

const STEP: &str = "fn step(x: [f64; n], p: [f64; n]) -> [f64; n] {
    let s = 1.0 / norm(x);
    build(n, |i| x[i] * s + p[i])
}";

#[test]
fn steps_written_out_iterate_in_the_output_as_the_fold_does() {
    let lets = expand(&format!(
        "{STEP} pub fn k(x0: [f64; n], p: [f64; n]) -> [f64; n] {{
            let x1 = step(x0, p);
            let x2 = step(x1, p);
            step(x2, p)
        }}"
    ));
    let fold = expand(&format!(
        "{STEP} pub fn k(x0: [f64; n], p: [f64; n]) -> [f64; n] {{ ifold(3, x0, |x, _| step(x, p)) }}"
    ));
    assert_eq!(scratch(&lets), "0usize", "{lets}");
    assert_eq!(scratch(&fold), "0usize", "{fold}");
}

#[test]
fn steps_written_out_and_summed_keep_one_buffer() {
    let lets = expand(&format!(
        "{STEP} pub fn k(x0: [f64; n], p: [f64; n]) -> f64 {{
            sum(step(step(step(x0, p), p), p))
        }}"
    ));
    assert_eq!(scratch(&lets), "n", "{lets}");
}

#[test]
fn an_array_read_after_its_successor_is_not_written_over() {
    // `x1` is read again after `x2` (its sum): `x2` needs a place of its own.
    let out = expand(&format!(
        "{STEP} pub fn k(x0: [f64; n], p: [f64; n]) -> f64 {{
            let x1 = step(x0, p);
            let x2 = step(x1, p);
            sum(x2) * x2[0] * sum(x1)
        }}"
    ));
    assert_eq!(scratch(&out), "usize :: saturating_add (n , n)", "{out}");
}

#[test]
fn an_array_read_at_another_index_is_not_written_over() {
    // `x2[i]` reads `x1[n - 1 - i]`: element i would read a slot already replaced.
    let out = expand(&format!(
        "{STEP} pub fn k(x0: [f64; n], p: [f64; n]) -> f64 {{
            let x1 = step(x0, p);
            let x2 = build(n, |i| x1[n - 1 - i] + x1[i]);
            sum(x2) * x2[0]
        }}"
    ));
    assert_eq!(scratch(&out), "usize :: saturating_add (n , n)", "{out}");
}

#[test]
fn an_array_read_through_a_view_after_its_successor_is_not_written_over() {
    // `tail` is a view of `x1`'s buffer, read after `x2` is computed.
    let out = expand(&format!(
        "{STEP} pub fn k(x0: [f64; n], p: [f64; n]) -> f64 {{
            let x1 = step(x0, p);
            let tail = x1[1..n];
            let x2 = step(x1, p);
            sum(x2) * x2[0] + sum(tail)
        }}"
    ));
    assert_eq!(scratch(&out), "usize :: saturating_add (n , n)", "{out}");
}

#[test]
fn a_matrix_replaced_element_by_element_is_written_over() {
    let out = expand(
        "pub fn k(a: [[f64; w]; h]) -> [[f64; w]; h] {
            let m1 = build(h, |r| build(w, |c| a[r][c] * 2.0 + a[(r + 1) % h][c]));
            let s = sum(join(m1));
            build(h, |r| build(w, |c| m1[r][c] / s))
        }",
    );
    assert_eq!(scratch(&out), "0", "{out}");
}

const DIFFUSE: &str = "fn diffuse(u: [f64; n], c: f64) -> [f64; n] {
    build(n, |i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))
}";

#[test]
fn stencil_steps_written_out_take_turns_in_the_output_and_one_buffer() {
    // A stencil reads its neighbours, so no step is written over its predecessor; but each
    // step's predecessor's predecessor is dead: the steps take turns in `out` and one
    // buffer, as `ifold(5, ..)` does, however many are written out.
    for (steps, written) in [
        (3, "diffuse(diffuse(diffuse(u0, c), c), c)"),
        (
            5,
            "diffuse(diffuse(diffuse(diffuse(diffuse(u0, c), c), c), c), c)",
        ),
    ] {
        let out = expand(&format!(
            "{DIFFUSE} pub fn k(u0: [f64; n], c: f64) -> [f64; n] {{ {written} }}"
        ));
        let fold = expand(&format!(
            "{DIFFUSE} pub fn k(u0: [f64; n], c: f64) -> [f64; n] {{ ifold({steps}, u0, |u, _| diffuse(u, c)) }}"
        ));
        assert_eq!(scratch(&out), "n", "{out}");
        assert_eq!(scratch(&out), scratch(&fold));
    }
}

#[test]
fn stencil_steps_written_out_and_summed_take_turns_in_two_buffers() {
    let out = expand(&format!(
        "{DIFFUSE} pub fn k(u0: [f64; n], c: f64) -> f64 {{
            sum(diffuse(diffuse(diffuse(diffuse(u0, c), c), c), c))
        }}"
    ));
    assert_eq!(scratch(&out), "usize :: saturating_add (n , n)", "{out}");
}

#[test]
fn a_tuple_state_of_literal_count_costs_what_it_costs_written_out() {
    // The compiler writes `ifold(2, ..)` of a tuple state out; its components' steps then
    // fuse as the hand-written ones do (one loop, no buffer).
    let fold = expand(
        "pub fn k(a: [f64; n], s: f64) -> (f64, [f64; n]) {
            ifold(2, (s, a), |(x, v), i| (x * 0.5 + 1.0, add(smul(v, 0.5), v)))
        }",
    );
    let written = expand(
        "pub fn k(a: [f64; n], s: f64) -> (f64, [f64; n]) {
            let s1 = { let (x, v) = (s, a); (x * 0.5 + 1.0, add(smul(v, 0.5), v)) };
            let (x, v) = s1;
            (x * 0.5 + 1.0, add(smul(v, 0.5), v))
        }",
    );
    assert_eq!(scratch(&fold), "0usize", "{fold}");
    assert_eq!(scratch(&written), "0usize", "{written}");
    assert_eq!(
        fold.matches("for ").count(),
        written.matches("for ").count()
    );
}

const WELFORD_STEP: &str = "fn wstep(mean: [f64; d], m2: [f64; d], xi: [f64; d], k: f64)
    -> ([f64; d], [f64; d]) {
    let delta = sub(xi, mean);
    let mean1 = add(mean, map(delta, |v| v / k));
    (mean1, add(m2, emul(delta, sub(xi, mean1))))
}";

#[test]
fn a_state_divided_into_its_result_iterates_in_that_output() {
    // `m2` is read after the fold only by the second result, element by element: it
    // iterates in `out1` and is divided there, as `mean` iterates in `out0`.
    for last in [
        "(mean, map(m2, |v| v / (n as f64)))",
        "(mean, build(d, |j| m2[j] / (n as f64)))",
    ] {
        let out = expand(&format!(
            "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
                let (mean, m2) = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {{
                    wstep(mean, m2, x[i], (i + 1) as f64)
                }});
                {last}
            }}"
        ));
        assert_eq!(scratch(&out), "0usize", "{last}: {out}");
    }
    // Through the tuple's projection, unnamed.
    let out = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            let s = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |s, i| {{
                wstep(s.0, s.1, x[i], (i + 1) as f64)
            }});
            (s.0, map(s.1, |v| v / (n as f64)))
        }}"
    ));
    assert_eq!(scratch(&out), "0usize", "{out}");
}

#[test]
fn a_state_read_beside_its_successor_keeps_a_place_of_its_own() {
    // The first result reads `m2` at another index, the second result is computed over
    // it: `m2` cannot iterate in `out1`.
    let out = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            let (mean, m2) = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {{
                wstep(mean, m2, x[i], (i + 1) as f64)
            }});
            (build(d, |j| mean[j] + m2[d - 1 - j]), map(m2, |v| v / (n as f64)))
        }}"
    ));
    assert_eq!(scratch(&out), "d", "{out}");
    // Read at another index by the array written over it.
    let out = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            let (mean, m2) = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {{
                wstep(mean, m2, x[i], (i + 1) as f64)
            }});
            (mean, build(d, |j| m2[d - 1 - j] / (n as f64)))
        }}"
    ));
    assert_eq!(scratch(&out), "d", "{out}");
}

#[test]
fn a_state_summed_with_another_array_keeps_its_place() {
    // The variance reads another fold's array beside `m2` (as a gradient sums adjoints):
    // `m2` stays in the frame (moving it into `out1` only saves scratch, and slowed the GMM
    // gradient's fold).
    let out = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            let (mean, m2) = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {{
                wstep(mean, m2, x[i], (i + 1) as f64)
            }});
            let top = ifold(n, build(d, |_| 0.0), |s, i| build(d, |j| s[j].max(x[i][j])));
            (mean, build(d, |j| m2[j] / (n as f64) + top[j]))
        }}"
    ));
    assert_eq!(scratch(&out), "usize :: saturating_add (d , d)", "{out}");
}

#[test]
fn a_small_state_of_run_time_length_has_a_local_version() {
    let out = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> ([f64; d], [f64; d]) {{
            let (mean, m2) = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {{
                wstep(mean, m2, x[i], (i + 1) as f64)
            }});
            (mean, map(m2, |v| v / (n as f64)))
        }}"
    ));
    let squeezed: String = out.split_whitespace().collect();
    assert!(squeezed.contains("if(d<=16usize){"), "{out}");
    assert!(
        squeezed.contains("letlocal_0:&mut[f64;16usize]=&mut[0f64;16usize];"),
        "{out}"
    );
    assert!(squeezed.contains("letlocal_1:&mut[f64;16usize]"), "{out}");
    // A literal length already has its locals; a state in the frame stays there.
    let literal = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; 4]; n]) -> ([f64; 4], [f64; 4]) {{
            ifold(n, (build(4, |_| 0.0), build(4, |_| 0.0)), |(mean, m2), i| {{
                wstep(mean, m2, x[i], (i + 1) as f64)
            }})
        }}"
    ));
    assert!(!literal.contains("<= 16usize"), "{literal}");
    let summed = expand(&format!(
        "{WELFORD_STEP} pub fn k(x: [[f64; d]; n], d: usize) -> f64 {{
            let (mean, m2) = ifold(n, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), i| {{
                wstep(mean, m2, x[i], (i + 1) as f64)
            }});
            sum(mean) + sum(m2)
        }}"
    ));
    assert!(!summed.contains("<= 16usize"), "{summed}");
}

#[test]
fn rows_scaled_by_a_factor_bound_first_are_written_over_their_array() {
    // `smul(s[j], f)` binds `f` before its `build`: the scaled rows are still computed over
    // the scatter's sums, as `map(s[j], |v| v * f)` is.
    for row in ["smul(s[j], 1.0 / c[j])", "map(s[j], |v| v * (1.0 / c[j]))"] {
        let out = expand(&format!(
            "pub fn k(pts: [[f64; d]; n], labels: [usize; n], c: [f64; k]) -> [[f64; d]; k] {{
                let s = scatter_add(k, n, |i| (labels[i], pts[i]));
                build(k, |j| {row})
            }}"
        ));
        assert_eq!(scratch(&out), "0usize", "{row}: {out}");
    }
}
