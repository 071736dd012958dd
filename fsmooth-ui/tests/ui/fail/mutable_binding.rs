use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f64) -> f64 {
        let mut y = x;
        y
    }
}

fn main() {}
