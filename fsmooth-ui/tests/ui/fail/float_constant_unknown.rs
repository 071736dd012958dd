use fsmooth::fsmooth;

fsmooth! {
    pub fn area(r: f64) -> f64 {
        std::f64::consts::PIE * r * r
    }
}

fn main() {}
