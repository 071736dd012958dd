use fsmooth::fsmooth;

fsmooth! {
    // Points stored as x y z triples, but the length does not say so.
    pub fn k(a: [f64; n]) -> f64 {
        let pts = split(3, a);
        sum(pts[0])
    }
}

fn main() {}
