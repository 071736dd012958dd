use fsmooth::fsmooth;

fsmooth! {
    pub fn k(out: [f64; n]) -> f64 {
        sum(out)
    }
}

fn main() {}
