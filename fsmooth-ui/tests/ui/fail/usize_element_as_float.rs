use fsmooth::fsmooth;

fsmooth! {
    // A weighted gather: the index itself is not a weight.
    pub fn k(v: [f64; n], idx: [usize; p]) -> f64 {
        ifold(p, 0.0, |acc, j| acc + v[idx[j]] * idx[j])
    }
}

fn main() {}
