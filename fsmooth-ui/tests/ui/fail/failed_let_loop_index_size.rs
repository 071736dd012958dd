use fsmooth::fsmooth;

fsmooth! {
    // One error: `w` is bound even though its value failed, and its use says nothing more.
    pub fn k(a: [f64; n]) -> f64 {
        sum(build(n, |i| {
            let w = build(i, |j| a[j]);
            sum(w)
        }))
    }
}

fn main() {}
