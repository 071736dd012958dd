use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [[f64; m]; n]) -> f64 {
        sum(a[0])
    }
}

fn main() {}
