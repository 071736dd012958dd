//! Blocking of sum folds: a build over a sum fold interchanged so that its inner loop runs
//! along rows ([`Dps::interchange`]), its columns taken in tiles ([`Dps::tile`]) or its rows
//! several at a time ([`Dps::jam`]). Each sum still adds its terms in the order written, so
//! the results are bit-identical.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lir::{self, Base, Ex, St, Stream, Wrap, plus, wadd, wmul};
use crate::lower::dps::{Dps, Loc, View, fill};
use crate::lower::lanes;
use crate::lower::streams::idents_ok;
use crate::middle::ir::{Core, Kind, VarId};
use proc_macro2::Ident;
use quote::format_ident;

/// How many rows [`Dps::jam`] takes at a time, widest first, before the rows left over run
/// one at a time. Several chains of additions hide an addition's latency on current x86
/// cores; with eight, LLVM also pairs two rows' sums in one SSE2 register, which takes fewer
/// instructions than four. Four stays for the 4 to 7 rows eight leave over. (Measured in
/// docs/BENCHMARKS.md, findings 14 and 23.)
const JAMS: [usize; 2] = [8, 4];

/// The widths of [`Dps::tile`]'s column tiles, widest first. Sixteen f64 accumulators are
/// eight SSE2 registers, half of x86-64's; of the shapes of tile tried, one row of sixteen
/// columns took the fewest instructions. (Measured in docs/BENCHMARKS.md, finding 16.)
const TILES: [usize; 3] = [16, 4, 1];

/// The tiles of several rows ([`Dps::row_tiles`]) a build of rows takes, each with the
/// target feature that chooses it and whether its multiply-adds are fused, tried in
/// order before the rows one at a time. Two rows of sixteen f64 sums are eight 256-bit
/// registers (half of AVX2's); four are eight 512-bit ones, and only fused multiply-adds
/// (`reassociate = true`) keep their chains short enough to gain from them. (Measured in
/// docs/BENCHMARKS.md, "Tiles of several rows".)
const ROW_TILES: [(&str, usize, bool); 3] =
    [("avx512f", 4, true), ("avx", 2, true), ("avx", 2, false)];

/// A row of the right-hand operand that [`Dps::tile`] reads along `l` (`b[l][j]` at `l * w +
/// s + j`), taken as a row stream.
struct TileRow {
    /// The buffer read.
    base: Base,
    /// The offset of row `l`, `l * w + s`: how the loads name the row.
    off: Ex,
    /// `s`, where row 0 starts (`None` for 0).
    start: Option<Ex>,
    /// `w`, the row's width (the tile's column count).
    width: Ex,
}

impl Dps<'_> {
    /// `build(n, |j| ifold(k, init, |acc, l| acc + g))` as two loops, `l` outside and `j`
    /// inside: the destination row starts as `init` and every element adds its `g(j, l)` in
    /// the same order as before, so the result is bit-identical, but the inner loop runs
    /// along rows (`b[l][j]`) and vectorises: the interchange behind a row-major `matmul`.
    /// `None` when `e` is not of that form, or the fold's body reads the destination's buffer.
    pub(super) fn interchange(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Build(n, j, body) = &e.kind else {
            return None;
        };
        let fold = SumFold::of(body)?;
        let SumFold {
            cnt, init, l, g, ..
        } = fold;
        if cnt.mentions(*j) || matches!(dest.base, Base::Param(_)) {
            return None;
        }
        // Small fixed sizes unroll completely as written; the interchange only adds work.
        let small = |s: Option<&Size>| s.and_then(|s| s.as_const()).is_some_and(|c| c <= 8);
        if small(Some(n)) && small(cnt.sym.as_ref()) {
            return None;
        }
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        let (jv, lv) = (self.local(*j), self.local(l));
        self.env.insert(*j, Loc::Scalar(jv.clone()));
        self.env.insert(l, Loc::Scalar(lv.clone()));
        self.bounds.insert(*j, n.clone());
        if let Some(s) = &cnt.sym {
            self.bounds.insert(l, s.clone());
        }
        let ct = self.scalar(cnt);
        // Pass 1: the row starts as init.
        self.enter_loop(*j, &jv);
        let mut it = self.scalar(init);
        let init_streams = self.leave_loop_ex(&mut it, Some(&dest.base));
        // Pass 2: for each l, every element adds g(j, l).
        self.enter_loop(l, &lv);
        self.enter_loop(*j, &jv);
        let mut gt = self.scalar(g);
        let g_streams = self.leave_loop_ex(&mut gt, Some(&dest.base));
        let l_streams = self.leave_loop_ex(&mut gt, Some(&dest.base));
        self.frame.truncate(depth);
        if self.reads(&it, &dest.base) || self.reads(&gt, &dest.base) {
            // The fold reads the destination's buffer: keep the loops as written.
            return None;
        }
        if lir::strided_in(&gt, &jv) {
            // Inside, `j` would walk down a column (`w[j][l]` of a matrix-vector product):
            // the rows are better read along, several at a time (`jam`).
            return None;
        }
        if self.jam
            && let Some(code) = self.tile(
                n,
                *j,
                &fold,
                std::slice::from_ref(dest),
                &|_, _| {},
                // (A tile of one row is not fused under `reassociate`: at x86-64-v3 its
                // fused multiply-adds took fewer instructions but more time, each sum one
                // chain of FMA latencies; docs/BENCHMARKS.md.)
                false,
            )
        {
            return Some(code);
        }
        let first = fill(dest, &jv, &nt, init_streams, vec![St::Slot(it)]);
        let inner = fill(dest, &jv, &nt, g_streams, vec![St::SlotAdd(gt)]);
        let outer = St::For {
            var: lv,
            n: ct,
            streams: l_streams,
            body: vec![inner],
        };
        Some(vec![first, outer])
    }

    /// `build(n, |i| f(ifold(k, init, |acc, l| acc + g)))`, `k` free of `i` and the fold
    /// reached through arithmetic and math calls (`dot(w[i], x) + b[i]`, `dot(..).tanh()`),
    /// [`JAMS`] rows at a time (8, then 4): one `l` loop carries a row's accumulator each, and
    /// each adds its terms in the order written, so the result is bit-identical; but the
    /// rows' chains of additions overlap where one waited on the last, and loads they share
    /// (`x[l]` in a matrix-vector product) are made once. The rows left over run one at a
    /// time. `None` unless every part is plain arithmetic on loads: nothing that can fail
    /// (the first failing row would no longer fail first), no arrays, no writes, and no read
    /// of the destination's buffer; and under `reassociate = true` ([`Dps::sum_loop`]).
    pub(super) fn jam(&mut self, n: &Size, i: VarId, body: &Core, dest: &View) -> Option<Vec<St>> {
        let narrowest = JAMS[JAMS.len() - 1] as u64;
        // Reassociated, each row's sum runs in lanes along its row instead (contiguous
        // loads, vector additions: faster than rows side by side; docs/BENCHMARKS.md).
        let few = n.as_const().is_some_and(|c| c < narrowest);
        if self.reassociate || !self.jam || !body.ty.is_float() || few {
            return None;
        }
        // The row's value with the fold's place held by a variable of no kernel (bound to
        // each row's accumulator in turn).
        let held = VarId::MAX - i;
        let mut rest = body.clone();
        // (Of the body's float type: strict typing keeps one width through `+`, `*` and
        // the math methods that lead to the fold.)
        let taken = take_fold(
            &mut rest,
            &Core::new(Kind::Var(held), body.ty.clone(), body.span),
        )?;
        let fold = SumFold::of(&taken)?;
        if fold.cnt.mentions(i) {
            return None;
        }
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        let (iv, lv) = (self.local(i), self.local(fold.l));
        self.bounds.insert(i, n.clone());
        if let Some(s) = &fold.cnt.sym {
            self.bounds.insert(fold.l, s.clone());
        }
        self.env.insert(fold.l, Loc::Scalar(lv.clone()));
        let ct = self.scalar(fold.cnt);
        let mut out = Vec::new();
        // The first row of the current width's groups.
        let mut start = Ex::Usize(0);
        for (w, width) in JAMS.into_iter().enumerate() {
            // A constant count too small for this width: its loop would never run.
            if n.as_const().is_some_and(|c| c < width as u64) {
                continue;
            }
            let (nb, q) = (
                format_ident!("__nb{}_{}", i, w),
                format_ident!("__q{}_{}", i, w),
            );
            let rows: Vec<Ident> = (0..width)
                .map(|t| format_ident!("__r{}_{}_{}", i, w, t))
                .collect();
            let accs: Vec<Ident> = (0..width)
                .map(|t| format_ident!("__a{}_{}_{}", i, w, t))
                .collect();
            // The rows' index as a loop without streams (its value is each row's local in
            // turn), so that the fold's streams can start at `row * k`.
            self.enter_plain_loop(i, &rows[0]);
            let at = self.loops.len() - 1;
            let row = |g: &mut Self, t: usize| g.bind_row(at, i, &rows[t]);
            let mut inits = Vec::new();
            for t in 0..width {
                row(self, t);
                inits.push(self.scalar(fold.init));
            }
            self.enter_loop(fold.l, &lv);
            let mut step = Vec::new();
            for (t, acc) in accs.iter().enumerate() {
                row(self, t);
                let gt = self.scalar(fold.g);
                step.push(St::Assign(acc.clone(), fold.add(Ex::Var(acc.clone()), gt)));
            }
            let streams = self.leave_loop_sts(&mut step, None);
            // Each row's result, stored together after the loop.
            let mut vals = Vec::new();
            for (t, acc) in accs.iter().enumerate() {
                row(self, t);
                self.env.insert(held, Loc::Scalar(acc.clone()));
                vals.push(self.scalar(&rest));
            }
            // The row's index is its own local again, for the rows left over and for the
            // caller's plain loop when a check below gives up.
            self.env.insert(i, Loc::Scalar(iv.clone()));
            self.loops.pop();
            self.frame.truncate(depth);
            let lp = St::For {
                var: lv.clone(),
                n: ct.clone(),
                streams,
                body: step,
            };
            let parts: Vec<&Ex> = inits.iter().chain([&ct]).chain(&vals).collect();
            let plain =
                parts.iter().all(|e| lir::plain_ex(e)) && lir::plain(std::slice::from_ref(&lp));
            let reads_dest = parts.iter().any(|e| self.reads(e, &dest.base))
                || lir::uses(std::slice::from_ref(&lp), &dest.base);
            if !plain || reads_dest {
                return None;
            }
            let mut block = row_locals(
                &rows,
                wadd(start.clone(), wmul(Ex::Var(q.clone()), Ex::Usize(width))),
            );
            for (a, v) in accs.iter().zip(inits) {
                block.push(St::Let {
                    id: a.clone(),
                    mutable: true,
                    usize_ty: false,
                    val: v,
                });
            }
            block.push(lp);
            // The rows' results are consecutive slots: one row store, one range check. The
            // values are plain and do not read the destination, so computing them all first
            // changes nothing.
            block.push(St::StoreRow(
                dest.base.clone(),
                plus(&dest.off, Ex::Var(rows[0].clone())),
                vals,
            ));
            push_groups(&mut out, &nt, &mut start, width, (nb, q), block);
        }
        // The rows left over, one at a time, as written.
        self.enter_plain_loop(i, &iv);
        let left = self.scalar(body);
        self.loops.pop();
        self.frame.truncate(depth);
        if !lir::plain_ex(&left) || self.reads(&left, &dest.base) {
            return None;
        }
        let r = format_ident!("__left{}", i);
        out.push(St::For {
            var: r.clone(),
            n: rest_of(&nt, &start),
            streams: Vec::new(),
            body: vec![
                St::let_usize(&iv, wadd(start, Ex::Var(r))),
                St::Store(dest.base.clone(), plus(&dest.off, Ex::Var(iv)), left),
            ],
        });
        Some(out)
    }

    /// The interchange's loops with the columns taken [`TILES`] at a time (16, then 4, then
    /// 1 for what is left): a tile's elements are locals for the whole `l` loop, so they
    /// stay in registers, and are stored once at its end, instead of the destination row
    /// being loaded and stored once per `l`. Each element still adds its terms in order, so
    /// the result is bit-identical. The loads at the column (`b[l][j]`) become loads of the
    /// row `b[l][j0..j0 + width]`, which is cut once per `l` for all the tile's columns
    /// (`ldr`). `None` unless every part is plain (nothing can fail, as in [`Dps::jam`]).
    ///
    /// `rows` holds the destination of each row the tiles cover together: one (the row the
    /// caller's loop is at), or several for [`Dps::row_tiles`], whose `bind` makes each
    /// row's index current in turn, as [`Dps::jam`] does. `fused`: each term `x * y` is
    /// added as `fused(x, y, acc)` ([`Ex::Fused`]), only under `reassociate = true`.
    fn tile(
        &mut self,
        n: &Size,
        j: VarId,
        fold: &SumFold,
        rows: &[View],
        bind: &dyn Fn(&mut Self, usize),
        fused: bool,
    ) -> Option<Vec<St>> {
        // Fewer columns than the narrowest tile of several: nothing to keep together.
        if n.as_const().is_some_and(|c| c < TILES[1] as u64) {
            return None;
        }
        let SumFold {
            cnt, init, l, g, ..
        } = *fold;
        let dest = rows.first()?;
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        // The column as a placeholder, replaced in each of a tile's copies (`column`).
        let jt = format_ident!("__col{}", j);
        let lv = self.local(l);
        self.env.insert(j, Loc::Scalar(jt.clone()));
        self.env.insert(l, Loc::Scalar(lv.clone()));
        let ct = self.scalar(cnt);
        self.enter_plain_loop(j, &jt);
        let mut its = Vec::new();
        for t in 0..rows.len() {
            bind(self, t);
            its.push(self.scalar(init));
        }
        self.loops.pop();
        self.enter_loop(l, &lv);
        self.enter_plain_loop(j, &jt);
        let mut terms = Vec::new();
        for t in 0..rows.len() {
            bind(self, t);
            terms.push(self.scalar(g));
        }
        self.loops.pop();
        let mut together = Ex::Tuple(terms);
        let streams = self.leave_loop_ex(&mut together, Some(&dest.base));
        self.frame.truncate(depth);
        let Ex::Tuple(gts) = together else {
            return None;
        };
        let parts: Vec<&Ex> = its.iter().chain(&gts).chain([&ct]).collect();
        if !parts.iter().all(|e| lir::plain_ex(e))
            || parts.iter().any(|e| self.reads(e, &dest.base))
            || streams.iter().any(|st| st.base == dest.base)
            || gts.iter().any(|gt| lir::strided_in(gt, &jt))
        {
            return None;
        }
        // The rows of the right-hand operand read along l (`b[l][j]` at `l * w + s + j`):
        // each becomes a row stream, and a tile reads its segment of the row, cut once per
        // row by a test that does not change along l, which LLVM then makes once per tile.
        // Only rows as wide as the columns: the loads, proven for every column, then prove
        // every row whole (a row stream ends at a partial last row).
        let outer: Vec<String> = self.loops.iter().map(|c| c.ident.to_string()).collect();
        let mut right: Vec<TileRow> = Vec::new();
        for gt in &gts {
            lir::walk_ex(gt, &mut |nd| {
                if let lir::Node::Ex(Ex::Ld(b, at)) = nd
                    && let Some(Some(off)) = lir::unit_offset(at, &jt)
                    && let Some((s, w)) = row_of(&off, &lv)
                    && lir::same(&w, &nt)
                    && [Some(&w), s.as_ref()]
                        .into_iter()
                        .flatten()
                        .all(|x| idents_ok(x, &outer))
                    && !right
                        .iter()
                        .any(|r| r.base == *b && lir::same(&r.off, &off))
                {
                    right.push(TileRow {
                        base: b.clone(),
                        off,
                        start: s,
                        width: w,
                    });
                }
            });
        }
        let mut out = Vec::new();
        // The first column of the current width's tiles.
        let mut start = Ex::Usize(0);
        for (w, width) in TILES.into_iter().enumerate() {
            // Each row and its segment's name; width 1 reads its one element directly.
            let segs: Vec<(&TileRow, Ident)> = if width > 1 {
                right
                    .iter()
                    .enumerate()
                    .map(|(k, r)| (r, format_ident!("__sg{}_{}_{}", j, w, k)))
                    .collect()
            } else {
                Vec::new()
            };
            let (nb, q, j0) = (
                format_ident!("__nt{}_{}", j, w),
                format_ident!("__tq{}_{}", j, w),
                format_ident!("__tc{}_{}", j, w),
            );
            // Each row's sums: `__t{j}_{w}_{k}` for one row, `__t{j}_{w}_{row}x{k}` for several.
            let accs: Vec<Vec<Ident>> = (0..rows.len())
                .map(|t| {
                    (0..width)
                        .map(|k| match rows.len() {
                            1 => format_ident!("__t{}_{}_{}", j, w, k),
                            _ => format_ident!("__t{}_{}_{}x{}", j, w, t, k),
                        })
                        .collect()
                })
                .collect();
            let mut block = vec![St::let_usize(
                &j0,
                wadd(start.clone(), wmul(Ex::Var(q.clone()), Ex::Usize(width))),
            )];
            for (row, it) in accs.iter().zip(&its) {
                for (k, a) in row.iter().enumerate() {
                    block.push(St::Let {
                        id: a.clone(),
                        mutable: true,
                        usize_ty: false,
                        val: column(it, &jt, &j0, width, k, &[], &|b| self.elem_of(b)),
                    });
                }
            }
            let mut step = Vec::new();
            for (row, gt) in accs.iter().zip(&gts) {
                for (k, a) in row.iter().enumerate() {
                    let gk = column(gt, &jt, &j0, width, k, &segs, &|b| self.elem_of(b));
                    let sum = fold.add(Ex::Var(a.clone()), gk);
                    let sum = if fused { lanes::fused(sum) } else { sum };
                    step.push(St::Assign(a.clone(), sum));
                }
            }
            let mut tile_streams = streams.clone();
            for (k, (row, sg)) in segs.iter().enumerate() {
                let elem = format_ident!("__rb{}_{}_{}", j, w, k);
                tile_streams.push(Stream {
                    base: row.base.clone(),
                    start: row.start.clone().unwrap_or(Ex::Usize(0)),
                    elem: elem.clone(),
                    width: Some(row.width.clone()),
                });
                step = vec![St::Segment {
                    id: sg.clone(),
                    base: Base::Row(elem),
                    off: Ex::Var(j0.clone()),
                    width,
                    body: step,
                }];
            }
            block.push(St::For {
                var: lv.clone(),
                n: ct.clone(),
                streams: tile_streams,
                body: step,
            });
            // Each row's tile of sums is one row of the destination: one range check for all.
            for (row, dest) in accs.iter().zip(rows) {
                let at = plus(&dest.off, Ex::Var(j0.clone()));
                block.push(if width == 1 {
                    St::Store(dest.base.clone(), at, Ex::Var(row[0].clone()))
                } else {
                    St::StoreRow(
                        dest.base.clone(),
                        at,
                        row.iter().map(|a| Ex::Var(a.clone())).collect(),
                    )
                });
            }
            push_groups(&mut out, &nt, &mut start, width, (nb, q), block);
        }
        Some(out)
    }

    /// `build(m, |i| build(n, |j| ifold(k, init, |acc, l| acc + g)))`, `k` free of `i` and
    /// `j`: [`Dps::tile`]'s tiles over `rows` rows at a time, the rows left over as written
    /// (`one_row`, the caller's loop over the rows, each row's tiles alone). More sums in
    /// registers hide more of the additions' latency, and each load of `b`'s row serves
    /// every row of the tile; but with SSE2's sixteen 128-bit registers a second row's sums
    /// spill, so the caller prints these codes beside the rows one at a time, chosen by the
    /// target's features ([`Ex::Target`]): see [`Dps::rows_for_target`]. Each sum adds its
    /// terms in order as before, so the result is bit-identical, unless `fused` (only under
    /// `reassociate = true`: each term a fused multiply-add).
    pub(super) fn row_tiles(
        &mut self,
        m: &Size,
        i: VarId,
        body: &Core,
        dest: &View,
        one_row: &St,
        (tile_rows, fused): (usize, bool),
    ) -> Option<Vec<St>> {
        let Kind::Build(n, j, inner) = &body.kind else {
            return None;
        };
        let fold = SumFold::of(inner)?;
        let St::For {
            var: iv,
            body: row_code,
            ..
        } = one_row
        else {
            return None;
        };
        let rows_n = tile_rows as u64;
        let small = |s: Option<&Size>| s.and_then(|s| s.as_const()).is_some_and(|c| c <= 8);
        if !self.jam
            || m.as_const().is_some_and(|c| c < rows_n)
            || fold.cnt.mentions(i)
            || fold.cnt.mentions(*j)
            || matches!(dest.base, Base::Param(_))
            || (small(Some(n)) && small(fold.cnt.sym.as_ref()))
        {
            return None;
        }
        self.bounds.insert(*j, n.clone());
        if let Some(s) = &fold.cnt.sym {
            self.bounds.insert(fold.l, s.clone());
        }
        let depth = self.frame.depth();
        let rows: Vec<Ident> = (0..tile_rows)
            .map(|t| format_ident!("__tr{}_{}", i, t))
            .collect();
        let dests: Vec<View> = rows
            .iter()
            .map(|r| self.row_of(dest, Ex::Var(r.clone())))
            .collect();
        // The rows' index as a loop without streams, its value each row's local in turn.
        self.enter_plain_loop(i, &rows[0]);
        let at = self.loops.len() - 1;
        let bind = |g: &mut Self, t: usize| g.bind_row(at, i, &rows[t]);
        let tiles = self.tile(n, *j, &fold, &dests, &bind, fused);
        self.loops.pop();
        self.frame.truncate(depth);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        let mut block = row_locals(
            &rows,
            wmul(Ex::Var(format_ident!("__rq{}", i)), Ex::Usize(tile_rows)),
        );
        block.extend(tiles?);
        let nm = self.sizes.get(m);
        let mut out = Vec::new();
        let mut start = Ex::Usize(0);
        push_groups(
            &mut out,
            &nm,
            &mut start,
            tile_rows,
            (format_ident!("__nr{}", i), format_ident!("__rq{}", i)),
            block,
        );
        let left = format_ident!("__lr{}", i);
        let mut left_code = vec![St::let_usize(
            iv,
            wadd(start.clone(), Ex::Var(left.clone())),
        )];
        left_code.extend(row_code.iter().cloned());
        out.push(St::For {
            var: left,
            n: rest_of(&nm, &start),
            streams: Vec::new(),
            body: left_code,
        });
        Some(out)
    }

    /// Make `row` the current value of the rows' index `i`, whose loop context (taking no
    /// streams) is `self.loops[at]`: [`Dps::jam`]'s and [`Dps::row_tiles`]' rows in turn.
    fn bind_row(&mut self, at: usize, i: VarId, row: &Ident) {
        self.loops[at].ident = row.clone();
        self.env.insert(i, Loc::Scalar(row.clone()));
    }

    /// The rows of `build(m, |i| body)` written into `dest`: `one_row` (the rows one at a
    /// time), or, where [`Dps::row_tiles`] applies, `if cfg!(target_feature = ..) { .. }`
    /// over the [`ROW_TILES`] (fused only under `reassociate = true`), widest first, with
    /// `one_row` last: the code each target compiles is the one its registers suit.
    pub(super) fn rows_for_target(
        &mut self,
        m: &Size,
        i: VarId,
        body: &Core,
        dest: &View,
        one_row: St,
    ) -> Vec<St> {
        let mut code = vec![one_row.clone()];
        for (feature, rows, fused) in ROW_TILES.into_iter().rev() {
            if fused != self.reassociate {
                continue;
            }
            if let Some(wide) = self.row_tiles(m, i, body, dest, &one_row, (rows, fused)) {
                code = vec![St::If(Ex::Target(feature), wide, code)];
            }
        }
        code
    }
}

/// `let rows[0] = first; let rows[t] = rows[0] + t; ..`: the locals of a group of
/// consecutive rows ([`Dps::jam`]'s, [`Dps::row_tiles`]').
fn row_locals(rows: &[Ident], first: Ex) -> Vec<St> {
    let mut out = vec![St::let_usize(&rows[0], first)];
    for (t, r) in rows.iter().enumerate().skip(1) {
        out.push(St::let_usize(
            r,
            wadd(Ex::Var(rows[0].clone()), Ex::Usize(t)),
        ));
    }
    out
}

/// `let nb = (n - start) / width; for q in 0..nb { block }` appended to `out`, and `start`
/// moved past the groups: one width of the jam's rows or of the tiles' columns, widest
/// first.
fn push_groups(
    out: &mut Vec<St>,
    n: &Ex,
    start: &mut Ex,
    width: usize,
    (nb, q): (Ident, Ident),
    block: Vec<St>,
) {
    let rest = rest_of(n, start);
    out.push(St::let_usize(
        &nb,
        if width == 1 {
            rest
        } else {
            Ex::Bin(BinOp::Div, Box::new(rest), Box::new(Ex::Usize(width)))
        },
    ));
    out.push(St::For {
        var: q,
        n: Ex::Var(nb.clone()),
        streams: Vec::new(),
        body: block,
    });
    *start = wadd(start.clone(), wmul(Ex::Var(nb), Ex::Usize(width)));
}

/// `n - start`, the count left after the first `start` (folded when `start` is 0).
fn rest_of(n: &Ex, start: &Ex) -> Ex {
    match start {
        Ex::Usize(0) => n.clone(),
        s => Ex::Wrap(Wrap::Sub, Box::new(n.clone()), Box::new(s.clone())),
    }
}

/// `off` as `l * w + s` (`s` may be absent), `w` and `s` free of `l`: the offset of row `l`
/// of a buffer of rows of width `w` from `s`.
pub(super) fn row_of(off: &Ex, l: &Ident) -> Option<(Option<Ex>, Ex)> {
    let free = |x: &Ex| !lir::idents(x).contains(l);
    let is_l = |x: &Ex| matches!(x, Ex::Var(v) if v == l);
    match off {
        Ex::Wrap(Wrap::Mul, a, b) if is_l(a) && free(b) => Some((None, (**b).clone())),
        Ex::Wrap(Wrap::Mul, a, b) if is_l(b) && free(a) => Some((None, (**a).clone())),
        Ex::Wrap(Wrap::Add, a, b) => {
            let side = |r: &Ex, s: &Ex| match row_of(r, l) {
                Some((None, w)) if free(s) => Some((Some(s.clone()), w)),
                _ => None,
            };
            side(a, b).or_else(|| side(b, a))
        }
        _ => None,
    }
}

/// `ifold(cnt, init, |acc, l| acc + g)` (or `g + acc`) of f64, `g` free of `acc`: a sum whose
/// terms can be added in any interleaving with other sums' (the interchange, the jam and the
/// tiles), each sum's own order kept.
#[derive(Clone, Copy)]
struct SumFold<'a> {
    cnt: &'a Core,
    init: &'a Core,
    l: VarId,
    g: &'a Core,
    /// The accumulator is the left operand of the `+`.
    acc_left: bool,
}

impl<'a> SumFold<'a> {
    fn of(e: &'a Core) -> Option<SumFold<'a>> {
        let Kind::Ifold(cnt, init, acc, l, fb) = &e.kind else {
            return None;
        };
        let Kind::Bin(BinOp::Add, x, y, _) = &fb.kind else {
            return None;
        };
        let (g, acc_left) = match (&x.kind, &y.kind) {
            (Kind::Var(a), _) if a == acc => (&**y, true),
            (_, Kind::Var(a)) if a == acc => (&**x, false),
            _ => return None,
        };
        (e.ty.is_float() && !g.mentions(*acc)).then_some(SumFold {
            cnt,
            init,
            l: *l,
            g,
            acc_left,
        })
    }

    /// One step of the sum, the operands in the order written.
    fn add(&self, acc: Ex, g: Ex) -> Ex {
        let (a, b) = if self.acc_left { (acc, g) } else { (g, acc) };
        Ex::Bin(BinOp::Add, Box::new(a), Box::new(b))
    }
}

/// Take the sum fold out of `e`, leaving `held` in its place: the fold must be reached through
/// arithmetic and math calls only (`ifold(..)`, `ifold(..) + b[i]`, `0.5 * ifold(..)`,
/// `ifold(..).tanh()`), so that it is evaluated exactly once per row.
fn take_fold(e: &mut Core, held: &Core) -> Option<Core> {
    if let Kind::Ifold(..) = e.kind
        && e.ty == held.ty
    {
        return Some(std::mem::replace(e, held.clone()));
    }
    match &mut e.kind {
        Kind::Bin(_, a, b, _) => take_fold(a, held).or_else(|| take_fold(b, held)),
        Kind::Neg(a) => take_fold(a, held),
        Kind::Math(_, xs) => xs.iter_mut().find_map(|x| take_fold(x, held)),
        _ => None,
    }
}

/// Copy `k` of a tile's code `e`, translated with the column index as `jt`, for the tile of
/// `width` columns from `j0`: loads at `x + jt` become element `k` of the row `x + j0 .. x +
/// j0 + width` (the original loads are proven for every column, so is the row), and every
/// other use of the column is `j0 + k`.
fn column(
    e: &Ex,
    jt: &Ident,
    j0: &Ident,
    width: usize,
    k: usize,
    segs: &[(&TileRow, Ident)],
    elem_of: &dyn Fn(&Base) -> lir::Scalar,
) -> Ex {
    let mut e = e.clone();
    lir::rewrite_ex(&mut e, &mut |x| {
        if let Ex::Ld(b, at) = x
            && let Some(off) = lir::unit_offset(at, jt)
        {
            // From a row with a segment cut for the tile: element k of the segment.
            let seg = off.as_ref().and_then(|o| {
                segs.iter()
                    .find(|(r, _)| r.base == *b && lir::same(&r.off, o))
            });
            if let Some((_, sg)) = seg {
                let t = elem_of(b);
                *x = Ex::LdRow(Base::Row(sg.clone()), Box::new(Ex::Usize(0)), width, k, t);
                return true;
            }
            let start = match off {
                Some(o) => wadd(o, Ex::Var(j0.clone())),
                None => Ex::Var(j0.clone()),
            };
            *x = Ex::LdRow(b.clone(), Box::new(start), width, k, elem_of(b));
            return true;
        }
        if matches!(x, Ex::Var(v) if v == jt) {
            *x = wadd(Ex::Var(j0.clone()), Ex::Usize(k));
            return true;
        }
        false
    });
    e
}
