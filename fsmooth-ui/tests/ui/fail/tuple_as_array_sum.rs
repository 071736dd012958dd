use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n], b: [f64; n]) -> f64 {
        let t = (a, b);
        sum(t)
    }
}

fn main() {}
