use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [[f64; 3]; 3], v: [f64; 3]) -> f64 {
        dot(a, v)
    }
}

fn main() {}
