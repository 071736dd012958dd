use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f64; n]) -> [f64; n] {
        let h = build(n / 2, |i| x[2 * i]);
        concat(h, h)
    }
}

fn main() {}
