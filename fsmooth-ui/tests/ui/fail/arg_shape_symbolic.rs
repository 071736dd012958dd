use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n] {
        add(a, b)
    }
}

fn main() {}
