use fsmooth::fsmooth;

fsmooth! {
    // One error: `v` is bound even though its value failed, and its use says nothing more.
    pub fn k(s: f64, a: [f64; 2], b: [f64; 3]) -> f64 {
        let v = if s > 0.0 { a } else { b };
        sum(v)
    }
}

fn main() {}
