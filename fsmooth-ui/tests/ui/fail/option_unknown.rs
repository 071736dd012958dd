use fsmooth::fsmooth;

fsmooth! {
    #![fsmooth(reassociation = true)]

    pub fn k(v: [f64; n]) -> f64 {
        sum(v)
    }
}

fn main() {}
