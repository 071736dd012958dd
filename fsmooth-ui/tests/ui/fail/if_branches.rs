use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; 3], b: [f64; 4], c: bool) -> f64 {
        sum(if c { a } else { b })
    }
}

fn main() {}
