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

/// The kernels of one mesh workload: its index rows of `K` vertices (an edge's two ends, a
/// face's three corners), its three spellings and its hand-written gradient.
pub trait MeshKernels<const K: usize> {
    const GROUP: &'static str;
    const SIZE: &'static str;
    /// The mesh's seed.
    const SEED: u64;
    /// Spelling `s` (0 = A, 1 = B, 2 = C): the energy, its gradient into `g`.
    fn spelling(
        s: usize,
        g: &mut [[f64; 3]],
        v: &[[f64; 3]],
        idx: &[[usize; K]],
        r: &mut Region<'static>,
    ) -> f64;
    /// The hand-written gradient.
    fn hand(g: &mut [[f64; 3]], v: &[[f64; 3]], idx: &[[usize; K]]) -> f64;
}

/// A mesh workload over index rows of `K` vertices, its kernels those of [`MeshKernels`].
pub struct Mesh<const K: usize> {
    v: Vec<[f64; 3]>,
    idx: Vec<[usize; K]>,
    region: Region<'static>,
    out: [(f64, Vec<[f64; 3]>); 4],
}

/// Gradient of a mesh's spring energy, the sum over 3,000 edges of the squared distance of
/// their ends, 1,000 vertices in 3-D. A: `sum(build(..))` of `sqnorm(sub(..))`; B: an
/// `ifold` with `let [a, b] = e[j]` and `dot(d, d)`; C: `map` over the edges with a pattern
/// parameter and a scalar helper.
pub type MeshEdges = Mesh<2>;

/// Gradient of the squared edge lengths of 3,000 faces of a mesh of 1,000 vertices in 3-D:
/// three rows per step. A: a pattern, the three `sqnorm`s added in `sum(build(..))`; B: an
/// `ifold` of `sum(build(3, ..))` over the corners, `f[j][(k + 1) % 3]`; C: an `ifold`
/// adding the three terms to the state one by one.
pub type MeshFaces = Mesh<3>;

impl MeshKernels<2> for Mesh<2> {
    const GROUP: &'static str = "mesh_edges_grad";
    const SIZE: &'static str = "1,000 vertices, 3,000 edges";
    const SEED: u64 = 3701;

    #[inline]
    fn spelling(
        s: usize,
        g: &mut [[f64; 3]],
        v: &[[f64; 3]],
        e: &[[usize; 2]],
        r: &mut Region<'static>,
    ) -> f64 {
        match s {
            0 => edges_a(g, v, e, r).unwrap(),
            1 => edges_b(g, v, e, r).unwrap(),
            _ => edges_c(g, v, e, r).unwrap(),
        }
    }

    #[inline]
    fn hand(g: &mut [[f64; 3]], v: &[[f64; 3]], e: &[[usize; 2]]) -> f64 {
        edges_hand(g, v, e)
    }
}

impl MeshKernels<3> for Mesh<3> {
    const GROUP: &'static str = "mesh_faces_grad";
    const SIZE: &'static str = "1,000 vertices, 3,000 faces";
    const SEED: u64 = 3702;

    #[inline]
    fn spelling(
        s: usize,
        g: &mut [[f64; 3]],
        v: &[[f64; 3]],
        f: &[[usize; 3]],
        r: &mut Region<'static>,
    ) -> f64 {
        match s {
            0 => faces_a(g, v, f, r).unwrap(),
            1 => faces_b(g, v, f, r).unwrap(),
            _ => faces_c(g, v, f, r).unwrap(),
        }
    }

    #[inline]
    fn hand(g: &mut [[f64; 3]], v: &[[f64; 3]], f: &[[usize; 3]]) -> f64 {
        faces_hand(g, v, f)
    }
}

impl<const K: usize> Workload for Mesh<K>
where
    Mesh<K>: MeshKernels<K>,
{
    const GROUP: &'static str = <Self as MeshKernels<K>>::GROUP;
    const SIZE: &'static str = <Self as MeshKernels<K>>::SIZE;
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let (v, idx) = mesh::<K>(<Self as MeshKernels<K>>::SEED);
        let mut w = Mesh {
            v,
            idx,
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
        self.spelling::<0>();
    }

    #[inline]
    fn spelling<const S: usize>(&mut self) {
        let (s, g) = &mut self.out[S];
        let (v, idx) = (black_box(&self.v), &self.idx);
        *s = <Self as MeshKernels<K>>::spelling(S, g, v, idx, &mut self.region);
    }

    #[inline]
    fn hand(&mut self) {
        let (s, g) = &mut self.out[3];
        *s = <Self as MeshKernels<K>>::hand(g, black_box(&self.v), &self.idx);
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
