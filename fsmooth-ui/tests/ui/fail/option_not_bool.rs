use fsmooth::fsmooth;

fsmooth! {
    #![fsmooth(reassociate = "yes")]

    pub fn k(v: [f64; n]) -> f64 {
        sum(v)
    }
}

fn main() {}
