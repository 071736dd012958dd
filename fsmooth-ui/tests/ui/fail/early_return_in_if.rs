use fsmooth::fsmooth;

fsmooth! {
    /// A guard clause, as a Rust user writes one: one error, with the spelling fsmooth has.
    pub fn k(x: [f64; n], t: f64) -> f64 {
        if t < 0.0 {
            return 0.0;
        }
        sum(x) * t
    }
}

fn main() {}
