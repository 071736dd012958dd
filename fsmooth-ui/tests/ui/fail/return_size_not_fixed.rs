use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n]) -> [f64; m] {
        build(n, |i| a[i])
    }
}

fn main() {}
