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
fn print_scratch() {
    for src in [
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }",
        "pub fn stencil(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 0.5); build(n - 2, |i| s[i] + s[i + 1] + s[i + 2]) }",
        "pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] { ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha))) }",
        "pub fn k(a: [f64; n]) -> f64 { let m = if n > 2 { a[0] } else { -1.0 }; m.abs() + (n as f64) + sum(a[1..n]) }",
    ] {
        println!("{}", kernel(src, false));
        println!("{}", kernel(src, true));
    }
}
