#!/usr/bin/env python3
"""The polynomial coefficients of fsmooth-runtime's f32 math (src/__rt/math32).

Each is a weighted minimax fit (the Remez exchange algorithm, E. Remez 1934; see J.-M.
Muller, "Elementary Functions", ch. 3) of the relative error of the function, in mpmath at 60
digits, with the coefficients then rounded to f32. Where marked "seq", they are rounded one at
a time from the lowest and the rest refitted with the rounded ones fixed, which keeps most of
the accuracy the rounding would lose. Prints each as Rust constants with the measured
relative error of the rounded polynomial. Needs mpmath (`pip install mpmath`); takes a few
minutes.

    python3 fsmooth-runtime/tools/math32_coeffs.py
"""
import struct

import mpmath as mp

mp.mp.dps = 60


def f32(x):
    """x rounded to the nearest f32."""
    return mp.mpf(struct.unpack("f", struct.pack("f", float(x)))[0])


def rust(x):
    """The shortest decimal that reads back as the f32 x."""
    v = struct.unpack("f", struct.pack("f", float(x)))[0]
    for k in range(1, 10):
        s = "%.*e" % (k - 1, v)
        if struct.unpack("f", struct.pack("f", float(s)))[0] == v:
            return s
    return repr(v)


def remez(g, w, a, b, n, iters=30, grid=4000):
    """Coefficients of the degree-n polynomial minimising max |w(x) (p(x) - g(x))| on [a, b],
    and that maximum."""
    m = n + 2
    xs = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (m - 1)) for i in range(m)]
    pts = [a + (b - a) * mp.mpf(i) / grid for i in range(grid + 1)]
    for _ in range(iters):
        A = mp.matrix(m, m)
        rhs = mp.matrix(m, 1)
        for i, x in enumerate(xs):
            for j in range(n + 1):
                A[i, j] = x**j
            A[i, n + 1] = (-1) ** i / w(x)
            rhs[i] = g(x)
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n + 1)]
        E = sol[n + 1]
        es = [w(x) * (sum(cj * x**j for j, cj in enumerate(c)) - g(x)) for x in pts]
        # The local extrema of the error, alternating in sign, the largest kept.
        alt = []
        for i, e in enumerate(es):
            left = es[i - 1] if i > 0 else None
            right = es[i + 1] if i + 1 < len(es) else None
            if (left is None or abs(e) >= abs(left)) and (right is None or abs(e) >= abs(right)):
                if alt and mp.sign(alt[-1][1]) == mp.sign(e):
                    if abs(e) > abs(alt[-1][1]):
                        alt[-1] = (pts[i], e)
                else:
                    alt.append((pts[i], e))
        while len(alt) > m:
            alt.pop(0 if abs(alt[0][1]) < abs(alt[-1][1]) else -1)
        if len(alt) < m:
            break
        xs = [x for x, _ in alt]
        if abs(max(abs(e) for e in es) - abs(E)) < abs(E) * mp.mpf("1e-6"):
            break
    return c, max(abs(e) for e in es)


def fit_seq(g, w, a, b, n):
    """Minimax coefficients rounded to f32 from the lowest, the later ones refitted."""
    fixed = []
    for k in range(n + 1):
        gk = (lambda k, fx: lambda x: (g(x) - sum(c * x**j for j, c in enumerate(fx))) / x**k)(k, list(fixed))
        wk = (lambda k: lambda x: w(x) * x**k)(k)
        c, _ = remez(gk, wk, a, b, n - k)
        fixed.append(f32(c[0]))
    return fixed


def max_error(c, g, w, a, b, grid=3001):
    pts = [a + (b - a) * mp.mpf(i) / grid for i in range(grid + 1)]
    return max(abs(w(x) * (sum(cj * x**j for j, cj in enumerate(c)) - g(x))) for x in pts)


SQ = mp.sqrt
EPS = mp.mpf("1e-8")
PIO4SQ = (mp.pi / 4) ** 2 * mp.mpf("1.002")  # r^2 for |r| a little past π/4
# name: (g, weight, a, b, degree, seq, what the polynomial is)
CASES = {
    "SIN": (lambda z: (mp.sin(SQ(z)) - SQ(z)) / z**1.5, lambda z: z**1.5 / mp.sin(SQ(z)),
            EPS, PIO4SQ, 3, True, "sin r = r + r^3 S(r^2), |r| <= pi/4"),
    "COS": (lambda z: (mp.cos(SQ(z)) - 1 + z / 2) / z**2, lambda z: z**2 / mp.cos(SQ(z)),
            EPS, PIO4SQ, 2, True, "cos r = 1 - r^2/2 + r^4 C(r^2), |r| <= pi/4"),
    "TAN": (lambda z: (mp.tan(SQ(z)) - SQ(z)) / z**1.5, lambda z: z**1.5 / mp.tan(SQ(z)),
            EPS, PIO4SQ, 6, True, "tan r = r + r^3 T(r^2), |r| <= pi/4"),
    "ASIN": (lambda z: (mp.asin(SQ(z)) - SQ(z)) / z**1.5, lambda z: z**1.5 / mp.asin(SQ(z)),
             EPS, mp.mpf("0.25") * mp.mpf("1.001"), 6, True, "asin x = x + x^3 A(x^2), |x| <= 1/2"),
    "EXP2": (lambda f: (mp.power(2, f) - 1) / f if f != 0 else mp.log(2),
             lambda f: f / mp.power(2, f) if f != 0 else mp.mpf(0),
             mp.mpf(-0.5) - 3 * mp.mpf("1e-9"), mp.mpf(0.5) + 7 * mp.mpf("1e-9"), 6, False,
             "2^f = 1 + f E(f), |f| <= 1/2"),
    "CBRT": (lambda f: mp.cbrt(f), lambda f: 1 / mp.cbrt(f), mp.mpf(1), mp.mpf(2), 4, False,
             "cbrt f, f in [1, 2] (a first guess)"),
}

if __name__ == "__main__":
    for name, (g, w, a, b, n, seq, what) in CASES.items():
        if seq:
            c = fit_seq(g, w, a, b, n)
        else:
            c = [f32(x) for x in remez(g, w, a, b, n)[0]]
        e = max_error(c, g, w, a, b)
        print("// %s: relative error 2^%.1f" % (what, float(mp.log(e, 2))))
        print("const %s: [f32; %d] = [%s];" % (name, len(c), ", ".join(rust(x) for x in c)), flush=True)
