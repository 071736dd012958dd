use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        sum(build(n, |i| sum(v[0..i])))
    }
}

fn main() {}
