// Reverse mode through an `iterate` carrying a float: the steps are not known before it runs.
fsmooth::fsmooth! {
    pub fn g(x: f64) -> (f64, f64) {
        grad(|x| iterate(x, |s| s > 1.0, |s| s * 0.5), x)
    }
}

fn main() {}
