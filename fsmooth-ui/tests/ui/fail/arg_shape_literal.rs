use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; 3], b: [f64; 4]) -> [f64; 3] {
        add(a, b)
    }
}

fn main() {}
