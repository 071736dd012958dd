// `iterate`'s condition must be a bool.
fsmooth::fsmooth! {
    pub fn g(x: f64) -> f64 {
        iterate(x, |s| s - 1.0, |s| s * 0.5)
    }
}

fn main() {}
