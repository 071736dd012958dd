use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; 5]) -> [[f64; 2]; 2] {
        split(2, a)
    }
}

fn main() {}
