use fsmooth::fsmooth;

fsmooth! {
    // Running count of positive samples.
    pub fn k(x: [f64; n]) -> [f64; n] {
        let c = scan(n, 0, |c, i| if x[i] > 0.0 { c + 1 } else { c });
        build(n, |i| c[i] as f64)
    }
}

fn main() {}
