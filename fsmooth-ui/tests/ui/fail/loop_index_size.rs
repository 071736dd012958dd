use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n]) -> f64 {
        sum(build(n, |i| sum(build(i, |j| 1.0))))
    }
}

fn main() {}
