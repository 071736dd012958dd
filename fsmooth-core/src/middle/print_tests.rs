use crate::middle::ir::Kernel;

/// The first public kernel of `src`, checked (`middle: false`) or through the middle.
pub(crate) fn kernel(src: &str, middle: bool) -> Kernel {
    let mut d = crate::front::diag::Diags::default();
    let mut block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    assert!(d.is_empty(), "{:?}", d.messages());
    let k = block.kernels.remove(0);
    if middle {
        crate::pipeline::middle(k, block.scope.options).unwrap()
    } else {
        k
    }
}

#[test]
fn a_checked_kernel_prints_its_lets_with_types() {
    let k = kernel(
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }",
        false,
    );
    assert_eq!(
        k.to_string(),
        "pub fn add3(a_0: [f64; n], b_1: [f64; n], c_2: [f64; n]) -> [f64; n] {
    let a_6: [f64; n] = {
        let a_3: [f64; n] = a_0;
        let b_4: [f64; n] = b_1;
        build(n, |i_5| a_3[i_5] + b_4[i_5])
    };
    let b_7: [f64; n] = c_2;
    build(n, |i_8| a_6[i_8] + b_7[i_8])
}
"
    );
    // After the middle: one fused build.
    let k = kernel(
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }",
        true,
    );
    assert_eq!(
        k.to_string(),
        "pub fn add3(a_0: [f64; n], b_1: [f64; n], c_2: [f64; n]) -> [f64; n] {
    build(n, |i_8| a_0[i_8] + b_1[i_8] + c_2[i_8])
}
"
    );
}

#[test]
fn ifold_closures_and_sizes_print_as_written() {
    let k = kernel(
        "pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] { ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha))) }",
        true,
    );
    assert_eq!(
        k.to_string(),
        "pub fn smooth(x_0: [[f64; d]; t], d_1: usize, alpha_2: f64) -> [f64; d] {
    ifold(t, x_0[0], |s_3, i_4| {
        let s_6: f64 = 1.0 - alpha_2;
        build(d, |i_13| s_3[i_13] * s_6 + x_0[i_4][i_13] * alpha_2)
    })
}
"
    );
    let k = kernel(
        "pub fn stencil(a: [f64; n]) -> [f64; n - 2] { build(n - 2, |i| a[i] + a[i + 2]) }",
        true,
    );
    assert!(
        k.to_string()
            .contains("build(n - 2, |i_1| a_0[i_1] + a_0[i_1 + 2])"),
        "{k}"
    );
}

#[test]
fn operators_get_the_parentheses_rust_needs() {
    let k = kernel(
        "pub fn k(a: [f64; n], s: f64) -> f64 { let m = if n > 2 { a[0] } else { -1.0 }; (m - s).abs() * -(s + 1.0) + (n as f64) / (s * s) + sum(a[1..n]) }",
        false,
    );
    let text = k.to_string();
    for part in [
        "let m_2: f64 = if n > 2 { a_0[0] } else { -1.0 };",
        "(m_2 - s_1).abs() * -(s_1 + 1.0) + n as f64 / (s_1 * s_1) + {",
        "let v_3: [f64; n - 1] = a_0[1..n];",
        "ifold(n - 1, -0.0, |acc_4, i_5| acc_4 + v_3[i_5])",
    ] {
        assert!(text.contains(part), "{part}\n{text}");
    }
    // A long `if` goes on lines of its own; a negative receiver keeps its parentheses.
    let k = kernel(
        "pub fn k(a: [f64; n], s: f64) -> f64 { if s > 0.0 { a[0] * a[1] * a[2] * a[3] * a[4] * a[5] * a[6] * a[7] } else { (-2.0).sqrt() } }",
        false,
    );
    let text = k.to_string();
    assert!(
        text.contains("    if s_1 > 0.0 {\n        a_0[0] * a_0[1]"),
        "{text}"
    );
    assert!(
        text.contains("    } else {\n        (-2.0).sqrt()\n    }"),
        "{text}"
    );
}
