use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n], f: fn(f64) -> f64) -> [f64; n] {
        map(v, f)
    }
}

fn main() {}
