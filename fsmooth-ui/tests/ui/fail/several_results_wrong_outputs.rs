use fsmooth::{fsmooth, Region};

fsmooth! {
    pub fn split_signs(x: [f64; n]) -> ([f64; n], [f64; n]) {
        (map(x, |v| v.max(0.0)), map(x, |v| v.min(0.0)))
    }
}

fn main() {
    let mut region = Region::new();
    let x = [1.0, -2.0, 3.0];
    let mut pos = [0.0; 3];
    // Called as if it had one result: `out1` is missing.
    let _ = split_signs(&mut pos, &x, &mut region);
}
