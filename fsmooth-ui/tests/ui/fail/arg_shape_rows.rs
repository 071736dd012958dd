use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [[f64; 3]; k], b: [[f64; 3]; 4]) -> [[f64; 3]; k] {
        madd(a, b)
    }
}

fn main() {}
