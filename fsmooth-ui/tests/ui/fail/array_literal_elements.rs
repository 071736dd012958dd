use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; 2], b: [f64; 3]) -> f64 {
        let m = [a, b];
        0.0
    }
}

fn main() {}
