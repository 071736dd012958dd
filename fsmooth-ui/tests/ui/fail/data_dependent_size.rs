use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n]) -> f64 {
        sum(build(a[0] as usize, |i| 1.0))
    }
}

fn main() {}
