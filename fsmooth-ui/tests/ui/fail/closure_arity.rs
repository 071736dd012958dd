use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> [f64; n] {
        build(n, |i, j| v[i])
    }
}

fn main() {}
