use fsmooth::fsmooth;

fsmooth! {
    // Two names for three components: Rust rejects this pattern; fsmooth binds `.0` and
    // `.1` and drops the third without a word. Move to `fail/` once it is an error.
    fn stats(x: [f64; n]) -> (f64, f64, f64) {
        (sum(x), dot(x, x), vmax(x))
    }

    pub fn k(x: [f64; n]) -> f64 {
        let (s, q) = stats(x);
        q - s * s
    }
}

fn main() {}
