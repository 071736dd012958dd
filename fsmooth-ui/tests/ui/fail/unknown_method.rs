use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: f64) -> f64 {
        x.sqr()
    }
}

fn main() {}
