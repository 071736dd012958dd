// A derivative is taken by floats: a `usize` argument is held constant by capturing it.
fsmooth::fsmooth! {
    fn f(x: f64, k: usize) -> f64 { x * (k as f64) }
    pub fn d(x: f64, k: usize) -> (f64, f64) { jvp(f, (x, k), (1.0, 0)) }
}

fn main() {}
