"""Student's t distribution and Welch's test in the Python standard library alone: the fallback the cross-check
uses where SciPy is not installed, so it still recomputes every figure from the runs' summaries. The regularized
incomplete beta function by its continued fraction (modified Lentz; Press et al., Numerical Recipes, 6.4), the t
quantile by bisection on the CDF. An implementation apart from both SciPy and the lab's stdlib-js, checked on the
R values of test/fixtures/tost-r.json by `python3 scripts/interaction_crosscheck.py tost`.
"""
import math
import statistics
from types import SimpleNamespace


def _betacf(a, b, x, eps=1e-15, tiny=1e-300):
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            return h
    raise ArithmeticError('betacf did not converge')


def betainc(a, b, x):
    """the regularized incomplete beta function I_x(a, b)"""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


class _T:
    @staticmethod
    def sf(t, df):
        tail = 0.5 * betainc(df / 2, 0.5, df / (df + t * t))
        return tail if t >= 0 else 1.0 - tail

    @staticmethod
    def cdf(t, df):
        return 1.0 - _T.sf(t, df)

    @staticmethod
    def ppf(p, df):
        lo, hi = -1e3, 1e3
        for _ in range(200):
            mid = (lo + hi) / 2
            if _T.cdf(mid, df) < p:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def _ttest_ind(a, b, equal_var=False, alternative='two-sided'):
    assert not equal_var, 'only Welch'
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = (statistics.fmean(a) - statistics.fmean(b)) / se
    p = {'two-sided': 2 * _T.sf(abs(t), df), 'greater': _T.sf(t, df), 'less': _T.cdf(t, df)}[alternative]
    return SimpleNamespace(statistic=t, pvalue=p, df=df)


stats = SimpleNamespace(t=_T, ttest_ind=_ttest_ind)
