//! Gradients that read two or three rows of one differentiated array per step: a mesh's
//! spring energy over its edges and the squared edge lengths of its faces (vision and
//! graphics: Laplacian smoothing, as-rigid-as-possible terms, pose graphs). Each in three
//! spellings users wrote from the docs (a trial's, kept as written), beside a hand-written
//! gradient adding to the two or three rows in place. Spelling A is [`Variant::Fsmooth`],
//! B and C are [`Variant::SpellingB`] and [`Variant::SpellingC`].

use super::{Rng, SPELLED, Variant, Workload, spelled_slot as slot};
use fsmooth::{Region, fsmooth};
use std::hint::black_box;

/// Vertices and edges (or faces).
pub const MESH_M: usize = 1000;
pub const MESH_P: usize = 3000;

fsmooth! {
    /// Spelling A: `sum(build(..))` of `sqnorm(sub(..))`, the indexes read where used.
    pub fn edges_a(v: [[f64; 3]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| sum(build(p, |j| sqnorm(sub(x[e[j][0]], x[e[j][1]])))), v)
    }

    /// Spelling B: an `ifold`, the edge taken apart by a pattern, the difference `let`-bound.
    pub fn edges_b(v: [[f64; 3]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| {
            let [a, b] = e[j];
            let d = sub(x[a], x[b]);
            acc + dot(d, d)
        }), v)
    }

    /// A scalar helper for spelling C.
    fn sqdist(x: [f64; 3], y: [f64; 3]) -> f64 {
        let dx = x[0] - y[0];
        let dy = x[1] - y[1];
        let dz = x[2] - y[2];
        dx * dx + dy * dy + dz * dz
    }

    /// Spelling C: a `map` over the edges with a pattern parameter and the helper.
    pub fn edges_c(v: [[f64; 3]; m], e: [[usize; 2]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| sum(map(e, |[a, b]| sqdist(x[a], x[b]))), v)
    }

    /// Faces, spelling A: a pattern, the three edges' `sqnorm`s added.
    pub fn faces_a(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| sum(build(p, |j| {
            let [a, b, c] = f[j];
            sqnorm(sub(x[a], x[b])) + sqnorm(sub(x[b], x[c])) + sqnorm(sub(x[c], x[a]))
        })), v)
    }

    /// Faces, spelling B: an `ifold`, the face's edges a `sum(build(3, ..))` over its corners.
    pub fn faces_b(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| {
            acc + sum(build(3, |k| sqnorm(sub(x[f[j][k]], x[f[j][(k + 1) % 3]]))))
        }), v)
    }

    /// Faces, spelling C: an `ifold` adding the three terms one by one.
    pub fn faces_c(v: [[f64; 3]; m], f: [[usize; 3]; p]) -> (f64, [[f64; 3]; m]) {
        grad(|x| ifold(p, 0.0, |acc, j| acc + sqnorm(sub(x[f[j][0]], x[f[j][1]]))
            + sqnorm(sub(x[f[j][1]], x[f[j][2]])) + sqnorm(sub(x[f[j][2]], x[f[j][0]]))), v)
    }
}

fn sub3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The edge energy's gradient by hand: each edge's difference added to its ends' rows.
#[inline]
pub fn edges_hand(g: &mut [[f64; 3]], v: &[[f64; 3]], e: &[[usize; 2]]) -> f64 {
    g.fill([0.0; 3]);
    let mut s = 0.0;
    for &[a, b] in e {
        let d = sub3(v[a], v[b]);
        s += dot3(d, d);
        for k in 0..3 {
            g[a][k] += 2.0 * d[k];
            g[b][k] -= 2.0 * d[k];
        }
    }
    s
}

/// The faces' gradient by hand: each face's three differences added to its corners' rows.
#[inline]
pub fn faces_hand(g: &mut [[f64; 3]], v: &[[f64; 3]], f: &[[usize; 3]]) -> f64 {
    g.fill([0.0; 3]);
    let mut s = 0.0;
    for &[a, b, c] in f {
        let (dab, dbc, dca) = (sub3(v[a], v[b]), sub3(v[b], v[c]), sub3(v[c], v[a]));
        s += dot3(dab, dab) + dot3(dbc, dbc) + dot3(dca, dca);
        for k in 0..3 {
            g[a][k] += 2.0 * (dab[k] - dca[k]);
            g[b][k] += 2.0 * (dbc[k] - dab[k]);
            g[c][k] += 2.0 * (dca[k] - dbc[k]);
        }
    }
    s
}

/// A random mesh: vertices in the unit cube, `p` index rows of `K` corners each.
fn mesh<const K: usize>(seed: u64) -> (Vec<[f64; 3]>, Vec<[usize; K]>) {
    let mut rng = Rng::new(seed);
    let v = (0..MESH_M)
        .map(|_| [rng.f64(), rng.f64(), rng.f64()])
        .collect();
    let e = (0..MESH_P)
        .map(|_| std::array::from_fn(|_| rng.below(MESH_M)))
        .collect();
    (v, e)
}

/// Gradient of a mesh's spring energy, the sum over 3,000 edges of the squared distance of
/// their ends, 1,000 vertices in 3-D. A: `sum(build(..))` of `sqnorm(sub(..))`; B: an
/// `ifold` with `let [a, b] = e[j]` and `dot(d, d)`; C: `map` over the edges with a pattern
/// parameter and a scalar helper.
pub struct MeshEdges {
    v: Vec<[f64; 3]>,
    e: Vec<[usize; 2]>,
    region: Region<'static>,
    out: [(f64, Vec<[f64; 3]>); 4],
}

impl Workload for MeshEdges {
    const GROUP: &'static str = "mesh_edges_grad";
    const SIZE: &'static str = "1,000 vertices, 3,000 edges";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let (v, e) = mesh::<2>(3701);
        let mut w = MeshEdges {
            v,
            e,
            region: Region::new(),
            out: std::array::from_fn(|_| (0.0, vec![[0.0; 3]; MESH_M])),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (s, g) = &mut self.out[0];
        *s = edges_a(g, black_box(&self.v), &self.e, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (s, g) = &mut self.out[K];
        let (v, e) = (black_box(&self.v), &self.e);
        *s = match K {
            1 => edges_b(g, v, e, &mut self.region).unwrap(),
            _ => edges_c(g, v, e, &mut self.region).unwrap(),
        };
    }

    #[inline]
    fn hand(&mut self) {
        let (s, g) = &mut self.out[3];
        *s = edges_hand(g, black_box(&self.v), &self.e);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (s, g) = &self.out[slot(v)];
        std::iter::once(*s)
            .chain(g.iter().flatten().copied())
            .collect()
    }

    fn tolerance() -> f64 {
        // The sums of the gradient's rows and of the energy run in each spelling's order.
        1e-10
    }
}

/// Gradient of the squared edge lengths of 3,000 faces of a mesh of 1,000 vertices in 3-D:
/// three rows per step. A: a pattern, the three `sqnorm`s added in `sum(build(..))`; B: an
/// `ifold` of `sum(build(3, ..))` over the corners, `f[j][(k + 1) % 3]`; C: an `ifold`
/// adding the three terms to the state one by one.
pub struct MeshFaces {
    v: Vec<[f64; 3]>,
    f: Vec<[usize; 3]>,
    region: Region<'static>,
    out: [(f64, Vec<[f64; 3]>); 4],
}

impl Workload for MeshFaces {
    const GROUP: &'static str = "mesh_faces_grad";
    const SIZE: &'static str = "1,000 vertices, 3,000 faces";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let (v, f) = mesh::<3>(3702);
        let mut w = MeshFaces {
            v,
            f,
            region: Region::new(),
            out: std::array::from_fn(|_| (0.0, vec![[0.0; 3]; MESH_M])),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (s, g) = &mut self.out[0];
        *s = faces_a(g, black_box(&self.v), &self.f, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (s, g) = &mut self.out[K];
        let (v, f) = (black_box(&self.v), &self.f);
        *s = match K {
            1 => faces_b(g, v, f, &mut self.region).unwrap(),
            _ => faces_c(g, v, f, &mut self.region).unwrap(),
        };
    }

    #[inline]
    fn hand(&mut self) {
        let (s, g) = &mut self.out[3];
        *s = faces_hand(g, black_box(&self.v), &self.f);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (s, g) = &self.out[slot(v)];
        std::iter::once(*s)
            .chain(g.iter().flatten().copied())
            .collect()
    }

    fn tolerance() -> f64 {
        1e-10
    }
}
