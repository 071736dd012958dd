use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [[f64; 4]; 3], v: [f64; 3]) -> [f64; 3] {
        matvec(a, v)
    }
}

fn main() {}
