//! Tests of tuples, several results, scans and views in the translation (LANGUAGE.md
//! sections 8 and 9), through the code generated for them.

/// The expansion of `src`, without doc comments (whose prose would match the searches).
fn expand(src: &str) -> String {
    let out = crate::expand(src.parse().unwrap()).to_string();
    let mut code = String::new();
    let mut rest = out.as_str();
    while let Some(at) = rest.find("# [doc = \"") {
        code.push_str(&rest[..at]);
        let after = &rest[at..];
        rest = &after[after.find("\"]").map_or(after.len(), |e| e + 2)..];
    }
    code.push_str(rest);
    code
}

/// The scratch a kernel's expansion declares (its `scratch_len` body or `SCRATCH_LEN`).
fn scratch(out: &str) -> String {
    let at = out
        .find("scratch_len (")
        .or_else(|| out.find("SCRATCH_LEN"))
        .expect("a scratch length");
    let rest = &out[at..];
    let body = rest.find(['{', '=']).map_or(rest, |b| &rest[b + 1..]);
    body[..body.find(['}', ';']).unwrap_or(body.len())]
        .trim()
        .to_string()
}

#[test]
fn several_results_take_one_destination_each_and_return_the_scalars() {
    let out = expand(
        "pub fn stats(v: [f64; n]) -> (f64, f64, [f64; n]) {
            let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + v[i], q + v[i] * v[i]));
            let mean = s / (n as f64);
            (mean, q / (n as f64) - mean * mean, build(n, |i| v[i] - mean))
        }",
    );
    assert!(
        out.contains("pub fn stats (out2 : & mut (impl :: fsmooth :: RowMajorMut < f64 > + ? Sized) , v : & (impl :: fsmooth :: RowMajor < f64 > + ? Sized)"),
        "{out}"
    );
    assert!(
        out.contains("Result < (f64 , f64) , :: fsmooth :: Error >"),
        "{out}"
    );
    assert!(out.contains("pub const fn out2_len (n : usize)"), "{out}");
    assert!(!out.contains("fn out_len"), "{out}");
    assert!(out.contains("arg : \"out2\""), "{out}");
    assert_eq!(scratch(&out), "0usize", "{out}");
}

#[test]
fn every_destination_is_checked_before_the_frame_and_the_loops() {
    let out = expand(
        "pub fn two(a: [f64; n]) -> ([f64; n], [f64; n]) {
            let t = map(a, |x| x * x);
            (build(n, |i| t[i] + t[n - 1 - i]), map(a, |x| x + 1.0))
        }",
    );
    let frame = out.find("region . frame").unwrap();
    for arg in ["arg : \"out0\"", "arg : \"out1\""] {
        assert!(out.find(arg).unwrap() < frame, "{arg}: {out}");
    }
}

#[test]
fn a_scalar_scan_keeps_its_state_in_a_local() {
    let out =
        expand("pub fn cumsum(x: [f64; n]) -> [f64; n] { scan(n, 0.0, |acc, i| acc + x[i]) }");
    assert_eq!(scratch(&out), "0usize", "{out}");
    // The state is stored into `out` once per step, never loaded back.
    assert!(!out.contains(":: ld (out"), "{out}");
}

#[test]
fn an_array_scan_reads_the_row_before_from_the_destination() {
    let out = expand(
        "pub fn fib(k: usize) -> [[f64; 2]; k] { scan(k, [0.0, 1.0], |a, i| [a[1], a[0] + a[1]]) }",
    );
    // The initial state is the only scratch; later steps read `out`'s previous row.
    assert_eq!(scratch(&out), "2usize", "{out}");
    assert!(out.contains("(out ,"), "{out}");
}

#[test]
fn a_tuple_scan_component_that_nothing_reads_is_not_stored() {
    let out = expand(
        "pub fn biquad(x: [f64; n], b0: f64, b1: f64, b2: f64, a1: f64, a2: f64) -> [f64; n] {
            let ys = scan(n, (0.0, 0.0, 0.0), |(y, s1, s2), i| {
                let yn = b0 * x[i] + s1;
                (yn, b1 * x[i] - a1 * yn + s2, b2 * x[i] - a2 * yn)
            });
            ys.0
        }",
    );
    assert_eq!(scratch(&out), "0usize", "{out}");
}

#[test]
fn views_in_the_contract_need_no_scratch() {
    for src in [
        "pub fn k(a: [f64; n], b: [f64; m]) -> f64 { sum(concat(a, b)) }",
        "pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n + m] { concat(map(a, |x| x * 2.0), map(b, |x| x + 1.0)) }",
        "pub fn k(a: [f64; n]) -> [f64; n * 2] { join(build(n, |i| [a[i], 2.0 * a[i]])) }",
        "pub fn k(a: [f64; n]) -> [f64; n] { map(reverse(a), |x| x * 2.0) }",
        "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0) }",
        "pub fn k(a: [f64; n * 2]) -> [f64; n] { map(split(2, a), |r| r[0] + r[1]) }",
        "pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n + m] { map(concat(a, b), |x| x * 3.0) }",
    ] {
        let out = expand(src);
        assert_eq!(scratch(&out), "0usize", "{src}\n{out}");
    }
}

#[test]
fn a_fold_over_a_concat_folds_each_part_in_turn() {
    let out = expand("pub fn k(a: [f64; n], b: [f64; m]) -> f64 { sum(concat(a, b)) }");
    // Two loops, no choice per element.
    assert_eq!(out.matches("for ").count(), 2, "{out}");
    assert!(!out.contains("if ("), "{out}");
}

#[test]
fn without_views_the_parts_are_stored_and_copied() {
    let out = expand(
        "#![fsmooth(views = false)]
        pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n + m] { concat(map(a, |x| x * 2.0), map(b, |x| x + 1.0)) }",
    );
    assert_ne!(scratch(&out), "0usize", "{out}");
}

#[test]
fn a_tuple_through_a_helper_fuses_its_array_component() {
    let out = expand(
        "fn pair(a: [f64; n]) -> ([f64; n], f64) { (build(n, |i| a[i] * 2.0), sum(a)) }
        pub fn k(a: [f64; n]) -> [f64; n] { let (d, s) = pair(a); build(n, |i| d[i] + s) }",
    );
    assert_eq!(scratch(&out), "0usize", "{out}");
}

#[test]
fn a_tuple_state_fold_of_small_arrays_keeps_each_in_two_local_arrays() {
    let out = expand(
        "pub fn k(a: [f64; 3], s: usize) -> ([f64; 3], f64) {
            ifold(s, (a, 0.0), |(v, t), i| (build(3, |j| v[(j + 1) % 3]), t + v[0]))
        }",
    );
    // Two local arrays of the array state (a state of 3 `f64`s), and out0 written from
    // the last: no frame.
    assert_eq!(scratch(&out), "0usize", "{out}");
    assert_eq!(out.matches("= & mut [0f64 ; 3usize]").count(), 2, "{out}");
}

#[test]
fn a_run_time_window_of_zero_is_an_error_at_entry() {
    let out = expand(
        "pub fn k(x: [f64; n], w: usize) -> [f64; n + 1 - w] {
            build(n + 1 - w, |i| sum(slide(w, x)[i]))
        }",
    );
    let check = out
        .find("div (w , w , \"slide(w, ..) with w = 0\")")
        .expect("w checked at entry");
    assert!(check < out.find("Shape { arg : \"out\"").unwrap(), "{out}");
}
