use fsmooth::fsmooth;

fsmooth! {
    // The state is a row of m channels, but the body gives one of them.
    pub fn k(x: [[f64; m]; n], m: usize, alpha: f64) -> [[f64; m]; n] {
        scan(n, x[0], |s, i| s[0] + alpha * (x[i][0] - s[0]))
    }
}

fn main() {}
