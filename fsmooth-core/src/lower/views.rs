//! Views: an array expression as a rectangular window on a buffer (a row, a slice, a
//! variable's array), with no copy; what is not already one is written to the frame.

use crate::front::size::Size;
use crate::lir::{Base, Checked, Ex, Node, Scalar, St, Wrap, plus, same, wadd, walk_ex, wmul};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind};
use proc_macro2::Ident;
use quote::format_ident;

impl Dps<'_> {
    /// A view of an array expression, materialising it in the frame if it is not one already.
    /// Returns statements to run first.
    pub(super) fn view(&mut self, e: &Core) -> (Vec<St>, View) {
        self.view_holding(e, None)
    }

    /// [`Dps::view`], with what a buffer it materialises holds (for the memory plan; by
    /// default, the form of `e`).
    pub(super) fn view_holding(&mut self, e: &Core, holds: Option<Holds>) -> (Vec<St>, View) {
        match &e.kind {
            Kind::Var(v) => {
                if let Some(Loc::View(w)) = self.env.get(v) {
                    return (Vec::new(), w.clone());
                }
                // An array variable with no place: a broken invariant, which the generated
                // code reports (writing it would ask for its view again, without end).
                let broken = View {
                    base: Base::Param(format_ident!("__internal_error_unplaced_array")),
                    off: None,
                    dims: e.ty.dims().to_vec(),
                };
                return (Vec::new(), broken);
            }
            Kind::Index(a, i) if e.ty.is_arr() => {
                let (mut pre, w) = self.view(a);
                let dim0 = w.dims[0].clone();
                let mut it = if self.in_bounds(i, &dim0) {
                    self.loop_index_expr(i)
                        .unwrap_or_else(|| self.index_expr(i))
                } else {
                    let it = self.scalar(i);
                    let d = self.sizes.get(&dim0);
                    Ex::Check(Box::new(it), Box::new(d))
                };
                if has_statements(&it) {
                    // An index computed by statements (a `usize` array built in the frame
                    // and read): computed here, once, where the frame plan placed its
                    // allocations, and not wherever the view's offset is used (later, after
                    // other allocations that reuse those slots, or several times).
                    let tmp = format_ident!("__lo{}", self.slices);
                    self.slices += 1;
                    pre.push(St::let_usize(&tmp, it));
                    it = Ex::Var(tmp);
                }
                let proven = !matches!(it, Ex::Check(..)) && !self.narrowed();
                let rows = w.dims[1..].to_vec();
                let off = match self.stride(&rows) {
                    Some(st) => plus(&w.off, wmul(it, st)),
                    None => plus(&w.off, it),
                };
                if proven
                    && let Some(width) = row_width(&rows).filter(|w| (2..=BLOCK_MAX).contains(w))
                    && !self
                        .blocks
                        .iter()
                        .any(|(b, o, _)| *b == w.base && same(o, &off))
                {
                    self.blocks.push((w.base.clone(), off.clone(), width));
                }
                return (
                    pre,
                    View {
                        base: w.base,
                        off: Some(off),
                        dims: rows,
                    },
                );
            }
            // A component of a tuple that has places already; a computed tuple's component
            // is written into a buffer of its own below, its other components nowhere when
            // that can be.
            Kind::Proj(t, k) if has_places(t) => {
                let (pre, loc) = self.locate(t);
                if let Loc::Tuple(parts) = loc
                    && let Some(Loc::View(w)) = parts.into_iter().nth(*k)
                {
                    return (pre, w);
                }
                // Not an array: a broken invariant, which the generated code reports.
                let broken = View {
                    base: Base::Param(format_ident!("__internal_error_tuple_component")),
                    off: None,
                    dims: e.ty.dims().to_vec(),
                };
                return (pre, broken);
            }
            Kind::Reshape(a) => {
                let (pre, w) = self.view(a);
                return (
                    pre,
                    View {
                        dims: e.ty.dims().to_vec(),
                        ..w
                    },
                );
            }
            Kind::Slice(a, lo) => {
                let (mut pre, w) = self.view(a);
                let len = e.ty.dims()[0].clone();
                let lt = if self.proven(&lo.sym, &len, &w.dims[0]) {
                    self.index_expr(lo)
                } else {
                    let lt = self.scalar(lo);
                    let (d, l) = (self.sizes.get(&w.dims[0]), self.sizes.get(&len));
                    // Its own name: the view's offset refers to it for as long as it lives.
                    let tmp = format_ident!("__lo{}", self.slices);
                    self.slices += 1;
                    pre.push(St::Let {
                        id: tmp.clone(),
                        mutable: false,
                        usize_ty: true,
                        val: lt,
                    });
                    let end = Ex::Checked(
                        Checked::Add,
                        Box::new(Ex::Var(tmp.clone())),
                        Box::new(l),
                        "slice end".into(),
                    );
                    pre.push(St::CheckRange(Ex::Var(tmp.clone()), end, d));
                    Ex::Var(tmp)
                };
                let off = match self.stride(&w.dims[1..]) {
                    Some(st) => plus(&w.off, wmul(lt, st)),
                    None => plus(&w.off, lt),
                };
                let mut dims = w.dims.clone();
                dims[0] = len;
                return (
                    pre,
                    View {
                        base: w.base,
                        off: Some(off),
                        dims,
                    },
                );
            }
            _ => {}
        }
        let holds = holds.unwrap_or_else(|| Holds::value(e));
        let elem = e.ty.scalar().unwrap_or(Scalar::F64);
        // A fold's small state of literal size, read after the loop, stays in a local array
        // (LANGUAGE.md section 13), not the frame.
        let local = match &e.kind {
            Kind::Ifold(..) => self.alloc_local(elem, e.ty.dims()),
            Kind::Proj(t, _) if matches!(t.kind, Kind::Ifold(..)) => {
                self.alloc_local(elem, e.ty.dims())
            }
            _ => None,
        };
        let (marker, w) = match local {
            Some(local) => local,
            None => self.alloc(elem, e.ty.dims(), holds, e.span),
        };
        let mut code = vec![marker];
        code.extend(self.write(e, &w));
        (code, w)
    }

    /// The slot count of one element of dimensions `dims` (a row's stride), `None` for 1.
    pub(super) fn stride(&mut self, dims: &[Size]) -> Option<Ex> {
        let s = dims.iter().cloned().reduce(Size::times)?;
        if s.as_const() == Some(1) {
            return None;
        }
        Some(self.sizes.get(&s))
    }

    /// Element `k` of view `w` at run-time offset `off`, as a load from a row of constant
    /// width: the whole row of a parameter when `off` is `r * width + c` (every slice of
    /// `cams[i % n]` then shares one range check), else the view itself.
    pub(super) fn row_load(&self, w: &View, off: &Ex, k: usize) -> Ex {
        let (x, c) = match off {
            Ex::Wrap(Wrap::Add, x, c) => match **c {
                Ex::Usize(c) => (&**x, c),
                _ => (off, 0),
            },
            _ => (off, 0),
        };
        if let (Ex::Wrap(Wrap::Mul, _, width), Base::Param(id)) = (x, &w.base)
            && let Ex::Usize(width) = **width
            && c.checked_add(k).is_some_and(|at| at < width)
            && self.param_rows(id).contains(&width)
        {
            let t = self.elem_of(&w.base);
            return Ex::LdRow(w.base.clone(), Box::new(x.clone()), width, c + k, t);
        }
        // Inside a row of literal width taken whole (`transforms[k]`, then `t[r][c]`).
        if let Some((_, start, width)) = self
            .blocks
            .iter()
            .find(|(b, start, _)| *b == w.base && same(start, x))
            && c.checked_add(k).is_some_and(|at| at < *width)
        {
            let t = self.elem_of(&w.base);
            return Ex::LdRow(w.base.clone(), Box::new(start.clone()), *width, c + k, t);
        }
        match row_width(&w.dims) {
            Some(width) => Ex::LdRow(
                w.base.clone(),
                Box::new(off.clone()),
                width,
                k,
                self.elem_of(&w.base),
            ),
            None => Ex::Ld(w.base.clone(), Box::new(wadd(off.clone(), Ex::Usize(k)))),
        }
    }

    /// The widths of the rows of array parameter `id` (each a constant product of its last
    /// dimensions, never the whole array): its length is a multiple of each, so a row that
    /// holds one proven element is in bounds.
    fn param_rows(&self, id: &Ident) -> Vec<usize> {
        let Some(p) = self
            .kernel
            .params
            .iter()
            .find(|p| id == p.name.text.as_str())
        else {
            return Vec::new();
        };
        let dims = p.ty.dims();
        (1..dims.len())
            .filter_map(|d| row_width(&dims[d..]))
            .collect()
    }
}

/// A tuple whose components are in places already: a variable, or a component of one.
fn has_places(t: &Core) -> bool {
    match &t.kind {
        Kind::Var(_) => true,
        Kind::Proj(inner, _) => has_places(inner),
        _ => false,
    }
}

/// The widest row of literal width whose constant elements are loaded from one range
/// check ([`Dps::blocks`]): a 4 x 4 transform's 16.
const BLOCK_MAX: usize = 64;

/// The number of elements of a view whose dimensions are all constants.
fn row_width(dims: &[Size]) -> Option<usize> {
    dims.iter().try_fold(1usize, |w, d| {
        w.checked_mul(usize::try_from(d.as_const()?).ok()?)
    })
}

/// True when `e` holds statements (a block): it may allocate, write the frame and loop.
fn has_statements(e: &Ex) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| hit |= matches!(n, Node::St(_)));
    hit
}
