use super::*;

/// The remarks of every kernel of `src`.
fn remarks_of(src: &str) -> Vec<Remark> {
    let mut d = crate::front::diag::Diags::default();
    let options = crate::pipeline::front(src.parse().unwrap(), &mut d)
        .unwrap()
        .scope
        .options;
    crate::pipeline::plan_block(src.parse().unwrap())
        .unwrap()
        .iter()
        .flat_map(|(k, p)| remarks(k, p, options))
        .collect()
}

/// The remarks' texts of every kernel of `src`.
fn texts(src: &str) -> Vec<String> {
    remarks_of(src).into_iter().map(|r| r.text).collect()
}

#[test]
fn a_stencils_array_is_stored_read_at_several_indexes_in_one_loop() {
    let t = texts(
        "pub fn k(a: [f64; n]) -> [f64; n] { let e = map(a, |x| x.exp()); \
         build(n, |i| if i + 1 < n { e[i] + e[i + 1] } else { e[i] }) }",
    );
    assert_eq!(
        t,
        [
            "fsmooth: `e` (n f64 slots) is stored in the scratch frame: it is read at three \
          places in one loop, at different indexes: computed where it is read, each element \
          would be computed more than once"
        ]
    );
}

#[test]
fn a_vector_read_once_per_row_is_stored() {
    let t = texts(
        "pub fn k(m: [[f64; k]; n], v: [f64; k]) -> [f64; n] { let t = map(v, |x| x.exp()); \
         build(n, |i| sum(build(k, |j| m[i][j] * t[j]))) }",
    );
    assert_eq!(
        t,
        [
            "fsmooth: `t` (k f64 slots) is stored in the scratch frame: each of its elements is \
          read again on every step of a loop that does not index it: computed where it is \
          read, it would be computed again on every step"
        ]
    );
}

#[test]
fn an_array_read_by_two_loops_is_stored() {
    let t = texts(
        "pub fn k(a: [f64; n]) -> f64 { let e = map(a, |x| x.exp()); let s = sum(e); \
         sum(map(e, |x| x / s)) }",
    );
    assert_eq!(
        t,
        [
            "fsmooth: `e` (n f64 slots) is stored in the scratch frame: it is read by two \
          different loops: computed where it is read, its work would be done in each"
        ]
    );
}

#[test]
fn a_copy_into_the_output_and_a_stencils_state_are_remarks() {
    assert_eq!(
        texts("pub fn k(a: [f64; n]) -> [f64; n] { a }"),
        [
            "fsmooth: `a` (n elements) is copied into the output element by element: it is an \
          array already in memory"
        ]
    );
    let t = texts(
        "pub fn k(a: [f64; n], s: usize) -> [f64; n] { ifold(s, a, |x, t| \
         build(n, |i| if i > 0 { x[i - 1] + x[i] } else { x[i] })) }",
    );
    assert_eq!(t.len(), 2, "{t:?}");
    assert!(t[0].starts_with("fsmooth: the fold state `x` (n f64 slots) is kept in the scratch frame besides its destination"), "{t:?}");
}

#[test]
fn a_fused_kernel_and_a_grad_of_a_sum_have_no_remark() {
    assert!(texts("pub fn k(a: [f64; n]) -> f64 { sum(map(a, |x| x.exp())) }").is_empty());
    assert!(
        texts(
            "pub fn k(a: [f64; n], w: [f64; n]) -> (f64, [f64; n]) { \
             grad(|x| sum(map(map2(x, w, |p, q| p * q), |y| y.sin())), a) }"
        )
        .is_empty()
    );
}

#[test]
fn what_reverse_mode_keeps_says_how_it_grows() {
    // A product carries its state: the sweep back needs the state before each step.
    assert_eq!(
        texts(
            "pub fn k(a: [f64; n]) -> (f64, [f64; n]) { \
             grad(|x| ifold(n, 1.0, |p, i| p * x[i].sin()), a) }"
        ),
        [
            "fsmooth: reverse mode keeps a fold's states (n f64 slots, growing with `n`) in the \
             scratch frame: the sweep back reads them after the forward pass has computed them"
        ]
    );
    let t = texts(
        "pub fn k(a: [f64; n], s: usize) -> (f64, [f64; n]) { \
         grad(|x| sum(ifold(s, x, |st, _| map(st, |y| y.sin()))), a) }",
    );
    // The adjoint of the state is updated in place, in the gradient's output: not kept.
    assert!(
        !t.iter()
            .any(|t| t.starts_with("fsmooth: reverse mode keeps an adjoint")),
        "{t:?}"
    );
    assert!(
        t.iter().any(|t| t.starts_with(
            "fsmooth: reverse mode keeps a fold's states (n * s f64 slots, growing with `n` and `s`)"
        )),
        "{t:?}"
    );
}

#[test]
fn what_the_sweep_makes_stands_on_the_derivative_forms_name() {
    // Line 2, columns 4 to 8: `grad` (or `vjp`), not the block or a prelude function.
    for src in [
        "pub fn k(a: [f64; n], s: usize) -> (f64, [f64; n]) {\n    \
         grad(|x| sum(ifold(s, x, |st, _| map(st, |y| y.sin()))), a) }",
        "pub fn k(a: [f64; n], s: usize) -> (f64, [f64; n]) {\n    \
         vjp(|x| sum(ifold(s, x, |st, _| map(st, |y| y.sin()))), a, 1.0) }",
    ] {
        let form = if src.contains("vjp(") { 3 } else { 4 };
        let swept: Vec<Remark> = remarks_of(src)
            .into_iter()
            .filter(|r| r.text.starts_with("fsmooth: reverse mode keeps"))
            .collect();
        assert_eq!(swept.len(), 1, "{swept:?}");
        for r in swept {
            let (a, z) = (r.span.start.start(), r.span.end.end());
            assert_eq!(
                (a.line, a.column, z.line, z.column),
                (2, 4, 2, 4 + form),
                "{r:?}"
            );
        }
    }
}

#[test]
fn remarks_are_off_by_default_and_deprecated_items_when_on() {
    let src = "pub fn k(a: [f64; n]) -> [f64; n] { a }";
    let off = crate::expand(src.parse().unwrap()).to_string();
    assert!(!off.contains("deprecated"), "{off}");
    let on = crate::expand(
        format!("#![fsmooth(remarks = true)] {src}")
            .parse()
            .unwrap(),
    )
    .to_string();
    assert!(
        on.contains("# [deprecated (note = \"fsmooth: `a` (n elements) is copied"),
        "{on}"
    );
    assert!(on.contains("pub (crate) const fn copied () { }"), "{on}");
    assert!(
        on.contains("const _ : () = k :: remark :: copied () ;"),
        "{on}"
    );
}

/// docs/remarks.md: every ```rust block (a `fsmooth! { .. }`) followed by a ```text block has
/// exactly those remarks, one a line.
#[test]
fn every_remark_of_the_docs_is_what_the_macro_says() {
    let page = include_str!("../../../docs/remarks.md");
    let blocks: Vec<(&str, &str)> = page
        .split("```")
        .skip(1)
        .step_by(2)
        .filter_map(|b| b.split_once('\n'))
        .collect();
    let mut checked = 0;
    for w in blocks.windows(2) {
        let [(lang, code), ("text", want)] = w else {
            continue;
        };
        if *lang != "rust" {
            continue;
        }
        let body = code
            .trim()
            .strip_prefix("fsmooth! {")
            .and_then(|c| c.strip_suffix('}'))
            .expect("a kernel of docs/remarks.md is one `fsmooth! { .. }`");
        let got = texts(body).join("\n");
        assert_eq!(got, want.trim_end(), "docs/remarks.md: {body}");
        checked += 1;
    }
    assert_eq!(checked, 11);
}

#[test]
fn a_fold_state_in_place_that_no_destination_holds_is_stored_once() {
    // The tuple state's `x` is updated in place (each new element reads its own old one)
    // and nothing reads it after the fold (`.1` is the result): one buffer of the frame, said
    // so; `y` iterates in the output.
    assert_eq!(
        texts(
            "pub fn k(a: [f64; n], b: [f64; n], t: usize) -> [f64; n] { \
             ifold(t, (a, b), |(x, y), i| (build(n, |j| 0.5 * x[j]), build(n, |j| y[j] + x[j]))).1 }"
        ),
        [
            "fsmooth: the fold state `(x , y)` (n f64 slots) is stored in the scratch frame, \
             updated in place on every step: no destination of the result holds it",
            "fsmooth: `b` (n elements) is copied into the output element by element: it is an \
             array already in memory",
        ]
    );
}

#[test]
fn an_array_in_the_place_of_a_dead_one_is_remarked_without_slots() {
    // Three stencil steps written out, summed: `u3` takes `u1`'s buffer.
    let t = texts(
        "fn diffuse(u: [f64; n], c: f64) -> [f64; n] {
            build(n, |i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))
        }
        pub fn k(u0: [f64; n], c: f64) -> f64 {
            let u1 = diffuse(u0, c);
            let u2 = diffuse(u1, c);
            let u3 = diffuse(u2, c);
            sum(diffuse(u3, c))
        }",
    );
    assert_eq!(t.len(), 3, "{t:?}");
    assert_eq!(
        t[2],
        "fsmooth: `u3` is stored in the scratch frame in the place of `u1` (no slots of its \
         own): nothing reads `u1` after it"
    );
}
