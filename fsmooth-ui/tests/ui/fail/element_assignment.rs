use fsmooth::fsmooth;

fsmooth! {
    pub fn histogram(x: [usize; n], m: usize) -> [f64; m] {
        let mut h = build(m, |_| 0.0);
        h[x[0]] += 1.0;
        h
    }
}

fn main() {}
