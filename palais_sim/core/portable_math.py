"""``exp`` and ``log`` with the same bits on every machine, for the strategies' play.

The C library's ``exp`` and ``log`` (``math.exp``, ``math.log``) are its own: glibc picks an implementation by the
CPU (with or without fused multiply-add), macOS and Windows ship others, and a result one bit off can turn a near tie
between two candidates of a search, so a game would go otherwise on another machine. These are built from IEEE
operations alone (each correctly rounded, in a fixed order: the compiled build keeps ``a * b + c`` as two roundings,
``-ffp-contract=off``) and exact scalings by powers of two, within an ulp or so of the exact value:

- ``exp``: Cody and Waite's reduction x = k ln 2 + r, |r| <= ln2 / 2, and the (6, 6) Padé approximant of e**r
  (error below 1e-18 there);
- ``log``: fdlibm's ``__ieee754_log``: x = 2**k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), and log(1 + f) from
  s = f / (2 + f) and a polynomial in s**2 (Lg1..Lg7);
- ``ceil_log2``: an integer's ceil(log2 n) from its bits.
"""

from __future__ import annotations

import math
from typing import Final

# Every constant is Final: the compiled build inlines it (a plain module global is a dict lookup at every call)

LN2_HI: Final = 6.93147180369123816490e-01  # ln 2 in two parts (fdlibm's): k * LN2_HI is exact for the k used here
LN2_LO: Final = 1.90821492927058770002e-10
INV_LN2: Final = 1.44269504088896338700e00
EXP_MAX: Final = 709.782712893384  # above: the result overflows
EXP_MIN: Final = -745.1332191019411  # below: the result underflows to 0
SQRT_HALF: Final = 0.70710678118654752440
# The (6, 6) Padé approximant of e**r is N(r) / N(-r), N(r) = 1 + r / 2 + 5 r**2 / 44 + ... + r**6 / 665280: its
# coefficients by power
PADE2: Final = 5.0 / 44.0
PADE4: Final = 1.0 / 792.0
PADE6: Final = 1.0 / 665280.0
PADE1: Final = 0.5
PADE3: Final = 1.0 / 66.0
PADE5: Final = 1.0 / 15840.0
LG1: Final = 6.666666666666735130e-01
LG2: Final = 3.999999999940941908e-01
LG3: Final = 2.857142874366239149e-01
LG4: Final = 2.222219843214978396e-01
LG5: Final = 1.818357216161805012e-01
LG6: Final = 1.531383769920937332e-01
LG7: Final = 1.479819860511658591e-01


def exp(x: float) -> float:
    """e**x."""
    if x != x or x > EXP_MAX:
        return x if x != x else math.inf
    if x < EXP_MIN:
        return 0.0
    k = math.floor(x * INV_LN2 + 0.5)
    r = (x - k * LN2_HI) - k * LN2_LO
    r2 = r * r
    even = ((r2 * PADE6 + PADE4) * r2 + PADE2) * r2 + 1.0
    odd = r * ((r2 * PADE5 + PADE3) * r2 + PADE1)
    return math.ldexp(1.0 + (odd + odd) / (even - odd), k)  # N(r) / N(-r), its 1 added last


def log(x: float) -> float:
    """The natural logarithm of x > 0 (-inf at 0, nan below)."""
    if not x > 0.0 or x == math.inf:
        return x if x == math.inf or x != x else (-math.inf if x == 0.0 else math.nan)
    m, k = math.frexp(x)  # x = m 2**k, 0.5 <= m < 1 (exact, subnormals included)
    if m < SQRT_HALF:
        m *= 2.0
        k -= 1
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (LG2 + w * (LG4 + w * LG6))
    t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)))
    hfsq = 0.5 * f * f
    return k * LN2_HI - ((hfsq - (s * (hfsq + t1 + t2) + k * LN2_LO)) - f)


def ceil_log2(n: int) -> int:
    """ceil(log2 n) for n >= 1, exactly."""
    return (n - 1).bit_length()
