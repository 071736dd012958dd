use fsmooth::fsmooth;

fsmooth! {
    pub fn k(l: [f64; n], r: [f64; m]) -> [f64; 2 * n] {
        interleave(l, r)
    }
}

fn main() {}
