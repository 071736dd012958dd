use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; 2]) -> f64 {
        sum(slide(4, a)[0])
    }
}

fn main() {}
