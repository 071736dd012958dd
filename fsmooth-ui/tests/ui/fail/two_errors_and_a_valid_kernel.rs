use fsmooth::{fsmooth, Region};

fsmooth! {
    pub fn first(a: [f64; 3], b: [f64; 4]) -> [f64; 3] {
        add(a, b)
    }

    pub fn second(x: f64) -> f64 {
        x + 1
    }

    pub fn fine(a: [f64; n]) -> f64 {
        sum(a)
    }

    // `steps` is a plain value, not a size: `mod descend`'s functions take `n` alone.
    pub fn descend(x0: [f64; n], p: [f64; n], steps: usize, alpha: f64) -> [f64; n] {
        ifold(steps, x0, |x, _| add(x, smul(p, alpha)))
    }
}

fn main() {
    let mut region = Region::new();
    let mut out = [0.0; 3];
    // No "cannot find function" cascade: the broken kernels keep their signatures.
    let _ = first(&mut out, &[1.0; 3], &[1.0; 4], &mut region);
    let _ = second(1.0, &mut region);
    let _ = fine(&[1.0, 2.0], &mut region);
    let _ = descend::scratch_len(8);
    let _ = descend::out_len(8);
}
