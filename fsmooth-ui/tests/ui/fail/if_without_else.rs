use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f64) -> f64 {
        if x > 0.0 { x }
    }
}

fn main() {}
