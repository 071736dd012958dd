//! Tests of sums in lanes (`#![fsmooth(reassociate = true)]`), through the code generated.

fn expand(src: &str) -> String {
    crate::expand(src.parse().unwrap()).to_string()
}

const DOT: &str =
    "pub fn k(a: [f64; n], b: [f64; n]) -> f64 { ifold(n, 0.0, |acc, i| acc + a[i] * b[i]) }";

#[test]
fn reassociated_sums_add_in_lanes() {
    let out = expand(&format!("#![fsmooth(reassociate = true)] {DOT}"));
    // Eight lanes, the chunks cut from the operands' streams, each product fused (in the
    // lanes, the remaining steps and the loop in order below eight steps).
    assert!(out.contains("let mut __lane7 : f64 = - 0.0"), "{out}");
    assert!(!out.contains("__lane8"), "{out}");
    assert_eq!(out.matches("chunks_exact (8usize)").count(), 4, "{out}");
    assert_eq!(out.matches(":: fused (").count(), 8 + 1 + 1, "{out}");
    assert!(!out.contains(":: ld (a"), "{out}");
    // In order without the option.
    let out = expand(DOT);
    assert!(!out.contains("__lane"), "{out}");
    assert!(!out.contains("fused"), "{out}");
}

#[test]
fn only_float_sums_whose_step_has_no_loop_take_lanes() {
    let lanes = |body: &str| {
        let out = expand(&format!(
            "#![fsmooth(reassociate = true)] pub fn k(a: [[f64; m]; n], v: [usize; n]) -> f64 {{ {body} }}"
        ));
        out.matches("let mut __lane1 :").count()
    };
    // The inner sum takes lanes; the outer one, whose step is a loop, does not.
    assert_eq!(lanes("ifold(n, 0.0, |acc, i| acc + sum(a[i]))"), 1);
    // Not a sum: a product, a step reading its state twice, a sum of indexes.
    assert_eq!(lanes("ifold(n, 1.0, |acc, i| acc * a[i][0])"), 0);
    assert_eq!(lanes("ifold(n, 1.0, |acc, i| acc + acc * a[i][0])"), 0);
    assert_eq!(lanes("ifold(n, 0, |acc, i| acc + v[i]) as f64"), 0);
    // A triangle's rows (counted by an enclosing index) are short on average: in order.
    assert_eq!(
        lanes("sum(build(n, |j| ifold(j, 0.0, |acc, c| acc + a[c][0] * a[j][0])))"),
        0
    );
    // Too short to fill the lanes (and not written out, with unrolling off).
    let short = |count: usize| {
        let out = expand(&format!(
            "#![fsmooth(reassociate = true, unroll = false)] pub fn k(a: [f64; 9]) -> f64 {{ ifold({count}, 0.0, |acc, i| acc + a[i]) }}"
        ));
        out.contains("__lane1")
    };
    assert!(!short(7));
    assert!(short(8));
}

#[test]
fn reassociated_rows_of_sums_take_lanes_instead_of_jams() {
    let src = "pub fn k(w: [[f64; m]; n], x: [f64; m]) -> [f64; n] { matvec(w, x) }";
    let jammed = expand(src);
    assert!(!jammed.contains("__lane"), "{jammed}");
    let out = expand(&format!("#![fsmooth(reassociate = true)] {src}"));
    assert_eq!(out.matches("let mut __lane1 :").count(), 1, "{out}");
    // Matrix products keep their interchange and tiles (their sums run down columns), the
    // same code as without the option where the target has no AVX (the last branch); their
    // tiles of several rows fuse their multiply-adds.
    let product = "pub fn k(a: [[f64; m]; n], b: [[f64; m]; m]) -> [[f64; m]; n] { matmul(a, b) }";
    // (The code after the last `else`, to the end of the function, less its closing braces.)
    let narrow = |out: &str| {
        let (_, last) = out.rsplit_once("} else {")?;
        let (code, _) = last.split_once(":: core :: result :: Result :: Ok")?;
        Some(code.trim_end_matches(['}', ' ']).to_string())
    };
    let out = expand(&format!("#![fsmooth(reassociate = true)] {product}"));
    let plain = expand(product);
    assert!(
        narrow(&out).is_some() && narrow(&out) == narrow(&plain),
        "{out}"
    );
    assert!(
        !out.contains("__lane") && out.contains(":: fused ("),
        "{out}"
    );
    assert!(!plain.contains(":: fused ("), "{plain}");
}

#[test]
fn f32_sums_take_lanes_of_f32() {
    let out = expand("#![fsmooth(reassociate = true)] pub fn k(a: [f32; n]) -> f32 { sum(a) }");
    assert!(out.contains("let mut __lane1 : f32 = - 0.0"), "{out}");
}
