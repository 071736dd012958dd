//! Arguments: any row-major container (LANGUAGE.md section 17). Each kernel is called with
//! every container kind an argument or output accepts, and gives the results and the errors
//! it gives with flat slices; literals still take the kernel's element type.

use fsmooth::{Error, Region, fsmooth};

fsmooth! {
    /// y = A x + b, A with 3 columns.
    pub fn affine(a: [[f64; 3]; n], x: [f64; 3], b: [f64; n]) -> [f64; n] {
        build(n, |i| dot(a[i], x) + b[i])
    }

    /// Each row scaled: a 2-column result.
    pub fn scale_rows(a: [[f64; 2]; n], s: f64) -> [[f64; 2]; n] {
        map(a, |r| smul(r, s))
    }

    /// A sum over every element of a 3-level array.
    pub fn total3(a: [[[f64; 2]; 3]; n]) -> f64 {
        sum(map(a, |m| sum(map(m, |r| sum(r)))))
    }

    /// Scaled copy, single precision.
    pub fn scale32(x: [f32; n], s: f32) -> [f32; n] {
        map(x, |v| v * s)
    }

    /// Row sums, single precision.
    pub fn rowsum32(a: [[f32; 2]; n]) -> [f32; n] {
        map(a, |r| sum(r))
    }

    /// The rows of `table` picked by `idx`.
    pub fn pick(table: [[f64; 2]; m], idx: [usize; p]) -> [[f64; 2]; p] {
        build(p, |j| table[idx[j]])
    }

    /// Pairs of indexes, summed as values.
    pub fn pair_sums(pairs: [[usize; 2]; p]) -> [usize; p] {
        build(p, |j| pairs[j][0] + pairs[j][1])
    }

    /// Sum and a copy: two results.
    pub fn sum_and_copy(x: [f64; n]) -> ([f64; n], f64) {
        (x, sum(x))
    }
}

const A: [f64; 6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
const X: [f64; 3] = [1.0, 0.5, -1.0];
const B: [f64; 2] = [0.25, -0.25];

fn affine_flat() -> [f64; 2] {
    let mut out = [0.0; 2];
    affine(&mut out, &A[..], &X[..], &B[..], &mut Region::new()).unwrap();
    out
}

// `&mut` where `&` would do is deliberate: such calls compiled against v2 (a coercion to
// `&[f64]`) and must still compile.
#[allow(clippy::unnecessary_mut_passed)]
#[test]
fn every_input_container_gives_the_flat_result() {
    let want = affine_flat();
    let mut region = Region::new();
    let rows: [[f64; 3]; 2] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let mut out = [0.0; 2];
    // `&[[f64; 3]; 2]`, `&[[f64; 3]]`, `&Vec<f64>`, `&Vec<[f64; 3]>`, `&Box<[f64]>`,
    // `&Box<[[f64; 3]]>`, `&Rc<[f64]>`, `&Arc<[f64]>`, `&&[f64]`, `&mut Vec<f64>`.
    affine(&mut out, &rows, &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    affine(&mut out, &rows[..], &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    let v: Vec<f64> = A.to_vec();
    affine(&mut out, &v, &X.to_vec(), &B.to_vec(), &mut region).unwrap();
    assert_eq!(out, want);
    let vr: Vec<[f64; 3]> = rows.to_vec();
    affine(&mut out, &vr, &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    let bx: Box<[f64]> = A.into();
    affine(&mut out, &bx, &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    let bxr: Box<[[f64; 3]]> = rows.into();
    affine(&mut out, &bxr, &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    let rc: std::rc::Rc<[f64]> = A.into();
    let arc: std::sync::Arc<[f64]> = X.into();
    affine(&mut out, &rc, &arc, &B, &mut region).unwrap();
    assert_eq!(out, want);
    let s: &[f64] = &A;
    affine(&mut out, &s, &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    let mut mv = A.to_vec();
    affine(&mut out, &mut mv, &X, &B, &mut region).unwrap();
    assert_eq!(out, want);
    // Three levels: `&[[[f64; 2]; 3]; 2]`, `&Vec<[[f64; 2]; 3]>`, `&[[[f64; 2]; 3]]`.
    let cube = [
        [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
        [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]],
    ];
    let flat: Vec<f64> = (1..=12).map(f64::from).collect();
    assert_eq!(total3(&flat, &mut region), Ok(78.0));
    assert_eq!(total3(&cube, &mut region), Ok(78.0));
    assert_eq!(total3(&cube.to_vec(), &mut region), Ok(78.0));
    assert_eq!(total3(&cube[..1], &mut region), Ok(21.0));
}

#[test]
fn every_output_container_gets_the_flat_result() {
    let want = [2.0, 4.0, 6.0, 8.0];
    let mut region = Region::new();
    let a = [[1.0, 2.0], [3.0, 4.0]];
    // `&mut [f64; 4]`, `&mut [f64]`, `&mut [[f64; 2]; 2]`, `&mut [[f64; 2]]`, `&mut Vec<f64>`,
    // `&mut Vec<[f64; 2]>`, `&mut Box<[f64]>`, `&mut &mut [f64]`.
    let mut o1 = [0.0; 4];
    scale_rows(&mut o1, &a, 2.0, &mut region).unwrap();
    assert_eq!(o1, want);
    let mut o2 = [0.0; 4];
    scale_rows(&mut o2[..], &a, 2.0, &mut region).unwrap();
    assert_eq!(o2, want);
    let mut o3 = [[0.0; 2]; 2];
    scale_rows(&mut o3, &a, 2.0, &mut region).unwrap();
    assert_eq!(o3, [[2.0, 4.0], [6.0, 8.0]]);
    let mut o4 = [[0.0; 2]; 2];
    scale_rows(&mut o4[..], &a, 2.0, &mut region).unwrap();
    assert_eq!(o4, [[2.0, 4.0], [6.0, 8.0]]);
    let mut o5 = vec![0.0; 4];
    scale_rows(&mut o5, &a, 2.0, &mut region).unwrap();
    assert_eq!(o5, want);
    let mut o6 = vec![[0.0; 2]; 2];
    scale_rows(&mut o6, &a, 2.0, &mut region).unwrap();
    assert_eq!(o6, [[2.0, 4.0], [6.0, 8.0]]);
    let mut o7: Box<[f64]> = vec![0.0; 4].into();
    scale_rows(&mut o7, &a, 2.0, &mut region).unwrap();
    assert_eq!(*o7, want);
    let mut o8 = [0.0; 4];
    let mut r: &mut [f64] = &mut o8;
    scale_rows(&mut r, &a, 2.0, &mut region).unwrap();
    scale_rows(r, &a, 2.0, &mut region).unwrap();
    assert_eq!(o8, want);
    // Two results, into different kinds.
    let mut c = [[0.0; 2]; 2];
    assert_eq!(
        sum_and_copy(&mut c, &vec![1.0, 2.0, 3.0, 4.0], &mut region),
        Ok(10.0)
    );
    assert_eq!(c, [[1.0, 2.0], [3.0, 4.0]]);
}

#[test]
fn a_wrong_inner_dimension_is_a_shape_error_with_the_flat_lengths() {
    let mut region = Region::new();
    // Two rows of 2 where rows of 3 are needed: 4 elements, not a multiple of 3.
    let mut out = [-1.0; 2];
    let rows2 = [[1.0, 2.0], [3.0, 4.0]];
    let flat = [1.0, 2.0, 3.0, 4.0];
    let want = affine(&mut out, &flat, &X, &B, &mut region);
    assert!(
        matches!(want, Err(Error::Shape { arg: "a", .. })),
        "{want:?}"
    );
    assert_eq!(affine(&mut out, &rows2, &X, &B, &mut region), want);
    assert_eq!(affine(&mut out, &rows2.to_vec(), &X, &B, &mut region), want);
    assert_eq!(out, [-1.0; 2]);
    // An output with rows of 3 where rows of 2 are needed: found 6, expected 4.
    let mut o = [[-1.0; 3]; 2];
    assert_eq!(
        scale_rows(&mut o, &rows2, 2.0, &mut region),
        Err(Error::Shape {
            arg: "out",
            expected: 4,
            found: 6
        })
    );
    assert_eq!(o, [[-1.0; 3]; 2]);
    let mut o = vec![[-1.0; 3]; 2];
    assert_eq!(
        scale_rows(&mut o, &rows2, 2.0, &mut region),
        Err(Error::Shape {
            arg: "out",
            expected: 4,
            found: 6
        })
    );
    // `x` as one row of 3 is right; as rows of 2 (flat length 4) it is not.
    let mut out = [0.0; 2];
    assert_eq!(
        affine(&mut out, &A, &[[1.0, 0.5, -1.0]], &B, &mut region),
        Ok(())
    );
    assert_eq!(
        affine(&mut out, &A, &[[1.0, 0.5], [-1.0, 0.0]], &B, &mut region),
        Err(Error::Shape {
            arg: "x",
            expected: 3,
            found: 4
        })
    );
}

#[allow(clippy::unnecessary_mut_passed)] // as above: v2's `&mut` literals still compile
#[test]
fn literals_take_the_kernels_element_type() {
    let mut region = Region::new();
    // f64: a literal array, a repeat, rows, nested repeats, a vec!.
    let mut out = [0.0; 2];
    affine(
        &mut out,
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        &[1.0, 0.5, -1.0],
        &[0.25, -0.25],
        &mut region,
    )
    .unwrap();
    assert_eq!(out, affine_flat());
    affine(
        &mut out,
        &[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        &[1.0; 3],
        &[0.0; 2],
        &mut region,
    )
    .unwrap();
    assert_eq!(out, [6.0, 15.0]);
    affine(
        &mut out,
        &[[1.0; 3]; 2],
        &vec![1.0; 3],
        &vec![0.0, 1.0],
        &mut region,
    )
    .unwrap();
    assert_eq!(out, [3.0, 4.0]);
    affine(
        &mut out,
        &mut [1.0; 6],
        &mut [1.0, 1.0, 1.0],
        &[0.0; 2][..],
        &mut region,
    )
    .unwrap();
    assert_eq!(out, [3.0, 3.0]);
    let mut o = [0.0; 4];
    scale_rows(&mut o, &[1.0, 2.0, 3.0, 4.0], 0.5, &mut region).unwrap();
    assert_eq!(o, [0.5, 1.0, 1.5, 2.0]);
    // A destination literal.
    scale_rows(&mut [0.0; 4], &[1.0; 4], 0.5, &mut region).unwrap();
    scale_rows(&mut [[0.0; 2]; 2], &[[1.0; 2]; 2], 0.5, &mut region).unwrap();
    // f32: the same literals are f32.
    let mut o32 = [0.0f32; 3];
    scale32(&mut o32, &[1.0, 2.0, 3.0], 2.0, &mut region).unwrap();
    assert_eq!(o32, [2.0, 4.0, 6.0]);
    scale32(&mut o32, &[1.5; 3], 2.0, &mut region).unwrap();
    assert_eq!(o32, [3.0; 3]);
    scale32(&mut o32, &vec![1.0, 2.0, 3.0], 1.0, &mut region).unwrap();
    assert_eq!(o32, [1.0, 2.0, 3.0]);
    let mut r32 = vec![0.0; 2];
    rowsum32(&mut r32, &[[1.0, 2.0], [3.0, 4.0]], &mut region).unwrap();
    assert_eq!(r32, [3.0f32, 7.0]);
    rowsum32(&mut r32, &[[1.0; 2]; 2], &mut region).unwrap();
    assert_eq!(r32, [2.0f32, 2.0]);
    // usize: integer literals are usize.
    let mut o = [[0.0; 2]; 2];
    pick(
        &mut o,
        &[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
        &[2, 0],
        &mut region,
    )
    .unwrap();
    assert_eq!(o, [[5.0, 6.0], [1.0, 2.0]]);
    let mut s = [0usize; 2];
    pair_sums(&mut s, &[[1, 2], [3, 4]], &mut region).unwrap();
    assert_eq!(s, [3, 7]);
    pair_sums(&mut s, &[1, 2, 3, 4], &mut region).unwrap();
    assert_eq!(s, [3, 7]);
    pair_sums(&mut s, &[[5; 2]; 2], &mut region).unwrap();
    assert_eq!(s, [10, 10]);
    // An empty literal needs its type (`&[]` alone could be rows of any width).
    let mut none: [f64; 0] = [];
    scale_rows(&mut none, &[0.0; 0], 1.0, &mut region).unwrap();
    scale_rows(&mut [0.0; 0], &[] as &[f64], 1.0, &mut region).unwrap();
}

#[test]
fn index_arrays_of_every_kind_are_checked_at_entry() {
    let mut region = Region::new();
    let table = vec![[1.0, 2.0], [3.0, 4.0]];
    let mut o = vec![[-1.0; 2]; 2];
    let idx: Vec<usize> = vec![1, 0];
    pick(&mut o, &table, &idx, &mut region).unwrap();
    assert_eq!(o, [[3.0, 4.0], [1.0, 2.0]]);
    let bad: Box<[usize]> = vec![1, 2].into();
    let mut o = [[-1.0; 2]; 2];
    assert_eq!(
        pick(&mut o, &table, &bad, &mut region),
        Err(Error::Index { index: 2, len: 2 })
    );
    assert_eq!(o, [[-1.0; 2]; 2]);
    let mut s = vec![0usize; 2];
    pair_sums(&mut s, &vec![[1usize, 1], [2, 2]], &mut region).unwrap();
    assert_eq!(s, [2, 4]);
}

#[test]
fn a_kernel_is_still_a_function_of_slices() {
    // The generic signature still coerces to the v2 function pointer type.
    type Affine = fn(&mut [f64], &[f64], &[f64], &[f64], &mut Region<'_>) -> Result<(), Error>;
    let f: Affine = affine;
    let mut out = [0.0; 2];
    f(&mut out, &A, &X, &B, &mut Region::new()).unwrap();
    assert_eq!(out, affine_flat());
}

/// ndarray's arrays and views (feature `ndarray`): in standard layout they are flat slices;
/// in any other, `Error::Layout` naming the argument, every output untouched.
#[cfg(feature = "ndarray")]
mod ndarray_arguments {
    use super::*;
    use ndarray::{Array1, Array2, Array3, ArrayView2, ShapeBuilder, array, s};

    #[test]
    fn owned_arrays_and_views_give_the_flat_result() {
        let want = affine_flat();
        let mut region = Region::new();
        let a: Array2<f64> = Array2::from_shape_vec((2, 3), A.to_vec()).unwrap();
        let x: Array1<f64> = Array1::from(X.to_vec());
        let b = array![0.25, -0.25];
        let mut y: Array1<f64> = Array1::zeros(2);
        affine(&mut y, &a, &x, &b, &mut region).unwrap();
        assert_eq!(y.as_slice().unwrap(), want);
        let mut y = Array1::zeros(2);
        affine(&mut y.view_mut(), &a.view(), &x.view(), &b, &mut region).unwrap();
        assert_eq!(y.to_vec(), want);
        // A view of the first row only, into a slice: a standard-layout sub-view.
        let mut one = [0.0; 1];
        affine(
            &mut one,
            &a.slice(s![..1, ..]),
            &x,
            &b.slice(s![..1]),
            &mut region,
        )
        .unwrap();
        assert_eq!(one, [want[0]]);
        // `&ArrayRef` (what `&a` derefs to), and a 3-d array.
        let r: &ndarray::ArrayRef2<f64> = &a;
        affine(&mut y, r, &x, &b, &mut region).unwrap();
        assert_eq!(y.to_vec(), want);
        let cube = Array3::from_shape_fn((2, 3, 2), |(i, j, k)| (i * 6 + j * 2 + k + 1) as f64);
        assert_eq!(total3(&cube, &mut region), Ok(78.0));
        // Outputs: a 2-d array for a `[[f64; 2]; n]` result, and its mutable view.
        let m = array![[1.0, 2.0], [3.0, 4.0]];
        let mut o: Array2<f64> = Array2::zeros((2, 2));
        scale_rows(&mut o, &m, 2.0, &mut region).unwrap();
        assert_eq!(o, array![[2.0, 4.0], [6.0, 8.0]]);
        scale_rows(&mut o.view_mut(), &m.view(), 0.5, &mut region).unwrap();
        assert_eq!(o, array![[0.5, 1.0], [1.5, 2.0]]);
        // f32 and usize arrays.
        let mut o32 = Array1::<f32>::zeros(3);
        scale32(&mut o32, &array![1.0f32, 2.0, 3.0], 2.0, &mut region).unwrap();
        assert_eq!(o32, array![2.0f32, 4.0, 6.0]);
        let mut sums = Array1::<usize>::zeros(2);
        pair_sums(&mut sums, &array![[1usize, 2], [3, 4]], &mut region).unwrap();
        assert_eq!(sums, array![3usize, 7]);
    }

    #[test]
    fn an_array_not_in_standard_layout_is_a_layout_error_with_outputs_untouched() {
        let mut region = Region::new();
        let a: Array2<f64> = Array2::from_shape_vec((2, 3), A.to_vec()).unwrap();
        let at: Array2<f64> = a.t().as_standard_layout().into_owned();
        assert!(at.is_standard_layout());
        // The transpose of `at` is `a`'s 2 x 3, but column-major.
        let t: ArrayView2<f64> = at.t();
        let mut y = array![-1.0, -1.0];
        assert_eq!(
            affine(&mut y, &t, &X, &B, &mut region),
            Err(Error::Layout { arg: "a" })
        );
        assert_eq!(y, array![-1.0, -1.0]);
        // Copied to standard layout, the same values work.
        affine(&mut y, &t.as_standard_layout(), &X, &B, &mut region).unwrap();
        assert_eq!(y.to_vec(), affine_flat());
        // A strided 1-d slice.
        let wide = Array1::from_iter((0..6).map(f64::from));
        let mut y = [-1.0; 2];
        assert_eq!(
            affine(&mut y, &A, &wide.slice(s![..;2]), &B, &mut region),
            Err(Error::Layout { arg: "x" })
        );
        assert_eq!(y, [-1.0; 2]);
        // A column-major owned array.
        let f = Array2::from_shape_vec((2, 3).f(), A.to_vec()).unwrap();
        assert_eq!(
            affine(&mut y, &f, &X, &B, &mut region),
            Err(Error::Layout { arg: "a" })
        );
        // An output view not in standard layout: untouched.
        let mut o = Array2::from_elem((2, 2), -1.0);
        let m = array![[1.0, 2.0], [3.0, 4.0]];
        assert_eq!(
            scale_rows(&mut o.view_mut().reversed_axes(), &m, 2.0, &mut region),
            Err(Error::Layout { arg: "out" })
        );
        assert_eq!(o, Array2::from_elem((2, 2), -1.0));
        let mut c = Array2::from_elem((2, 2), -1.0);
        assert_eq!(
            sum_and_copy(
                &mut c.view_mut().reversed_axes(),
                &[1.0, 2.0, 3.0, 4.0],
                &mut region
            ),
            Err(Error::Layout { arg: "out0" })
        );
        assert_eq!(c, Array2::from_elem((2, 2), -1.0));
        // A wrong shape in standard layout is still a shape error, with the flat lengths.
        let mut y = [-1.0; 2];
        assert_eq!(
            affine(&mut y, &Array2::<f64>::zeros((2, 2)), &X, &B, &mut region),
            affine(&mut y, &[0.0; 4], &X, &B, &mut region),
        );
        assert_eq!(
            Error::Layout { arg: "a" }.to_string(),
            "argument `a` is not in standard (contiguous, row-major) layout"
        );
    }
}
