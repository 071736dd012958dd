// A Rust call of a kernel with an argument missing: rustc's error, with the kernel's
// generated signature shown where the function is defined.
fsmooth::fsmooth! {
    /// Sum of two vectors.
    pub fn add2(a: [f64; n], b: [f64; n]) -> [f64; n] {
        add(a, b)
    }
}

fn main() {
    let mut out = [0.0; 3];
    let _ = add2(&mut out, &[1.0; 3], &[2.0; 3]);
}
