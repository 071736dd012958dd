#!/usr/bin/env python3
"""Writes docs/errors.md from the trybuild suite: every case in fsmooth-ui/tests/ui/fail
with the exact message rustc shows for it (its .stderr). Run from the repository root
after refreshing the suite (TRYBUILD=overwrite cargo test -p fsmooth-ui)."""

import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
fail = root / "fsmooth-ui" / "tests" / "ui" / "fail"

# Grouped as LANGUAGE.md sections 4, 8 and 9 list them; anything else goes under "More".
groups = [
    ("Shapes of arguments", ["arg_shape_literal", "arg_shape_symbolic", "arg_shape_rows", "arg_rank", "matvec_inner_dim"]),
    ("Rust arguments that are not a row-major run of the element type", ["arg_not_row_major"]),
    ("Shapes of branches, literals, folds and results", ["if_branches", "array_literal_elements", "ifold_body_shape", "return_shape", "return_size_not_fixed"]),
    ("Sizes that are not known before the loops run", ["data_dependent_size", "loop_index_size", "slice_length_depends_on_loop", "unpinned_size"]),
    ("Constant indexes and slices", ["constant_index_out_of_range", "constant_slice_out_of_range"]),
    ("Types", ["integer_literal_as_f64", "usize_as_f64", "bool_condition", "float_index", "negate_usize", "array_arithmetic", "bool_array", "bool_array_parameter", "closure_result_type"]),
    ("f64, f32 and usize do not mix", ["f32_f64_operator", "f32_f64_comparison", "f32_f64_math_argument", "f32_f64_if", "f32_f64_ifold", "f32_f64_call_argument", "f32_f64_array_argument", "literal_suffix", "usize_element_as_float", "usize_float_method", "math_arity_f32"]),
    ("Names and calls", ["unknown_function_suggestion", "unknown_variable", "unknown_method", "wrong_argument_count", "duplicate_function", "reserved_parameter_name", "call_site_missing_argument"]),
    ("Functions", ["recursion", "mutual_recursion", "kernel_function_parameter", "closure_as_value", "closure_arity"]),
    ("Rust that is not fsmooth", ["syntax_error", "for_loop", "mutable_binding", "early_return", "early_return_in_if", "if_without_else", "reference_type"]),
    ("What Rust users reach for first: loops, assignments, constants, array patterns, division", ["while_loop", "loop_loop", "for_loop_accumulate", "element_assignment", "let_reads_itself", "let_pattern_reads_itself", "array_pattern_count", "array_pattern_not_literal", "float_constant_unknown", "float_constant_called", "float_constant_f64_in_f32_code", "index_float_division", "fold_start_integer_literal", "float_constant_f64_in_f32", "size_not_equal_after_division"]),
    ("Tuples", ["tuple_arity_ifold", "tuple_arity_if", "tuple_component_shape", "projection_out_of_range", "projection_of_array", "tuple_as_array_sum", "tuple_as_array_concat", "let_pattern_not_tuple", "let_pattern_too_many"]),
    ("Kernels with tuples: parameters and several results", ["kernel_tuple_parameter", "kernel_nested_tuple_result", "several_results_wrong_outputs", "several_results_scalars"]),
    ("Scans", ["scan_body_shape", "scan_count_loop_index"]),
    ("Layout views", ["split_not_multiple", "split_literal_not_multiple", "slide_no_window", "concat_rank", "interleave_lengths", "pad_fill_shape"]),
    ("Blocks that import from other blocks", ["import_unknown_name", "import_not_reexported", "import_clash", "import_call_shape", "import_other_crate_shape", "import_from_failed_block", "import_relative_in_exported_block", "import_missing_module", "import_not_a_block"]),
    ("Derivatives", ["jvp_usize_argument", "jvp_tangent_shape", "jvp_tangent_count", "jvp_usize_result", "jvp_not_a_function", "grad_of_an_array_function", "vjp_seed_shape", "grad_by_a_tuple"]),
    ("Loops that stop and scatters", ["iterate_condition_not_bool", "iterate_step_shape", "grad_through_iterate", "scatter_arguments", "iterate_not_the_form", "scatter_step_not_pair", "scatter_value_tuple", "reduce_by_index_start_type", "vjp_reduce_by_index_max"]),
    ("Block options", ["option_unknown", "option_not_bool"]),
    ("Several errors at once", ["two_errors_and_a_valid_kernel", "errors_in_source_order"]),
    ("One mistake, one error", ["failed_let_branches", "failed_let_loop_index_size", "return_size_not_fixed_read", "unsupported_return_type"]),
    ("Warnings, denied: unused names", ["unused_let", "unused_parameter", "unused_closure_parameter", "unused_tuple_component", "unused_helper", "unused_import", "unused_expectation_unmet"]),
    ("Remarks, denied: what the frame stores (`remarks = true`, docs/remarks.md)", ["remarks_stored", "remarks_reverse"]),
]

cases = sorted(p.stem for p in fail.glob("*.rs"))
listed = {c for _, cs in groups for c in cs}
more = [c for c in cases if c not in listed]
if more:
    groups.append(("More", more))

out = [
    "# fsmooth's compile-time errors",
    "",
    "Every error the `fsmooth!` macro reports, each with a minimal block that triggers it and",
    "the message rustc prints, verbatim. The examples are the trybuild suite in",
    "`fsmooth-ui/tests/ui/fail` (run by `cargo test`), so this page cannot drift from what the compiler",
    "says: it is regenerated by `python3 tools/errors_doc.py`.",
    "",
    "All errors of a block are reported in one build, each on the tokens it is about; after",
    "an error every kernel keeps its signature, so calls to it raise no second error. Inside a",
    "kernel, a name whose definition failed (a `let` whose value is wrong, a parameter whose",
    "type is not one) stays bound, and its uses raise no second error either.",
    "",
    "A block that compiles may still warn, through rustc's own lints on its tokens: unused",
    "`let`s, parameters, closure parameters, helpers and imports (the last section shows them",
    "denied; docs/language.md says how to silence them).",
    "",
]
for title, cs in groups:
    out += [f"## {title}", ""]
    for c in cs:
        src = (fail / f"{c}.rs").read_text()
        err = (fail / f"{c}.stderr").read_text()
        body = src.split("fn main()")[0].rstrip() if "fn main() {}" in src else src.rstrip()
        out += [f"### `{c}`", "", "```rust", body, "```", "", "```text", err.rstrip(), "```", ""]

(root / "docs" / "errors.md").write_text("\n".join(out))
print(f"docs/errors.md: {len(cases)} cases")
