#!/usr/bin/env bash
# Firmware CI (examples/firmware, docs/EMBEDDED.md): builds the example for a Cortex-M4F
# (thumbv7em-none-eabihf, fsmooth with default features off), checks that it has no panic
# path, runs it on QEMU's mps2-an386 and fails unless every kernel result matches the
# host's. Installs what it needs: the rustup target and llvm-tools, and the Debian package
# qemu-system-arm when it is missing (apt, as root).
#
#   .ci/firmware.sh           build, check, run (exit status 0 only if all of it passed)
#   .ci/firmware.sh --sizes   the same, then the per-kernel flash table of docs/EMBEDDED.md
#
# The f32 kernels (every kernel of src/kernels.rs whose signature names only f32) must reach
# no soft-float f64 routine and no f64 math function in the machine code: the Cortex-M4F's
# FPU is single precision. A kernel polluted with f64 (feature `canary-f64`) must fail that
# check, which checks the check.
#
# The no-panic check is the link itself: the firmware's panic handler calls a symbol that
# does not exist, so any panic the optimiser could not remove is a link error. It is made
# three times: the release build; a deliberate panic (feature `canary-panic`) that must fail
# to link, which checks the check; and a release build with `overflow-checks = true`
# (at the opt-levels in $FIRMWARE_OVERFLOW_OPT_LEVELS, default "s z 1 2 3").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
fw=$root/examples/firmware
target=thumbv7em-none-eabihf
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$fw/target}"
elf=$CARGO_TARGET_DIR/$target/release/fsmooth-firmware
qemu_timeout=${QEMU_TIMEOUT:-120}
sizes=false
[ "${1:-}" = --sizes ] && sizes=true
start=$SECONDS

step() { printf '\n== %s (%ss)\n' "$*" $((SECONDS - start)); }

step "tools"
rustup show active-toolchain >/dev/null 2>&1 || rustup toolchain install 1.95.0 --profile minimal
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
rustup component add llvm-tools 2>&1 | grep -v "is up to date" || true
llvm=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin
if ! command -v qemu-system-arm >/dev/null; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "qemu-system-arm is missing: install the Debian package qemu-system-arm" >&2
        exit 1
    fi
    # Say what apt would remove (another QEMU's packages can conflict); outside CI, refuse to
    # remove anything.
    apt_opts=(-y -qq --no-install-recommends)
    [ "${CI:-}" = true ] || apt_opts+=(--no-remove)
    apt-get update -qq
    apt-get install -s --no-install-recommends qemu-system-arm | grep '^Remv' || true
    DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" qemu-system-arm >/dev/null
fi
qemu-system-arm --version | sed -n 1p

build() { (cd "$fw" && cargo build --release "$@"); }

# Every call into core's panic machinery, with the function and source line it comes from.
panic_callers() {
    "$llvm/llvm-objdump" -d -l -C --no-show-raw-insn "$1" | awk '
        /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ /, "", fn) }
        /^; / { line = substr($0, 3) }
        fn !~ /^<core::panicking/ && /\tbl?(\.w)?\t.*<(core::panicking|core::slice::index|core::option::unwrap_failed|core::option::expect_failed|core::result::unwrap_failed)/ {
            t = $0; sub(/.*</, "<", t); sub(/>.*/, ">", t)
            print fn "\n    " line "\n    calls " t
        }'
}

# Builds (arguments go to cargo); on a failed link, rebuilds with an ordinary panic handler
# and lists the panic paths.
build_or_locate() {
    if build "$@"; then
        return 0
    fi
    echo >&2
    echo "The build failed. If the linker reported fsmooth_firmware_has_a_reachable_panic," >&2
    echo "the firmware holds a panic path; rebuilding with --features locate-panics:" >&2
    if build --features locate-panics "$@" 2>/dev/null; then
        panic_callers "$elf" >&2
    fi
    exit 1
}

# No panic machinery may be linked in at all (the link guard implies it; this says so in
# the log).
no_panic_symbols() {
    local found
    found=$("$llvm/llvm-nm" -C "$1" | grep -E 'core::panicking|rust_begin_unwind|panic_bounds_check|unwrap_failed|expect_failed|slice_index_fail|slice_(start|end)_index' || true)
    if [ -n "$found" ]; then
        echo "panic machinery linked into $1:" >&2
        echo "$found" >&2
        exit 1
    fi
    echo "no panic symbols in $(basename "$1")"
}

# Nothing of an allocator either: the runtime's `alloc` feature off, no allocation symbols.
no_allocator() {
    if (cd "$fw" && cargo tree -e features,normal -i fsmooth-runtime 2>/dev/null | grep -q 'feature "alloc"'); then
        echo "fsmooth-runtime's alloc feature is on in the firmware's dependency graph" >&2
        exit 1
    fi
    if "$llvm/llvm-nm" "$1" | grep -E '__rust_alloc|__rg_alloc|__rust_no_alloc_shim'; then
        echo "allocator symbols linked into $1" >&2
        exit 1
    fi
    echo "no allocator: no alloc feature, no allocation symbols"
}

# Boots the firmware; passes only on exit status 0 and "N of N checks passed".
run() {
    local log=$CARGO_TARGET_DIR/firmware-qemu.log rc
    set +e
    timeout "$qemu_timeout" qemu-system-arm -machine mps2-an386 -cpu cortex-m4 \
        -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native -kernel "$elf" | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    if [ "$rc" -ne 0 ]; then
        echo "firmware run failed: exit status $rc (124: timed out after ${qemu_timeout}s)" >&2
        exit 1
    fi
    if grep -q '^FAIL' "$log" || ! tail -n 1 "$log" | awk '$1 == $3 && $1 > 0 && /checks passed$/ { ok = 1 } END { exit !ok }'; then
        echo "firmware run: not every check passed" >&2
        exit 1
    fi
}

# The call graph of each kernel: every `#[inline(never)] call_<kernel>` function of the
# firmware (src/main.rs, src/single.rs) is a root, and the kernel is inlined into it. Prints
# tab-separated lines: `K kernel own total` ("own code" is the root function, with whatever
# LLVM inlined into it, libm routines called once included; "total" adds every function it
# reaches: libm, compiler-builtins' soft-float f64 routines, memset) and `C kernel callee` for
# each function reached (its full demangled name), then `U union` (all kernels' code, each
# function once).
call_graph() {
    {
        "$llvm/llvm-nm" -C --print-size --defined-only "$1" | awk 'NF >= 4 && $3 ~ /^[tT]$/ { a = $1; sub(/^0+/, "", a); n = $4; for (i = 5; i <= NF; i++) n = n " " $i; print "SYM", a, $2, n }'
        "$llvm/llvm-objdump" -d --no-show-raw-insn "$1" | awk '
            /^[0-9a-f]+ <.*>:$/ { cur = $1; sub(/^0+/, "", cur) }
            /\tbl?(\.w)?\t0x[0-9a-f]+ </ { for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/) { t = substr($i, 3); sub(/^0+/, "", t); print "CALL", cur, t; break } }'
    } | awk '
        function hex(s,   v, i, c) { v = 0; for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
        function short(n) { sub(/::h[0-9a-f]+$/, "", n); sub(/^.*::/, "", n); return n }
        function visit(a, root,   k) { if ((root SUBSEP a) in seen) return; seen[root SUBSEP a] = 1; total[root] += size[a]; if (a != root) reached[root] = reached[root] "C\t" kname[root] "\t" name[a] "\n"; all[a] = 1; for (k = 1; k <= ncalls[a]; k++) visit(callee[a, k], root) }
        $1 == "SYM" { size[$2] = hex($3); n = $4; for (i = 5; i <= NF; i++) n = n " " $i; name[$2] = n; if (n ~ /^fsmooth_firmware::([a-z_0-9]+::)?call_[a-z_0-9]+::h/) roots[++nroots] = $2 }
        $1 == "CALL" && ($3 in size) && $2 != $3 && !(($2 SUBSEP $3) in edge) { edge[$2, $3] = 1; callee[$2, ++ncalls[$2]] = $3 }
        END {
            for (r = 1; r <= nroots; r++) { k = short(name[roots[r]]); sub(/^call_/, "", k); kname[roots[r]] = k }
            for (i = 2; i <= nroots; i++) for (j = i; j > 1 && kname[roots[j - 1]] > kname[roots[j]]; j--) { t = roots[j]; roots[j] = roots[j - 1]; roots[j - 1] = t }
            for (r = 1; r <= nroots; r++) { a = roots[r]; visit(a, a); printf "K\t%s\t%d\t%d\n%s", kname[a], size[a], total[a], reached[a] }
            for (a in all) union += size[a]
            printf "U\t%d\n", union
        }'
}

# Reads `call_graph` lines and prints, for each `C` line whose callee is a soft-float f64
# routine or an f64 math function, `kernel<TAB>callee`: compiler-builtins' `__aeabi_d*`
# (`__aeabi_dadd`, `__aeabi_d2f`, ..) and `__aeabi_*2d` (`__aeabi_f2d`, `__aeabi_i2d`, ..), the
# `__*df*` routines behind them (`__adddf3`, `__extendsfdf2`, `__truncdfsf2`, ..), and libm's
# f64 functions (`sin`, `exp`, `rem_pio2`, .. as opposed to `sinf`, `expf`), by their plain C
# name or as `libm::math::<module>::<function>` (and the functions nested in those). libm's
# `generic` and `support` modules are left to the other rules: their f32 and f64 instances
# share one name, and an f64 one does its arithmetic through the routines above (or in
# integers, and an f32 value cannot reach it without `__aeabi_f2d`).
soft_double_calls() {
    awk -F '\t' '
        BEGIN {
            n = split("acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp10 exp2 expm1 expo2 fabs fdim floor fma fmax fmaximum fmaximum_num fmin fminimum fminimum_num fmod frexp hypot ilogb j0 j1 jn k_cos k_expo2 k_sin k_tan ldexp lgamma lgamma_r log log10 log1p log2 modf nextafter pow rem_pio2 rem_pio2_large remainder remquo rint round roundeven scalbn sin sincos sinh sqrt tan tanh tgamma trunc y0 y1 yn", f, " ")
            for (i = 1; i <= n; i++) f64fn[f[i]] = 1
        }
        $1 != "C" { next }
        {
            c = $3; sub(/::h[0-9a-f]+$/, "", c); s = c; sub(/^.*::/, "", s); bad = 0
            if (s ~ /^__aeabi_(d[a-z0-9]*|[a-z0-9]+2d)$/ || s ~ /^__[a-z0-9]*df[a-z0-9]*$/) bad = 1
            else if (c !~ /::/ && (c in f64fn)) bad = 1
            else if (c ~ /^libm::math::/ && c !~ /^libm::math::(generic|support)::/) {
                # libm::math::<module>::<function>[::<nested fn>]: a module may hold both
                # widths (`sqrt::sqrt`, `sqrt::sqrtf`), so the function decides.
                split(substr(c, 13), seg, "::")
                if (seg[2] in f64fn) bad = 1
            }
            if (bad) print $2 "\t" s
        }'
}

# The f32 kernels: every `pub fn` of src/kernels.rs whose signature names f32 and not f64
# (the signature runs from `pub fn` to the first `{`).
f32_kernels() {
    awk '
        /pub fn [a-z_0-9]+/ { sig = ""; on = 1; k = $0; sub(/.*pub fn /, "", k); sub(/[^a-z_0-9].*/, "", k) }
        on { sig = sig " " $0; if (index($0, "{")) { on = 0; if (sig ~ /f32/ && sig !~ /f64/ && !(k in done)) { done[k] = 1; print k } } }
    ' "$fw/src/kernels.rs"
}

# Checks that no f32 kernel reaches a soft-float f64 routine or an f64 math function (see
# `soft_double_calls`): the Cortex-M4F's FPU is single precision, so f32 code must use its
# instructions throughout (LANGUAGE.md section 11). Each f32 kernel must have its
# `call_<kernel>` root in the firmware, so that a missing wrapper cannot pass unchecked.
no_soft_double() {
    local graph kernels bad k n missing=0
    graph=$(call_graph "$1")
    kernels=$(f32_kernels)
    if [ -z "$kernels" ]; then
        echo "no f32 kernel found in $fw/src/kernels.rs" >&2
        return 1
    fi
    bad=$(echo "$graph" | soft_double_calls | sort -u)
    for k in $kernels; do
        if ! echo "$graph" | awk -F '\t' -v k="$k" '$1 == "K" && $2 == k { found = 1 } END { exit !found }'; then
            echo "f32 kernel $k: no call_$k function in the firmware" >&2
            missing=1
        fi
    done
    local offenders
    offenders=$(echo "$bad" | awk -F '\t' -v ks=" $(echo $kernels) " 'index(ks, " " $1 " ") { print }')
    if [ "$missing" -ne 0 ] || [ -n "$offenders" ]; then
        if [ -n "$offenders" ]; then
            echo "f32 kernels calling soft-float f64 routines or f64 math:" >&2
            echo "$offenders" | awk -F '\t' '{ a[$1] = a[$1] " " $2 } END { for (k in a) print "    " k ":" a[k] }' | sort >&2
        fi
        return 1
    fi
    for k in $kernels; do
        n=$(echo "$graph" | awk -F '\t' -v k="$k" '$1 == "C" && $2 == k { n++ } END { print n + 0 }')
        echo "ok: f32 kernel $k reaches $n function(s), none soft-float f64 or f64 math"
    done
}

# Flash per kernel, as in docs/EMBEDDED.md: own code, with callees, and the soft-float f64
# routines and f64 math functions each one reaches (shared ones counted for each kernel).
kernel_sizes() {
    local graph
    graph=$(call_graph "$1")
    {
        echo "$graph"
        echo "$graph" | soft_double_calls | sort -u | sed 's/^/S\t/'
    } | awk -F '\t' '
        function short(n) { sub(/::h[0-9a-f]+$/, "", n); sub(/^.*::/, "", n); return n }
        $1 == "K" { order[++nk] = $2; own[$2] = $3; total[$2] = $4 }
        $1 == "C" { callees[$2] = callees[$2] " " short($3) }
        $1 == "U" { union = $2 }
        $1 == "S" { soft[$2]++ }
        END {
            print "| kernel | flash, own code | flash, with callees | soft-double routines reached |"
            print "| --- | ---: | ---: | ---: |"
            for (i = 1; i <= nk; i++) { k = order[i]; printf "| `%s` | %d B | %d B | %d |\n", k, own[k], total[k], soft[k] + 0 }
            printf "| all kernels together | | %d B | |\n\n", union
            for (i = 1; i <= nk; i++) { k = order[i]; print "- `" k "` calls:" callees[k] }
        }'
}

step "f32 math: every f32 math method, and a kernel calling them all, reach no f64 soft-float routine and no panic path"
"$root/.ci/f32_math_check.sh"

step "build (release, fsmooth without default features): the link is the no-panic check"
build_or_locate
no_panic_symbols "$elf"
no_allocator "$elf"

step "f32 kernels: no soft-float f64 routine, no f64 math"
no_soft_double "$elf"

step "run on qemu-system-arm -machine mps2-an386 (Cortex-M4F)"
run

step "sizes"
"$llvm/llvm-size" "$elf"
if $sizes; then
    kernel_sizes "$elf"
fi

step "canary: a deliberate panic path must not link"
canary_log=$CARGO_TARGET_DIR/firmware-canary.log
if build --quiet --features canary-panic 2>"$canary_log"; then
    echo "the no-panic guard is broken: a firmware with a panic path linked" >&2
    exit 1
fi
if ! grep -q "undefined symbol: fsmooth_firmware_has_a_reachable_panic" "$canary_log"; then
    echo "the canary build failed for another reason:" >&2
    cat "$canary_log" >&2
    exit 1
fi
echo "ok: the canary's panic path is a link error"

step "canary: an f32 kernel that goes through f64 must fail the soft-double check"
build --quiet --features canary-f64
if no_soft_double "$elf" 2>"$canary_log"; then
    echo "the soft-double check is broken: it passed an f32 kernel computing in f64" >&2
    exit 1
fi
cat "$canary_log"
if ! grep -qE '^    quat_rotate:.*(__aeabi_f2d|__extendsfdf2)' "$canary_log"; then
    echo "the soft-double check failed, but not on the canary's quat_rotate:" >&2
    exit 1
fi
echo "ok: the canary's f64 sine in quat_rotate is caught"

# At opt-level "z" and 1 this does not hold yet (see docs/EMBEDDED.md, Notes): set
# FIRMWARE_OVERFLOW_OPT_LEVELS="s z 1" to check those too.
export CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true
for opt in ${FIRMWARE_OVERFLOW_OPT_LEVELS:-s z 1 2 3}; do
    step "build and run with overflow-checks = true, opt-level = $opt"
    CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt build_or_locate --quiet
    no_panic_symbols "$elf"
    no_soft_double "$elf" >/dev/null
    run
done
unset CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS

step "firmware: all passed"
