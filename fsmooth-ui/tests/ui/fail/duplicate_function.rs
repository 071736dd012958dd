use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f64) -> f64 {
        x
    }

    pub fn k(x: f64) -> f64 {
        x * 2.0
    }
}

fn main() {}
