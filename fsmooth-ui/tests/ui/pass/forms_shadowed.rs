// A v2 block's own function named `iterate` (or `scatter_add`) is called, form or not.
fsmooth::fsmooth! {
    fn iterate(a: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, a, |s, _t| build(n, |i| 0.5 * s[i] + 0.25))
    }
    fn scatter_add(m: usize, n: usize, x: [f64; n]) -> f64 {
        sum(x) * (m as f64)
    }
    pub fn k(a: [f64; n]) -> f64 {
        sum(iterate(a, 3)) + scatter_add(2, n, a)
    }
}

fn main() {
    let mut r = fsmooth::Region::new();
    assert_eq!(k(&[1.0, 3.0], &mut r).unwrap(), 0.5 * 0.5 * 0.5 * 4.0 + 0.25 * (0.5 * 0.5 + 0.5 + 1.0) * 2.0 + 8.0);
}
