//! ADBench's hand-tracking objective, "simple" variant (each data point corresponds to one
//! model vertex; no triangle coordinates): the model and input parsers and a plain-Rust
//! reference implementation.
//!
//! The formulas follow ADBench's C++ reference (`src/cpp/shared/hand_light_matrix.h`,
//! functions `to_pose_params`, `euler_angles_to_rotation_matrix`, `get_posed_relatives`,
//! `relatives_to_absolutes`, `get_skinned_vertex_positions`, `apply_global_transform`,
//! `angle_axis_to_rotation_matrix` and `hand_objective`; the file formats from
//! `read_hand_model` / `read_hand_instance` in `src/cpp/shared/utils.cpp`). The code here is
//! our own:
//!
//! 1. pose parameters from theta (26 values): global rotation (angle-axis, `theta[0..3]`),
//!    global translation (`theta[3..6]`), then per finger two angles for its second bone and
//!    one for each of its third and fourth ([`pose_params`]);
//! 2. each bone's posed relative transform: its base relative transform times the rotation
//!    of its Euler angles ([`euler_to_rotation`]);
//! 3. absolute transforms along the parent chain (a parent always precedes its children);
//! 4. linear blend skinning: vertex `v` goes to `sum_b w[v][b] * (A_b * B_b^-1 * [x_v; 1])`,
//!    `A_b` the absolute and `B_b^-1` the inverse base absolute transform of bone `b`;
//! 5. the global rotation ([`angle_axis_to_rotation`]) and translation;
//! 6. residuals `points[i] - skinned[correspondences[i]]`, 3 per data point.
//!
//! Matrices are row-major: the bone files hold each 4x4 matrix row by row.

/// `hand/model/bones.txt`: 22 bones, `name:parent:` then 16 base-relative and 16 inverse
/// base-absolute values (row-major 4x4 matrices), ':'-separated; the root's parent is -1.
pub const BONES: &str = include_str!("../data/adbench/hand/model/bones.txt");
/// `hand/model/vertices.txt`: 544 vertices, `x:y:z:` then 5 values the objective does not
/// use, then a count and that many `bone:weight` pairs.
pub const VERTICES: &str = include_str!("../data/adbench/hand/model/vertices.txt");
/// `hand/model/triangles.txt`: the mesh's triangles, `a:b:c` (unused by the simple variant).
pub const TRIANGLES: &str = include_str!("../data/adbench/hand/model/triangles.txt");
/// `hand/test.txt`: 2 data points, 26 pose parameters (README known residuals available).
pub const TEST: &str = include_str!("../data/adbench/hand/test.txt");
/// `hand/simple_small/hand1_t26_c100.txt`: 100 data points, 26 pose parameters.
pub const SIMPLE_SMALL: &str = include_str!("../data/adbench/hand/simple_small/hand1_t26_c100.txt");

/// Number of pose parameters ADBench's hand objective takes.
pub const N_THETA: usize = 26;

/// Number of bones ADBench's pose-parameter layout is written for (wrist, four bones for
/// each of five fingers, forearm).
pub const N_BONES: usize = 22;

/// A 4x4 matrix, row-major.
pub type Mat4 = [[f64; 4]; 4];
/// A 3x3 matrix, row-major.
pub type Mat3 = [[f64; 3]; 3];

/// ADBench's hand model.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Bone names, in file order.
    pub bone_names: Vec<String>,
    /// The parent of each bone (`None` for the root); a parent always precedes its children.
    pub parents: Vec<Option<usize>>,
    /// Each bone's transform relative to its parent in the rest pose.
    pub base_relatives: Vec<Mat4>,
    /// The inverse of each bone's absolute transform in the rest pose.
    pub inverse_base_absolutes: Vec<Mat4>,
    /// Rest-pose vertex positions.
    pub base_positions: Vec<[f64; 3]>,
    /// Skinning weights, `n_vertices * n_bones` values, row `v` holding vertex `v`'s
    /// weight for every bone (zero for bones that do not move it).
    pub weights: Vec<f64>,
    /// The mesh's triangles (vertex indices).
    pub triangles: Vec<[usize; 3]>,
}

impl Model {
    /// Number of bones.
    pub fn n_bones(&self) -> usize {
        self.parents.len()
    }

    /// Number of vertices.
    pub fn n_vertices(&self) -> usize {
        self.base_positions.len()
    }

    /// The parents as an index array `[usize; b]` for a kernel: a root is its own parent.
    pub fn parents_index(&self) -> Vec<usize> {
        let pairs = self.parents.iter().enumerate();
        pairs.map(|(i, p)| p.unwrap_or(i)).collect()
    }

    /// The base relatives flat, `[[[f64; 4]; 4]; b]` row-major.
    pub fn base_relatives_flat(&self) -> Vec<f64> {
        self.base_relatives.as_flattened().as_flattened().to_vec()
    }

    /// The inverse base absolutes flat, `[[[f64; 4]; 4]; b]` row-major.
    pub fn inverse_base_absolutes_flat(&self) -> Vec<f64> {
        let m = &self.inverse_base_absolutes;
        m.as_flattened().as_flattened().to_vec()
    }

    /// The rest-pose vertex positions flat, `[[f64; 3]; v]` row-major.
    pub fn base_positions_flat(&self) -> Vec<f64> {
        self.base_positions.as_flattened().to_vec()
    }
}

/// One hand-tracking problem: data points, their corresponding vertices, and the pose.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The model vertex of each data point.
    pub correspondences: Vec<usize>,
    /// The data points.
    pub points: Vec<[f64; 3]>,
    /// The pose parameters ([`N_THETA`] of them in ADBench's files).
    pub theta: Vec<f64>,
}

impl Input {
    /// The data points flat, `[[f64; 3]; c]` row-major.
    pub fn points_flat(&self) -> Vec<f64> {
        self.points.as_flattened().to_vec()
    }
}

fn num<T: std::str::FromStr>(what: &str, line: usize, tok: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    tok.trim()
        .parse()
        .map_err(|e| format!("{what}, line {}: {tok:?}: {e}", line + 1))
}

fn mat4(what: &str, line: usize, toks: &[&str]) -> Result<Mat4, String> {
    let mut m = [[0.0; 4]; 4];
    for (k, tok) in toks.iter().enumerate() {
        m[k / 4][k % 4] = num(what, line, tok)?;
    }
    Ok(m)
}

/// Parses ADBench's hand model from the texts of `bones.txt`, `vertices.txt` and
/// `triangles.txt` (ADBench's `read_hand_model`; the model is never mirrored).
///
/// # Errors
///
/// A message naming the file and line if a line has the wrong number of fields, a field is
/// not a number, a parent does not precede its bone, or a bone or vertex index is out of
/// range.
pub fn parse_model(bones: &str, vertices: &str, triangles: &str) -> Result<Model, String> {
    let mut m = Model {
        bone_names: Vec::new(),
        parents: Vec::new(),
        base_relatives: Vec::new(),
        inverse_base_absolutes: Vec::new(),
        base_positions: Vec::new(),
        weights: Vec::new(),
        triangles: Vec::new(),
    };
    for (l, line) in bones
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() != 34 {
            return Err(format!(
                "bones.txt, line {}: {} fields, not 34",
                l + 1,
                f.len()
            ));
        }
        let parent: i64 = num("bones.txt", l, f[1])?;
        let i = m.parents.len();
        m.parents.push(match usize::try_from(parent) {
            Ok(p) if p < i => Some(p),
            Err(_) if parent == -1 => None,
            _ => {
                return Err(format!(
                    "bones.txt, line {}: parent {parent} of bone {i}",
                    l + 1
                ));
            }
        });
        m.bone_names.push(f[0].to_string());
        m.base_relatives.push(mat4("bones.txt", l, &f[2..18])?);
        m.inverse_base_absolutes
            .push(mat4("bones.txt", l, &f[18..34])?);
    }
    let nb = m.parents.len();
    for (l, line) in vertices
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split(':').collect();
        let count: usize = match f.get(8) {
            Some(tok) => num("vertices.txt", l, tok)?,
            None => return Err(format!("vertices.txt, line {}: too few fields", l + 1)),
        };
        if f.len() != 9 + 2 * count {
            return Err(format!(
                "vertices.txt, line {}: {} fields for {count} weights",
                l + 1,
                f.len()
            ));
        }
        let mut x = [0.0; 3];
        for (j, tok) in f[..3].iter().enumerate() {
            x[j] = num("vertices.txt", l, tok)?;
        }
        m.base_positions.push(x);
        let mut row = vec![0.0; nb];
        for pair in f[9..].chunks_exact(2) {
            let b: usize = num("vertices.txt", l, pair[0])?;
            if b >= nb {
                return Err(format!("vertices.txt, line {}: bone {b} of {nb}", l + 1));
            }
            row[b] = num("vertices.txt", l, pair[1])?;
        }
        m.weights.extend(row);
    }
    let nv = m.base_positions.len();
    for (l, line) in triangles
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() != 3 {
            return Err(format!("triangles.txt, line {}: {} fields", l + 1, f.len()));
        }
        let mut t = [0; 3];
        for (j, tok) in f.iter().enumerate() {
            t[j] = num("triangles.txt", l, tok)?;
            if t[j] >= nv {
                return Err(format!("triangles.txt, line {}: vertex {}", l + 1, t[j]));
            }
        }
        m.triangles.push(t);
    }
    Ok(m)
}

/// The model of `hand/model/`, parsed from the embedded files.
///
/// # Panics
///
/// Never for the files shipped with this crate (the tests parse them).
pub fn model() -> Model {
    parse_model(BONES, VERTICES, TRIANGLES).expect("the shipped hand model parses")
}

/// Parses a hand input (`hand/test.txt`, `hand/simple_small/*.txt`): `n_pts n_theta`, then
/// `n_pts` lines `vertex x y z`, then `n_theta` pose parameters (ADBench's
/// `read_hand_instance` without triangle coordinates).
///
/// # Errors
///
/// A message if a token is missing or not a number, a vertex index is not below
/// `n_vertices`, or tokens are left over.
pub fn parse_input(text: &str, n_vertices: usize) -> Result<Input, String> {
    let mut toks = text.split_whitespace();
    let mut next = |what: &str| {
        toks.next()
            .ok_or(format!("hand: end of input reading {what}"))
    };
    let n_pts: usize = num("hand", 0, next("n_pts")?)?;
    let n_theta: usize = num("hand", 0, next("n_theta")?)?;
    let mut inp = Input {
        correspondences: Vec::with_capacity(n_pts.min(1 << 16)),
        points: Vec::with_capacity(n_pts.min(1 << 16)),
        theta: Vec::with_capacity(n_theta.min(1 << 16)),
    };
    for i in 0..n_pts {
        let v: usize = num("hand", i + 1, next("a correspondence")?)?;
        if v >= n_vertices {
            return Err(format!("hand, point {i}: vertex {v} of {n_vertices}"));
        }
        inp.correspondences.push(v);
        let mut x = [0.0; 3];
        for c in &mut x {
            *c = num("hand", i + 1, next("a point")?)?;
        }
        inp.points.push(x);
    }
    for _ in 0..n_theta {
        inp.theta.push(num("hand", n_pts + 1, next("theta")?)?);
    }
    let extra = toks.count();
    if extra != 0 {
        return Err(format!("hand: {extra} unexpected tokens after theta"));
    }
    Ok(inp)
}

/// ADBench's pose parameters: `n_bones + 3` columns of 3 values. Column 0 is the global
/// rotation (`theta[0..3]`), column 1 the scale (always 1), column 2 the global translation
/// (`theta[3..6]`), and column `3 + b` bone `b`'s Euler angles. Starting at column 5, each
/// of the five fingers has three posed bones (the first with two angles, the others with
/// one) and one bone left at zero; every other angle is zero.
///
/// # Panics
///
/// If `theta` has fewer than [`N_THETA`] values or `n_bones < N_BONES`.
pub fn pose_params(theta: &[f64], n_bones: usize) -> Vec<[f64; 3]> {
    assert!(theta.len() >= N_THETA && n_bones >= N_BONES);
    let mut cols = vec![[0.0; 3]; n_bones + 3];
    cols[0] = [theta[0], theta[1], theta[2]];
    cols[1] = [1.0; 3];
    cols[2] = [theta[3], theta[4], theta[5]];
    let mut t = 6;
    for finger in 0..5 {
        for k in 0..3 {
            let col = &mut cols[5 + 4 * finger + k];
            col[0] = theta[t];
            t += 1;
            if k == 0 {
                col[1] = theta[t];
                t += 1;
            }
        }
    }
    cols
}

#[inline]
fn mat3_mul(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

/// The product of two 4x4 matrices.
#[inline]
pub fn mat4_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut c = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            c[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

/// The rotation of Euler angles stored in ADBench's "xzy" order: with `tx = p[0]`,
/// `tz = p[1]` and `ty = p[2]`, `R = Rz(tz) Ry(ty) Rx(tx)`.
#[inline]
pub fn euler_to_rotation(p: &[f64; 3]) -> Mat3 {
    let (sx, cx) = p[0].sin_cos();
    let (sy, cy) = p[2].sin_cos();
    let (sz, cz) = p[1].sin_cos();
    let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
    let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
    let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
    mat3_mul(&mat3_mul(&rz, &ry), &rx)
}

/// The rotation matrix of the angle-axis vector `r`: the identity when `|r| < 1e-4` (as
/// ADBench), else Rodrigues' formula `R = c I + s [u]x + (1 - c) u u^T` with `u = r / |r|`.
#[inline]
pub fn angle_axis_to_rotation(r: &[f64; 3]) -> Mat3 {
    let norm = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
    if norm < 1e-4 {
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    }
    let (x, y, z) = (r[0] / norm, r[1] / norm, r[2] / norm);
    let (s, c) = norm.sin_cos();
    [
        [
            x * x + (1.0 - x * x) * c,
            x * y * (1.0 - c) - z * s,
            x * z * (1.0 - c) + y * s,
        ],
        [
            x * y * (1.0 - c) + z * s,
            y * y + (1.0 - y * y) * c,
            y * z * (1.0 - c) - x * s,
        ],
        [
            x * z * (1.0 - c) - y * s,
            z * y * (1.0 - c) + x * s,
            z * z + (1.0 - z * z) * c,
        ],
    ]
}

/// Every bone's absolute transform `A_b` in the pose `theta`: the posed relative transform
/// (base relative times the bone's Euler rotation, as a 4x4 with no translation) composed
/// along the parent chain.
pub fn absolutes(model: &Model, theta: &[f64]) -> Vec<Mat4> {
    let pose = pose_params(theta, model.n_bones());
    let mut abs: Vec<Mat4> = Vec::with_capacity(model.n_bones());
    for (b, parent) in model.parents.iter().enumerate() {
        let r = euler_to_rotation(&pose[b + 3]);
        let mut rot = [[0.0; 4]; 4];
        for i in 0..3 {
            rot[i][..3].copy_from_slice(&r[i]);
        }
        rot[3][3] = 1.0;
        let rel = mat4_mul(&model.base_relatives[b], &rot);
        abs.push(match parent {
            None => rel,
            Some(p) => mat4_mul(&abs[*p], &rel),
        });
    }
    abs
}

/// Every vertex of the model posed by `theta`: skinned by the bones' transforms, then
/// rotated and translated globally.
pub fn skinned_vertices(model: &Model, theta: &[f64]) -> Vec<[f64; 3]> {
    let abs = absolutes(model, theta);
    let transforms: Vec<Mat4> = abs
        .iter()
        .zip(&model.inverse_base_absolutes)
        .map(|(a, ib)| mat4_mul(a, ib))
        .collect();
    let nb = model.n_bones();
    let global = angle_axis_to_rotation(&[theta[0], theta[1], theta[2]]);
    let mut out = Vec::with_capacity(model.n_vertices());
    for (v, x) in model.base_positions.iter().enumerate() {
        let mut pos = [0.0; 3];
        for (t, &w) in transforms.iter().zip(&model.weights[v * nb..(v + 1) * nb]) {
            for i in 0..3 {
                pos[i] += (t[i][0] * x[0] + t[i][1] * x[1] + t[i][2] * x[2] + t[i][3]) * w;
            }
        }
        let mut g = [0.0; 3];
        for i in 0..3 {
            g[i] = (0..3).map(|k| global[i][k] * pos[k]).sum::<f64>() + theta[3 + i];
        }
        out.push(g);
    }
    out
}

/// ADBench's hand objective (simple variant): `3 * c` residuals, `points[i][j] -
/// skinned[correspondences[i]][j]`.
///
/// # Panics
///
/// If `inp.theta` has fewer than [`N_THETA`] values, the model fewer than [`N_BONES`] bones,
/// or a correspondence is not a vertex of the model.
pub fn objective(model: &Model, inp: &Input) -> Vec<f64> {
    let verts = skinned_vertices(model, &inp.theta);
    let pairs = inp.points.iter().zip(&inp.correspondences);
    pairs
        .flat_map(|(p, &v)| [p[0] - verts[v][0], p[1] - verts[v][1], p[2] - verts[v][2]])
        .collect()
}
