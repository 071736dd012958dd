use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n], b: [f64; n]) -> [f64; 3 * n] {
        let t = (a, b);
        concat(t, a)
    }
}

fn main() {}
