// Blocks importing from blocks: private and crate-visible modules, renames, globs, leading
// `::`, a chain of three blocks, and another crate's blocks.
fsmooth::fsmooth! {
    /// Private to the crate.
    mod small;
    fn twice(x: f64) -> f64 { 2.0 * x }
    pub fn four(x: f64) -> f64 { twice(twice(x)) }
}

pub mod middle {
    fsmooth::fsmooth! {
        pub(crate) mod chain;
        use crate::small::*;
        pub fn eight(x: f64) -> f64 { twice(four(x)) }
    }
}

fsmooth::fsmooth! {
    use crate::middle::chain::{eight};
    use crate::small::{twice as double};
    use ::fsmooth_example_geometry::geometry::{rodrigues};
    pub fn sixteen(x: f64) -> f64 { double(eight(x)) }
    pub fn turn(x: [f64; 3]) -> [f64; 3] { rodrigues([0.0, 0.0, 0.0], x) }
}

// Two blocks of the same source in two modules: their exported macros have distinct names.
pub mod twin_a {
    fsmooth::fsmooth! { pub mod same; pub fn one() -> f64 { 1.0 } }
}
pub mod twin_b {
    fsmooth::fsmooth! { pub mod same; pub fn one() -> f64 { 1.0 } }
}
fsmooth::fsmooth! {
    use crate::twin_a::same::one;
    use crate::twin_b::same::{one as uno};
    pub fn two() -> f64 { one() + uno() }
}

fn main() {
    assert_eq!(two(&mut fsmooth::Region::new()), Ok(2.0));
    let r = &mut fsmooth::Region::new();
    assert_eq!(small::four(1.5, r), Ok(6.0));
    assert_eq!(middle::chain::eight(1.0, r), Ok(8.0));
    assert_eq!(sixteen(0.5, r), Ok(8.0));
    let mut out = [0.0; 3];
    turn(&mut out, &[1.0, 2.0, 3.0], r).unwrap();
    assert_eq!(out, [1.0, 2.0, 3.0]);
}
