use fsmooth::{Region, fsmooth};

fsmooth! {
    /// 2 x 2 blocks: the helper's sizes are its argument's halves.
    fn half(img: [[f64; 2 * w]; 2 * h]) -> [[f64; w]; h] {
        build(h, |r| build(w, |c| img[2 * r][2 * c] + img[2 * r + 1][2 * c + 1]))
    }

    pub fn once(img: [[f64; 2 * w]; 2 * h], w: usize) -> [[f64; w]; h] {
        half(img)
    }

    /// `8 * w` halves to `4 * w`, twice to `2 * w`.
    pub fn twice(img: [[f64; 8 * w]; 8 * h], w: usize) -> [[f64; 2 * w]; 2 * h] {
        half(half(img))
    }
}

fn main() {
    let img: Vec<f64> = (0..64).map(|v| v as f64).collect();
    let mut out = vec![0.0; 16];
    once(&mut out, &img, 4, &mut Region::new()).unwrap();
    assert_eq!(out[0], 0.0 + 9.0);
    let mut out = vec![0.0; 4];
    twice(&mut out, &img, 1, &mut Region::new()).unwrap();
    assert_eq!(out[0], (0.0 + 9.0) + (18.0 + 27.0));
}
