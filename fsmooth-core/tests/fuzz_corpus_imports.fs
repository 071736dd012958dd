/// Geometry.
pub mod geo;
use crate::other::{f, g as h};
use crate::more::*;
fn sq(x: f64) -> f64 { x * x }
pub fn k(v: [f64; n]) -> f64 { sum(map(v, |x| sq(x))) + f(1.0) + h(2.0) }
====
@fsmooth_import { "" [crate::geo] (crate) "geo_1" false { pub mod geo; fn sq(x: f64) -> f64 { x * x } } }
use crate::geo::{sq as square};
pub fn k(v: [f64; n]) -> f64 { sum(map(v, |x| square(x))) }
