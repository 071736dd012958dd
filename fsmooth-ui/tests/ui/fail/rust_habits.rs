use fsmooth::fsmooth;

fsmooth! {
    pub fn method_sum(v: [f64; n]) -> f64 {
        v.sum()
    }
    pub fn path_max(a: f64, b: f64) -> f64 {
        f64::max(a, b)
    }
    pub fn free_sqrt(a: f64) -> f64 {
        sqrt(a)
    }
    pub fn free_mean(x: [f64; n]) -> f64 {
        mean(x)
    }
    pub fn int_branch(x: [f64; n]) -> [f64; n] {
        scan(n, 0.0, |s, i| if i == 0 { 0 } else { s + x[i] })
    }
    pub fn count_positive(x: [f64; n]) -> f64 {
        sum(map(x, |v| if v > 0.0 { 1 } else { 0 }))
    }
    pub fn slice_param(x: &[f64]) -> f64 {
        sum(x)
    }
    pub fn vec_param(x: Vec<f64>) -> f64 {
        sum(x)
    }
}

fn main() {}
