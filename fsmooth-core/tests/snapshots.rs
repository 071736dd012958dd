//! Expansion snapshots: what the macro emits for a few kernels, pretty-printed with
//! prettyplease and compared with `tests/snapshots/*.rs`. After a deliberate change to the
//! generated code, refresh them with `FSMOOTH_BLESS=1 cargo test -p fsmooth-core --test
//! snapshots` and review the diff.

use std::path::PathBuf;

fn check(name: &str, src: &str) {
    let ts = fsmooth_core::expand(src.parse().expect("tokens"));
    let file: syn::File = syn::parse2(ts).expect("the expansion is valid Rust");
    let got = prettyplease::unparse(&file);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.rs"));
    if std::env::var_os("FSMOOTH_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {}: run with FSMOOTH_BLESS=1", path.display()));
    assert!(
        got == want,
        "expansion of `{name}` changed; if intended, rerun with FSMOOTH_BLESS=1.\n--- got ---\n{got}"
    );
}

#[test]
fn add3_is_one_fused_loop_with_no_scratch() {
    check(
        "add3",
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }",
    );
}

#[test]
fn norm_of_sum_is_one_fold() {
    check(
        "norm_add",
        "pub fn norm_add(a: [f64; n], b: [f64; n]) -> f64 { norm(add(a, b)) }",
    );
}

#[test]
fn cross_has_constant_sizes() {
    check(
        "cross",
        "pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] { cross(a, b) }",
    );
}

#[test]
fn stencil_materialises_its_shared_input() {
    check(
        "stencil",
        "pub fn stencil(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 0.5); build(n - 2, |i| s[i] + s[i + 1] + s[i + 2]) }",
    );
}

#[test]
fn ifold_elementwise_state_is_updated_in_place_in_the_output() {
    check(
        "smooth",
        "pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] { ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha))) }",
    );
}

#[test]
fn ifold_stencil_state_iterates_in_the_output_and_one_buffer() {
    check(
        "blur_steps",
        "pub fn blur_steps(a: [f64; n], t: usize) -> [f64; n] { ifold(t, a, |s, i| build(n, |j| if j > 0 { s[j - 1] + s[j] } else { s[j] })) }",
    );
}

#[test]
fn errors_keep_the_signature() {
    check(
        "error_stub",
        "pub fn bad(a: [f64; 3], b: [f64; 4]) -> [f64; 3] { add(a, b) }",
    );
}

#[test]
fn dense_layer_takes_eight_then_four_rows_at_a_time() {
    check(
        "dense",
        "pub fn dense(w: [[f64; i]; o], b: [f64; o], x: [f64; i]) -> [f64; o] { add(matvec(w, x), b) }",
    );
}

#[test]
fn matrix_product_takes_tiles_of_columns() {
    check(
        "matmul",
        "pub fn matmul2(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
    );
}

#[test]
fn invariant_exp_is_a_table_before_the_loop() {
    check(
        "hoisted",
        "pub fn hoisted(q: [[f64; d]; k], x: [[f64; d]; n], d: usize) -> f64 { ifold(n, 0.0, |acc, i| acc + sum(build(k, |c| dot(map(q[c], |v| v.exp()), x[i])))) }",
    );
}

#[test]
fn a_pub_mod_block_is_its_module_with_the_macro_handing_its_source() {
    check(
        "exported",
        "/// Geometry.\npub mod geometry;\nfn sq(x: f64) -> f64 { x * x }\npub fn norm2(v: [f64; 3]) -> f64 { sum(map(v, |x| sq(x))) }",
    );
}
