//! Index arrays (LANGUAGE.md section 10): an element of a `usize` parameter used as an index
//! (`cams[obs[j][0]]`, `x[idx[i]]`, a gather) is checked once, at entry: every element in
//! that position of the parameter (`obs[..][0]` is one column, `idx[..]` all of it) against
//! the length of the array it indexes, before anything is written. The loops then index
//! with it unchecked.
//!
//! Which variables hold a part of an index array is noted as they are bound ([`Origin`]);
//! each index proven this way adds a [`Gather`], which the entry turns into one
//! `check_column` call ([`crate::lir::St::CheckColumn`]).

use crate::front::ast::BinOp;
use crate::front::size::{Size, names_nonneg};
use crate::lir::{Base, Ex, St};
use crate::lower::dps::{Dps, Loc};
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use proc_macro2::Ident;

/// Where a value is in an index array parameter: the parameter, its dimensions, and the
/// index applied to each dimension so far.
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    param: Ident,
    dims: Vec<Size>,
    at: Vec<At>,
}

/// An index applied to a dimension of an index array.
#[derive(Clone, Copy, Debug, PartialEq)]
enum At {
    /// A constant.
    Const(u64),
    /// The index of a loop over the whole dimension (`x[i][j]`, `j` over the row): every
    /// element of the dimension is in that position.
    Whole,
    /// Any other index.
    Other,
}

/// A column of an index array checked at entry: the elements `param[at + k * stride]` are
/// below `len`.
#[derive(Clone, Debug)]
pub(crate) struct Gather {
    param: Ident,
    at: Size,
    stride: Size,
    len: Size,
}

impl Dps<'_> {
    /// Where `e` (a row or element of an array) is in an index array parameter, if it is.
    fn origin(&self, e: &Core) -> Option<Origin> {
        match &e.kind {
            Kind::Var(v) => {
                if let Some(o) = self.origins.get(v) {
                    return Some(o.clone());
                }
                let Some(Loc::View(w)) = self.env.get(v) else {
                    return None;
                };
                let Base::Param(id) = &w.base else {
                    return None;
                };
                let p = self.kernel.params.iter().find(|p| p.id == *v)?;
                let usize_array = matches!(&p.ty, Type::Arr(Scalar::Usize, _));
                (usize_array && w.off.is_none()).then(|| Origin {
                    param: id.clone(),
                    dims: w.dims.clone(),
                    at: Vec::new(),
                })
            }
            Kind::Index(a, k) => {
                let mut o = self.origin(a)?;
                if o.at.len() >= o.dims.len() {
                    return None;
                }
                let dim = &o.dims[o.at.len()];
                let at = match &k.sym {
                    Some(c) if c.as_const().is_some() => At::Const(c.as_const()?),
                    Some(Size::Loop(l)) if self.bounds.get(l).is_some_and(|b| b.same(dim)) => {
                        At::Whole
                    }
                    _ => At::Other,
                };
                o.at.push(at);
                Some(o)
            }
            _ => None,
        }
    }

    /// Note what variable `v`, bound to `a`, is: a part of an index array, or a bounded
    /// `usize` (`min`, `max`, `clamp`, a checked scatter index), for the proofs of the indexes that use it.
    pub(super) fn note(&mut self, v: VarId, a: &Core) {
        if self.narrowed() && a.ty.is_arr() {
            self.narrowed_lets.insert(v);
        }
        if let Some(o) = self.origin(a) {
            self.origins.insert(v, o);
        }
        if a.ty == Type::Usize && matches!(a.kind, Kind::Math(..) | Kind::CheckIndex(..)) {
            self.capped.insert(v, a.clone());
        }
        if let Kind::Slice(base, lo) = &a.kind
            && matches!(base.kind, Kind::Var(_))
            && lo.sym.is_some()
        {
            self.sliced.insert(v, ((**base).clone(), (**lo).clone()));
        }
    }

    /// Element `i` of a variable bound to a slice `a[lo..lo + len]`, proven in bounds and
    /// read along a loop, as `a[lo + i]`: a stream of `a` like any other read of it. `None`
    /// otherwise: the element is then read through the slice's view.
    pub(super) fn slice_element(&mut self, s: &Core, i: &Core) -> Option<Ex> {
        let Kind::Var(v) = &s.kind else { return None };
        let (base, lo) = self.sliced.get(v)?.clone();
        i.sym.as_ref()?;
        let span = i.span;
        let at = Core::usize_bin(BinOp::Add, lo, i.clone(), "slice index", span);
        let (pre, w) = self.view(&base);
        if !pre.is_empty() || !self.proven_below(&at, &w.dims[0]) {
            return None;
        }
        // Only along a loop that takes streams and is not short: an element read at a
        // constant place, or in a loop LLVM writes out (a gathered camera's adjoint, 11
        // steps), keeps the view's row load, one range check for the row's loads (a stream
        // there cost BA's Jacobian by rows 12.7%).
        let mut vars = Vec::new();
        if let Some(s) = &at.sym {
            s.loops(&mut vars);
        }
        let long = |v: VarId| {
            self.bounds
                .get(&v)
                .is_none_or(|b| b.as_const().is_none_or(|c| c > crate::lower::peel::SHORT))
        };
        if !self
            .loops
            .iter()
            .any(|c| c.accepts && vars.contains(&c.var) && long(c.var))
        {
            return None;
        }
        let read = Core::new(Kind::Index(Box::new(base), Box::new(at)), s.ty.elem(), span);
        Some(self.scalar(&read))
    }

    /// True when index `i` of an array whose first dimension is `dim` is an element of an
    /// index array parameter whose column can be checked at entry: the indexes after the
    /// first are constants proven in range, after indexes of loops over their whole
    /// dimensions (`x[i][j]` with `j` over the row: every element is in that position, all
    /// of `x` is checked), and `dim` is known at entry. The column is then checked there
    /// (once for each column and length).
    pub(super) fn gathered(&mut self, i: &Core, dim: &Size) -> bool {
        let Some(g) = self.gather_of(i, dim) else {
            return self.in_checked_array(i, dim);
        };
        if !self.is_checked(&g) {
            self.gathers.push(g);
        }
        true
    }

    /// True when index `i` of an array whose first dimension is `dim` is an element of an
    /// index array column already checked at entry for that length (another read of the
    /// same element proved in bounds that way): proven, with no check added for it.
    pub(super) fn checked_already(&self, i: &Core, dim: &Size) -> bool {
        match self.gather_of(i, dim) {
            Some(g) => self.is_checked(&g),
            None => self.in_checked_array(i, dim),
        }
    }

    /// True when `i` is an element of an index array at any place (`f[j][(k + 1) % 3]`)
    /// and the entry already checks every element of that array below `dim`: the whole
    /// array, or each of its columns (other reads of it at constant places).
    fn in_checked_array(&self, i: &Core, dim: &Size) -> bool {
        if dim.has_loop() {
            return false;
        }
        let Some(o) = self.origin(i) else {
            return false;
        };
        if o.at.len() != o.dims.len() || o.dims.is_empty() {
            return false;
        }
        self.gathers
            .iter()
            .filter(|k| k.param == o.param && k.len.same(dim))
            .any(|g| match g.stride {
                Size::Lit(1) => g.at.same(&Size::Lit(0)),
                _ => g.every_column_in(&self.gathers),
            })
    }

    /// Whether the entry checks the column `g` already.
    fn is_checked(&self, g: &Gather) -> bool {
        self.gathers
            .iter()
            .any(|k| k.column_of(g) && k.at.same(&g.at))
    }

    /// The column check that proves index `i` below `dim` ([`Dps::gathered`]).
    fn gather_of(&self, i: &Core, dim: &Size) -> Option<Gather> {
        if dim.has_loop() {
            return None;
        }
        let o = self.origin(i)?;
        if o.at.len() != o.dims.len() || o.dims.is_empty() {
            return None;
        }
        // The offset of the element in its row, and the row's length.
        let mut at = Size::Lit(0);
        let mut stride = Size::Lit(1);
        // Constants last, whole dimensions before them: the elements `at + k * stride`.
        let mut whole = false;
        for d in (1..o.dims.len()).rev() {
            match o.at[d] {
                At::Const(c) if !whole => {
                    let last = Size::minus(o.dims[d].clone(), Size::Lit(c + 1));
                    if !names_nonneg(&last) {
                        return None;
                    }
                    at = Size::plus(Size::times(Size::Lit(c), stride.clone()), at);
                    stride = Size::times(o.dims[d].clone(), stride);
                }
                At::Whole => whole = true,
                _ => return None,
            }
        }
        Some(Gather {
            param: o.param,
            at: at.fold(),
            stride: stride.fold(),
            len: dim.clone(),
        })
    }

    /// The entry's checks of the index array columns the loops use unchecked.
    pub(super) fn gather_checks(&mut self) -> Vec<St> {
        let gathers = whole_arrays(std::mem::take(&mut self.gathers));
        gathers
            .iter()
            .map(|g| St::CheckColumn {
                base: Base::Param(g.param.clone()),
                at: self.sizes.get(&g.at),
                stride: self.sizes.get(&g.stride),
                len: self.sizes.get(&g.len),
            })
            .collect()
    }
}

/// The checks of every column of one array's rows against one length as one check of the
/// whole array (`e: [[usize; 2]; p]` read as `x[e[j][0]]` and `x[e[j][1]]`): one pass over
/// the elements in order, where a pass per column reads every row once for each. A bad index
/// is then the first in the array's order rather than the first of its column.
fn whole_arrays(gathers: Vec<Gather>) -> Vec<Gather> {
    let mut out: Vec<Gather> = Vec::new();
    for g in &gathers {
        let g = if g.every_column_in(&gathers) {
            Gather {
                param: g.param.clone(),
                at: Size::Lit(0),
                stride: Size::Lit(1),
                len: g.len.clone(),
            }
        } else {
            g.clone()
        };
        if !out.iter().any(|k| k.column_of(&g) && k.at.same(&g.at)) {
            out.push(g);
        }
    }
    out
}

impl Gather {
    /// Whether `gathers` check every column of the rows `self` checks one of (rows of a
    /// literal width of two or more).
    fn every_column_in(&self, gathers: &[Gather]) -> bool {
        match self.stride {
            Size::Lit(width) if width > 1 => (0..width).all(|c| {
                gathers
                    .iter()
                    .any(|k| k.column_of(self) && k.at.same(&Size::Lit(c)))
            }),
            _ => false,
        }
    }

    /// Whether `self` checks a column of the rows `other` checks one of: the same array,
    /// row length and bound.
    fn column_of(&self, other: &Gather) -> bool {
        self.param == other.param && self.stride.same(&other.stride) && self.len.same(&other.len)
    }
}
