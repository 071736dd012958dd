//! How a kernel reads its size names at entry: from `usize` parameters, or from the lengths
//! of its array arguments (`[f64; n]`: n = len; `[f64; 2 * h]`: h = len / 2).

use super::signature::{ty_of, ty_size_names};
use crate::front::ast::{self, FnDef, Sp, Ty};
use crate::front::diag::Diags;
use crate::front::size::Size;
use crate::middle::ir::{Pin, Scalar, Type};

/// Decide how each of a kernel's size names is read from its arguments.
pub(super) fn pin_sizes(f: &FnDef, sizes: &[String], diags: &mut Diags) -> Option<Vec<Pin>> {
    let given: Vec<String> = f
        .params
        .iter()
        .filter(|p| matches!(p.ty, Ty::Usize(_)))
        .map(|p| p.name.text.clone())
        .collect();
    let (pins, known) = propagate_pins(f, &given);
    let missing: Vec<&String> = sizes.iter().filter(|s| !known.contains(s)).collect();
    if missing.is_empty() {
        return Some(pins);
    }
    // A size written in a parameter whose type is no type (already reported) is not
    // reported again: fixing that type may well pin it.
    let mut in_broken = Vec::new();
    for p in &f.params {
        if ty_of(&p.ty, &mut Diags::default()).is_none() {
            ty_size_names(&p.ty, &mut in_broken);
        }
    }
    let sizes: Vec<String> = sizes
        .iter()
        .filter(|s| !in_broken.contains(s))
        .cloned()
        .collect();
    let missing: Vec<&String> = sizes.iter().filter(|s| !known.contains(s)).collect();
    if missing.is_empty() {
        return None;
    }
    // Suggest the fewest `usize` parameters: add the first unknown size, see what the
    // lengths then give, repeat.
    let mut extra = given.clone();
    let mut suggest = Vec::new();
    loop {
        let (_, known) = propagate_pins(f, &extra);
        match sizes.iter().find(|s| !known.contains(s)) {
            Some(s) => {
                suggest.push(format!("`{s}: usize`"));
                extra.push(s.clone());
            }
            None => break,
        }
    }
    let names: Vec<String> = missing.iter().map(|s| format!("`{s}`")).collect();
    let (what, rest) = if missing.len() == 1 {
        ("size", String::new())
    } else if suggest.len() < missing.len() {
        (
            "sizes",
            " (the others then follow from the argument lengths)".to_string(),
        )
    } else {
        ("sizes", String::new())
    };
    // Point at the parameter whose shape mentions the size.
    let at = f
        .params
        .iter()
        .find(|p| {
            let mut ns = Vec::new();
            ty_size_names(&p.ty, &mut ns);
            ns.contains(missing[0])
        })
        .map(|p| Sp::from(p.name.span).to(Sp::from(p.ty.span())))
        .unwrap_or(Sp::from(f.sig_span));
    diags.error(
        at,
        format!(
            "{what} {} of kernel `{}` cannot be read from the argument lengths\n  help: add {} {}{rest}",
            names.join(", "),
            f.name.text,
            if suggest.len() == 1 { "a parameter" } else { "parameters" },
            suggest.join(", ")
        ),
    );
    None
}

/// `size = scale * name + offset` for one size name not yet known, with integer constants.
fn linear(size: &Size, known: &[String]) -> Option<(String, u64, i64)> {
    let mut names = Vec::new();
    size.names(&mut names);
    let [nm] = &names[..] else { return None };
    if known.contains(nm) {
        return None;
    }
    let p = size.poly();
    let mut scale = None;
    let mut offset = 0i64;
    for (m, c) in p.coeffs() {
        if c.fract() != 0.0 {
            return None;
        }
        match &m[..] {
            [] => offset = c as i64,
            [crate::front::size::Atom::Name(x)] if x == nm && c >= 1.0 => scale = Some(c as u64),
            _ => return None,
        }
    }
    Some((nm.clone(), scale?, offset))
}

/// Pins reachable from the `given` sizes: a parameter whose unknown dimensions are all one
/// bare size name fixes it (`[f64; n]`: n = len; `[[f64; n]; n]`: n = sqrt(len)), one whose
/// length is the name alone first.
fn propagate_pins(f: &FnDef, given: &[String]) -> (Vec<Pin>, Vec<String>) {
    let mut known: Vec<String> = given.to_vec();
    let mut pins: Vec<Pin> = f
        .params
        .iter()
        .filter(|p| matches!(p.ty, Ty::Usize(_)))
        .map(|p| Pin::Param(p.name.text.clone()))
        .collect();
    let mut arrays: Vec<(&ast::Param, Vec<Size>, bool)> = f
        .params
        .iter()
        .filter_map(|p| match ty_of(&p.ty, &mut Diags::default()) {
            Some(Type::Arr(elem, dims)) => Some((p, dims, elem == Scalar::Usize)),
            _ => None,
        })
        .collect();
    // The data before index arrays: in `fn k(labels: [usize; n], pts: [f64; n])`, n is
    // `pts.len()`, so a wrong-length index array is the one the error names.
    arrays.sort_by_key(|(_, _, index)| *index);
    let arrays: Vec<(&ast::Param, Vec<Size>)> =
        arrays.into_iter().map(|(p, d, _)| (p, d)).collect();
    loop {
        // A parameter whose length is the name alone decides it first (LANGUAGE.md section
        // 16): `b: [f32; no]` rather than `w: [[f32; ni]; no]`, whose length says nothing of
        // `no` when ni = 0.
        let alone = arrays.iter().find_map(|(p, dims)| {
            let unknown: Vec<&Size> = dims
                .iter()
                .filter(|d| {
                    let mut ns = Vec::new();
                    d.names(&mut ns);
                    ns.iter().any(|x| !known.contains(x))
                })
                .collect();
            match unknown[..] {
                [Size::Name(nm)]
                    if dims.iter().all(|d| {
                        matches!(d, Size::Name(x) if x == nm) || d.as_const() == Some(1)
                    }) =>
                {
                    Some((p.name.text.clone(), nm.clone()))
                }
                _ => None,
            }
        });
        if let Some((param, nm)) = alone {
            pins.push(Pin::FromLen {
                name: nm.clone(),
                param,
                others: Vec::new(),
                power: 1,
            });
            known.push(nm);
            continue;
        }
        let mut progress = false;
        for (p, dims) in &arrays {
            if progress {
                // One pin at a time: the next may be a length that is a name alone.
                break;
            }
            let unknown: Vec<usize> = (0..dims.len())
                .filter(|&k| {
                    let mut ns = Vec::new();
                    dims[k].names(&mut ns);
                    ns.iter().any(|x| !known.contains(x))
                })
                .collect();
            let Some(&k0) = unknown.first() else { continue };
            if let Size::Name(nm) = &dims[k0]
                && unknown
                    .iter()
                    .all(|&k| matches!(&dims[k], Size::Name(x) if x == nm))
            {
                let others = dims
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| !unknown.contains(j))
                    .map(|(_, d)| d.clone())
                    .collect();
                pins.push(Pin::FromLen {
                    name: nm.clone(),
                    param: p.name.text.clone(),
                    others,
                    power: unknown.len(),
                });
                known.push(nm.clone());
                progress = true;
            } else if let [k] = unknown[..]
                && let Some((nm, scale, offset)) = linear(&dims[k], &known)
            {
                // `[f64; 2 * h]` gives h = len / 2, `[f64; n + 1]` gives n = len - 1.
                let others = dims
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, d)| d.clone())
                    .collect();
                pins.push(Pin::Linear {
                    name: nm.clone(),
                    param: p.name.text.clone(),
                    others,
                    scale,
                    offset,
                });
                known.push(nm);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    (pins, known)
}
