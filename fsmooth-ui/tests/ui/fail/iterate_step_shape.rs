// `iterate`'s step must keep the state's shape.
fsmooth::fsmooth! {
    pub fn g(x: [f64; 3]) -> [f64; 3] {
        iterate(x, |s| s[0] > 1.0, |s| build(4, |i| s[i % 3] * 0.5))
    }
}

fn main() {}
