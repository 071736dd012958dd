use fsmooth::fsmooth;

fsmooth! {
    pub fn lowest(x: [f64; n]) -> f64 {
        ifold(n, f64::NEG_INFINTY, |m, i| m.max(x[i]))
    }
}

fn main() {}
