use fsmooth::fsmooth;

fsmooth! {
    // The `else` branch forgot the third component.
    pub fn k(a: f64, b: f64) -> f64 {
        let (lo, hi, d) = if a < b { (a, b, b - a) } else { (b, a) };
        lo + hi + d
    }
}

fn main() {}
