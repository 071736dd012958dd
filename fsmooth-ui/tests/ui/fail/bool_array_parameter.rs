use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n], mask: [bool; n]) -> f64 {
        ifold(n, 0.0, |acc, i| if mask[i] { acc + v[i] } else { acc })
    }
}

fn main() {}
