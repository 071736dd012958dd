use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n]) -> [f64; n] {
        ifold(3, a, |acc, i| acc[0..2])
    }
}

fn main() {}
