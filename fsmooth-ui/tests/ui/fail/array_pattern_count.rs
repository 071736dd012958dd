use fsmooth::fsmooth;

fsmooth! {
    pub fn qnorm(q: [f64; 4]) -> f64 {
        let [w, x, y] = q;
        (w * w + x * x + y * y).sqrt()
    }
}

fn main() {}
