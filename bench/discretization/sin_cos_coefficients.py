# Derives the polynomial coefficients of tern/math/sin_cos.h (run with
# python3 and mpmath; about a minute). Our own weighted Remez exchange
# (Muller, Elementary Functions, 3rd ed., ch. 3): for degree 5,
#   sin r = r + r^3 P(z),  cos r = 1 - z/2 + z^2 Q(z),  z = r^2,
# minimizing the relative error of sin r and cos r for z in [0, (1.00025 pi/4)^2],
# then rounding the coefficients to double from the lowest degree up,
# re-fitting the higher ones after each rounding. Prints the coefficients in
# hex and the error of the rounded polynomials.
import sys
from mpmath import mp, mpf, sin, cos, sqrt, pi, matrix, lu_solve, findroot
mp.dps = 60
Z1 = (pi / 4) ** 2 * mpf('1.0005')  # a little beyond pi/4 for the reduction's slack

def g_sin(z):  # target for P
    r = sqrt(z)
    if z < mpf('1e-30'): return mpf(-1) / 6
    return (sin(r) - r) / r ** 3
def w_sin(z):  # d(sin)/dP relative: r^3 / sin r
    r = sqrt(z)
    if z == 0: return mpf(0)
    return r ** 3 / sin(r)
def g_cos(z):
    r = sqrt(z)
    if z < mpf('1e-30'): return mpf(1) / 24
    return (cos(r) - 1 + z / 2) / z ** 2
def w_cos(z):
    return z ** 2 / cos(sqrt(z))

def peval(c, z):
    s = mpf(0)
    for a in reversed(c): s = s * z + a
    return s

def remez(g, w, n, a, b, iters=30):
    # n+1 coefficients, n+2 reference points (Chebyshev start).
    m = n + 2
    pts = [a + (b - a) * (1 - cos(pi * (i + mpf(0.5)) / m)) / 2 for i in range(m)]
    for it in range(iters):
        A = matrix(m, m); rhs = matrix(m, 1)
        for i, z in enumerate(pts):
            for j in range(n + 1): A[i, j] = z ** j
            A[i, n + 1] = (-1) ** i / w(z)
            rhs[i] = g(z)
        sol = lu_solve(A, rhs)
        c = [sol[j] for j in range(n + 1)]; E = sol[n + 1]
        err = lambda z: w(z) * (peval(c, z) - g(z))
        # Find extrema on a fine grid, then refine by golden search.
        N = 4000
        grid = [a + (b - a) * i / N for i in range(N + 1)]
        vals = [err(z) for z in grid]
        ext = []
        for i in range(N + 1):
            l = vals[i - 1] if i > 0 else None
            r = vals[i + 1] if i < N else None
            v = vals[i]
            if (l is None or abs(v) >= abs(l)) and (r is None or abs(v) >= abs(r)):
                if abs(v) > abs(E) * mpf('0.1') or i in (0, N):
                    ext.append((grid[i], v))
        # Keep alternating sign with max magnitude.
        alt = []
        for z, v in ext:
            if alt and (alt[-1][1] > 0) == (v > 0):
                if abs(v) > abs(alt[-1][1]): alt[-1] = (z, v)
            else:
                alt.append((z, v))
        while len(alt) > m:
            # drop the smaller end
            if abs(alt[0][1]) < abs(alt[-1][1]): alt.pop(0)
            else: alt.pop()
        if len(alt) < m:
            print('warning: only', len(alt), 'extrema', file=sys.stderr); break
        newpts = [z for z, v in alt]
        mx = max(abs(v) for z, v in alt)
        if abs(mx - abs(E)) / abs(E) < mpf('1e-8'):
            pts = newpts; break
        pts = newpts
    return c, E

def hexd(x):
    return float(x).hex()

def check(c_d, g, w, a, b, N=20000):
    # Approximation error with the coefficients rounded to double.
    c = [mpf(x) for x in c_d]
    return max(abs(w(z) * (peval(c, z) - g(z))) for z in (a + (b - a) * i / N for i in range(N + 1)))

# Coefficients rounded to double one at a time, from the lowest degree: after
# rounding c_0..c_{j-1}, the remaining ones are re-fitted by Remez so that they
# absorb the rounding errors already made.
from mpmath import log

def fit_rounded(g, w, n, a, b):
    fixed = []
    for j in range(n + 1):
        def gj(z, fixed=tuple(fixed)):
            # target for c_j + c_{j+1} z + ...
            zz = z if z > 0 else mpf('1e-40')
            return (g(zz) - peval(list(fixed), zz)) / zz ** len(fixed)
        def wj(z, k=len(fixed)):
            return w(z) * z ** k
        if j == n:
            # last coefficient: the best constant is the weighted mid-range; use Remez with n=0
            c, E = remez(gj, wj, 0, a, b)
        else:
            c, E = remez(gj, wj, n - j, a, b)
        fixed.append(mpf(float(c[0])))
    return [float(x) for x in fixed]

for name, g, w in (('sin', g_sin, w_sin), ('cos', g_cos, w_cos)):
    cd = fit_rounded(g, w, 5, mpf(0), Z1)
    e2 = check(cd, g, w, mpf(0), Z1)
    print(name, 'rounded-seq err %.3e (2^%.2f)' % (float(e2), float(log(e2, 2))))
    print('   ', [x.hex() for x in cd])
    print('   ', [repr(x) for x in cd])
