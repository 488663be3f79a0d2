#!/usr/bin/env python3
"""An independent implementation (stdlib + SciPy, or the standard library alone: scripts/stdlib_t.py) of the findings' scale x choice interactions.

  python3 scripts/interaction_crosscheck.py fixtures   writes test/fixtures/contrast-scipy.json: contrasts over k
                                                       cells and their power, computed with scipy.stats, which
                                                       test/stats/contrast.test.ts holds src/stats to (no python
                                                       at test time)
  python3 scripts/interaction_crosscheck.py check      recomputes every interaction in results/findings/T*/table.json
                                                       from the per-seed run summaries (results/findings/runs/*/
                                                       summary.json) and asserts the same difference and call
  python3 scripts/interaction_crosscheck.py plan       recomputes results/findings/interactions-test.json (the planned
                                                       test on the fresh seeds) from the plan's runs' summaries
  python3 scripts/interaction_crosscheck.py pairs      recomputes every finding's pairs (results/findings/T*/table.json): each
                                                       side's gains from its runs' summaries (the folders its cell names),
                                                       Welch / one-sample t, Holm, the interval at the call's level, and
                                                       the equivalence test at the plan's delta (two one-sided tests, Holm)
  python3 scripts/interaction_crosscheck.py confirmatory
                                                       recomputes results/findings/confirmatory-plan.json from the run
                                                       summaries (each lead's committed difference, pooled SD, Welch p
                                                       and Holm p in its family, the fewest fresh seeds for the plan's
                                                       power at Holm across the plan, the core-hours), and its test on
                                                       the fresh seeds that have finished (Welch, Holm across the plan:
                                                       interim until all have), against confirmatory-test.json if there
  python3 scripts/interaction_crosscheck.py beyond     recomputes results/findings/beyond-test.json (T8 and T9) from the
                                                       summaries and metrics of the run folders it names: each adaptive
                                                       run's first Macro and Success step, their median and order-statistic
                                                       95 % interval (scipy.stats.binom), adaptive - fixed (Welch, Holm),
                                                       the scale x schedule contrasts (Holm), each SFT start's Wilson
                                                       interval and the RL gain pairs by SFT size (Welch, Holm)
  python3 scripts/interaction_crosscheck.py tost       recomputes test/fixtures/tost-r.json (R's equivalence::tost, which
                                                       test/stats/equivalence.test.ts holds src/stats to) with SciPy's
                                                       one-sided Welch tests, and asserts SciPy agrees with R

Every gain is the run's own: 100 * (final - start) success from its summary.json, unrounded, as the lab's tests read it
(rounding is for display only). Reading the summaries here, not the tables' per-seed gains, keeps the check independent.

The contrast sum c_i*mean_i: standard error sqrt(sum c_i^2 s_i^2/n_i), Welch-Satterthwaite degrees of freedom
(sum c_i^2 s_i^2/n_i)^2 / sum (c_i^2 s_i^2/n_i)^2/(n_i - 1), two-sided p and 95 % interval from scipy.stats.t.
For k = 2 and c = (1, -1) it must equal scipy.stats.ttest_ind(equal_var=False), checked here.
"""
import json
import math
import os
import statistics
import sys

try:
    from scipy import stats
    BACKEND = 'SciPy'
except ImportError:  # no SciPy here: the standard library's t (scripts/stdlib_t.py) recomputes check, plan and tost
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from stdlib_t import stats
    BACKEND = 'the standard library (scripts/stdlib_t.py; SciPy not installed)'

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')


def contrast(cells, weights, level=0.95):
    parts = [w * w * statistics.variance(xs) / len(xs) for xs, w in zip(cells, weights)]
    v = sum(parts)
    se = math.sqrt(v)
    df = v * v / sum(p * p / (len(xs) - 1) for p, xs in zip(parts, cells))
    est = sum(w * statistics.fmean(xs) for xs, w in zip(cells, weights))
    t = est / se
    half = stats.t.ppf(1 - (1 - level) / 2, df) * se
    return {'estimate': est, 'se': se, 'df': df, 't': t, 'p': 2 * stats.t.sf(abs(t), df), 'lo': est - half, 'hi': est + half}


def power(n, delta, sd, alpha, cells, weight_squares):
    """two-sided t-test of a contrast over `cells` cells of n seeds with common sd: noncentral t (scipy.stats.nct)"""
    df = cells * (n - 1)
    ncp = delta / (sd * math.sqrt(weight_squares / n))
    c = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(c, df, ncp) + stats.nct.cdf(-c, df, ncp)


def holm(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


# T6's per-seed gains (seeds 1-13) as the table recorded them when the fixture was made (one decimal), copied from
# test/fixtures/contrast-scipy.json: a fixed input, so the fixture is the same whatever the tables hold now
T6_FIXTURE_GAINS = {
    '1.5B · ARPO': [10.7, -2.3, -11, 14.7, 16, 12.7, 4, -9, 13.7, 13.7, 2, -7, 7.7],
    '1.5B · GRPO': [11.7, -4.7, 3.3, -2.3, -2.7, 3, 14.7, -8, 17.7, 3.3, 17.7, 15.7, 7],
    '7B · ARPO': [-22.3, 11.7, 8, 2.3, 10.3, -5.3, -2.7, 15.7, -2, -1, -4, 2.3, 0],
    '7B · GRPO': [12.3, 7.3, 8, 0.3, 7, 22.3, 18.3, 13.7, -1.7, -1.7, 3.3, 19.7, 8.7],
}


def fixtures():
    if not BACKEND.startswith('SciPy'):
        sys.exit('fixtures needs SciPy (scipy.stats.nct for the power; the fixture is SciPy\'s): pip install scipy')
    gain = T6_FIXTURE_GAINS
    cases = [
        {'name': 'two cells, (1, -1): Welch', 'cells': [[23, 37, 33], [13.3, 4.7, 3.3]], 'weights': [1, -1]},
        {'name': 'T6 ARPO - GRPO at 1.5B against 7B (seeds 1-13)', 'weights': [1, -1, -1, 1],
         'cells': [gain['1.5B · ARPO'], gain['1.5B · GRPO'], gain['7B · ARPO'], gain['7B · GRPO']]},
        {'name': 'four cells, unequal n and spreads', 'weights': [1, -1, -1, 1],
         'cells': [[1.5, 4.2, -3.1, 8.8, 2.0], [0.3, -1.2, 2.2], [10.5, 30.1, -4.4, 12.0], [5.5, 6.1, 4.9, 7.3, 5.0, 6.6]]},
        {'name': 'three cells, weights (1, -0.5, -0.5)', 'weights': [1, -0.5, -0.5],
         'cells': [[12.0, 15.5, 9.1, 14.2], [3.3, 8.1, -2.0, 5.5, 6.0], [7.7, 1.0, 4.4]]},
    ]
    for c in cases:
        c.update(contrast(c['cells'], c['weights']))
        if len(c['cells']) == 2:
            w = stats.ttest_ind(c['cells'][0], c['cells'][1], equal_var=False)
            ci = w.confidence_interval(0.95)
            for ours, theirs in [(c['t'], w.statistic), (c['p'], w.pvalue), (c['df'], w.df), (c['lo'], ci.low), (c['hi'], ci.high)]:
                assert abs(ours - theirs) < 1e-12 * max(1, abs(theirs)), (ours, theirs)
            c['ttest_ind'] = {'statistic': w.statistic, 'pvalue': w.pvalue, 'df': w.df, 'lo': ci.low, 'hi': ci.high}
    ps = [cases[1]['p'], cases[2]['p'], cases[3]['p']]
    powers = [{'n': n, 'delta': d, 'sd': sd, 'alpha': a, 'cells': k, 'weightSquares': w, 'power': power(n, d, sd, a, k, w)}
              for n, d, sd, a, k, w in [(13, 11.9, 8.5, 0.025, 4, 4), (21, 11.9, 8.5, 0.025, 4, 4), (20, 11.2, 8.5, 0.025, 4, 4),
                                         (5, 10.0, 8.5, 0.05, 2, 2), (40, 5.0, 9.0, 0.05, 4, 4)]]
    out = {'made by': 'python3 scripts/interaction_crosscheck.py fixtures', 'scipy': __import__('scipy').__version__,
           'contrasts': cases, 'holm': {'p': ps, 'adjusted': holm(ps)}, 'power': powers}
    path = os.path.join(ROOT, 'test/fixtures/contrast-scipy.json')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as fh:
        json.dump(out, fh, indent=1, ensure_ascii=False)
        fh.write('\n')
    print(f'wrote {path}')


# a finding's cell as the sweep runs it: the lab config's settings that differ by cell, over the defaults
AXES = {'T1': ('scale', 'reward'), 'T3': ('reward', 'scale'), 'T6': ('scale', 'algorithm')}
NAMES = {'1.5B': 's', '3B': 'm', '7B': 'l', 'Sum': 'sum', 'Macro': 'macro', 'Success': 'success', 'Curriculum': 'curriculum',
         'GRPO': 'grpo', 'DAPO': 'dapo', 'ARPO': 'arpo'}
BASE = {'T1': {'algorithm': 'grpo'}, 'T3': {'algorithm': 'grpo'}, 'T6': {'reward': 'sum'}}
DEFAULTS = {'trainSize': 1000, 'mix': [4, 3, 3], 'toolFailureRate': 0, 'advantages': 'real', 'steps': 40}


def load_runs():
    runs = []
    folder = os.path.join(ROOT, 'results/findings/runs')
    for d in sorted(os.listdir(folder)):
        p = os.path.join(folder, d, 'summary.json')
        if os.path.exists(p):
            s = json.load(open(p))
            runs.append((d, s))
    return runs


def seed_gains(runs, finding, label, seeds):
    row, col = label.split(' · ')
    want = dict(DEFAULTS, **BASE[finding], **{AXES[finding][0]: NAMES[row], AXES[finding][1]: NAMES[col]})
    by_seed = {}
    for d, s in runs:
        lab = s['lab']
        if all(lab.get(k) == v for k, v in want.items()) and lab['seed'] in seeds:
            assert lab['seed'] not in by_seed, f'two runs for {finding} {label} seed {lab["seed"]}: {d}'
            # the run's gain as measured: end − start in points, unrounded
            by_seed[lab['seed']] = 100 * (s['final']['success'] - s['start']['success'])
    return [by_seed[k] for k in sorted(by_seed)]


def check():
    runs = load_runs()
    bad = 0
    for finding in ('T1', 'T3', 'T6'):
        t = json.load(open(os.path.join(ROOT, f'results/findings/{finding}/table.json')))
        xs = t['compares'].get('interactions') or []
        if not xs:
            print(f'{finding}: no interactions in its table'); bad += 1; continue
        planned = {f"{c['row']} · {c['col']}": c['planned'] for c in t['cells']}
        tested = []
        for x in xs:
            labels = x['plus'] + x['minus']
            cells = [seed_gains(runs, finding, l, set(range(1, planned[l] + 1))) for l in labels]
            tested.append((x, cells, contrast(cells, [1, -1, -1, 1])))
        adj = holm([r['p'] for _, _, r in tested])
        for (x, cells, r), pa in zip(tested, adj):
            complete = all(len(c) >= planned[l] for c, l in zip(cells, x['plus'] + x['minus']))
            call = 'interim' if not complete else ('supports' if r['estimate'] > 0 else 'contradicts') if pa < 0.05 else 'not resolved'
            same = abs(r['estimate'] - x['difference']) < 0.006 and abs(r['p'] - x['p']) < 1e-3 * max(1, x['p']) and call == x['call'] \
                and abs(pa - x['pAdjusted']) < 1e-3 and abs(r['lo'] - x['ci95']['lo']) < 0.006 and abs(r['hi'] - x['ci95']['hi']) < 0.006
            bad += not same
            print(f"{finding} ({x['plus'][0]} − {x['plus'][1]}) − ({x['minus'][0]} − {x['minus'][1]}): scipy {r['estimate']:+.2f} "
                  f"[{r['lo']:+.2f}, {r['hi']:+.2f}] df {r['df']:.2f} p {r['p']:.4f} Holm {pa:.4f} {call}; seeds {[len(c) for c in cells]}; "
                  f"table {x['difference']:+.2f} [{x['ci95']['lo']:+.2f}, {x['ci95']['hi']:+.2f}] p {x['p']} Holm {x['pAdjusted']} {x['call']} — "
                  f"{'same' if same else 'DIFFERENT'}")
    if bad:
        sys.exit(f'{bad} interaction(s) differ')
    print('every interaction recomputes to the same difference, interval, p, Holm p and call')


def plan():
    plan = json.load(open(os.path.join(ROOT, 'results/findings/interactions-plan.json')))
    test = json.load(open(os.path.join(ROOT, 'results/findings/interactions-test.json')))
    gains, finished = {}, 0
    for r in plan['runs']:
        p = os.path.join(ROOT, r['dir'], 'summary.json')
        if not os.path.exists(p):
            continue
        s = json.load(open(p))
        assert s['lab']['seed'] == r['seed'], f"{p} is seed {s['lab']['seed']}, the plan's run there is seed {r['seed']}"
        finished += 1
        gains.setdefault((r['finding'], r['cell']), []).append((r['seed'], 100 * (s['final']['success'] - s['start']['success'])))
    assert finished == test['plan']['finished'], f"{finished} planned runs finished, the record says {test['plan']['finished']}"
    bad = 0
    for x in (x for x in plan['interactions'] if x['planned']):
        y = next(y for y in test['results'] if y['interaction'] == x['interaction'])
        last = plan['seeds'][0] + x['seeds'] - 1
        cells = [[g for seed, g in sorted(gains.get((x['finding'], c), [])) if seed <= last] for c in x['cells']]
        if any(len(c) < 2 for c in cells):
            same = y['difference'] is None
            print(f"{x['finding']} {x['interaction']}: fewer than two seeds in a cell; record {y['difference']} — {'same' if same else 'DIFFERENT'}")
            bad += not same
            continue
        r = contrast(cells, [1, -1, -1, 1])
        at = contrast(cells, [1, -1, -1, 1], level=1 - x['alpha'])  # the interval at the call's own level
        complete = all(len(c) >= x['seeds'] for c in cells)
        call = 'interim' if not complete else ('supports' if r['estimate'] > 0 else 'contradicts') if r['p'] < x['alpha'] else 'not resolved'
        same = abs(r['estimate'] - y['difference']) < 0.006 and abs(r['p'] - y['p']) < 1e-3 * max(1, y['p']) and call == y['call'] \
            and abs(r['lo'] - y['ci95']['lo']) < 0.006 and abs(r['hi'] - y['ci95']['hi']) < 0.006 and abs(r['df'] - y['df']) < 0.006 \
            and [len(c) for c in cells] == y['finished'] \
            and (y.get('interval') is None or (abs(at['lo'] - y['interval']['lo']) < 0.006 and abs(at['hi'] - y['interval']['hi']) < 0.006))
        e, w = y.get('equivalence'), y.get('realised')
        if e is not None and complete:
            # TOST at delta as two one-sided t tests on the contrast, and one-sided against the paper's value
            p_eq = max(stats.t.sf((r['estimate'] + e['delta']) / r['se'], r['df']), stats.t.cdf((r['estimate'] - e['delta']) / r['se'], r['df']))
            p_paper = stats.t.cdf((r['estimate'] - x['paper']) / r['se'], r['df'])
            sd = math.sqrt(sum((len(c) - 1) * statistics.variance(c) for c in cells) / sum(len(c) - 1 for c in cells))
            pw = power(x['seeds'], abs(x['paper']), sd, x['alpha'], 4, 4)
            same = same and abs(p_eq - e['p']) < 1e-3 * e['p'] and (p_eq < x['alpha']) == e['rulesOut'] \
                and abs(p_paper - e['paper']['p']) < 1e-3 * e['paper']['p'] and abs(sd - w['sd']) < 0.006 and abs(pw - w['powerAtPaper']) < 0.006
            print(f"  TOST at ±{e['delta']}: p {p_eq:.4g}; one-sided below {x['paper']}: p {p_paper:.4g}; realised SD {sd:.2f}, power {pw:.2f} "
                  f"for {x['paper']}; record {e['p']} / {e['paper']['p']} / {w['sd']} / {w['powerAtPaper']}")
        bad += not same
        print(f"{x['finding']} {x['interaction']}: scipy {r['estimate']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}] (95 %), "
              f"[{at['lo']:+.2f}, {at['hi']:+.2f}] ({100 * (1 - x['alpha']):g} %) df {r['df']:.2f} p {r['p']:.4f} "
              f"at alpha {x['alpha']} {call}; seeds {[len(c) for c in cells]}; record {y['difference']:+.2f} [{y['ci95']['lo']:+.2f}, "
              f"{y['ci95']['hi']:+.2f}] df {y['df']} p {y['p']} {y['call']} — {'same' if same else 'DIFFERENT'}")
    if bad:
        sys.exit(f'{bad} planned interaction(s) differ')
    print(f'the planned test recomputes to the same difference, interval, df, p and call ({finished} of {len(plan["runs"])} runs finished)')


def holm_levels(ps, alpha=0.05):
    """the alpha each test of a Holm family is decided at: alpha/(m - k) at step k until it stops, then the stopping level"""
    m = len(ps)
    out, stopped = [0.0] * m, None
    for rank, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        level = alpha / (m - rank)
        if stopped is None and not ps[i] < level:
            stopped = level
        out[i] = stopped if stopped is not None else level
    return out


def pairs():
    bad = 0
    for finding in ('T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7'):
        t = json.load(open(os.path.join(ROOT, f'results/findings/{finding}/table.json')))
        cells = {f"{c['row']} · {c['col']}": c for c in t['cells']}

        def gains(label):
            if label == 'the SFT start':
                return None
            c = cells[label]
            key = c['metric']  # 'success' or 'ood'
            out = []
            for where in c['where'][:c['planned']]:
                s = json.load(open(os.path.join(ROOT, where, 'summary.json')))
                out.append(100 * (s['final'][key] - s['start'][key]))
            return out, c['metric']

        tests = []
        for p in t['compares']['pairs']:
            a, b = gains(p['higher']), gains(p['lower'])
            metric = (a or b)[1]
            delta = (t['compares'].get('delta') or {}).get(metric)
            if b is None or a is None:  # a cell against the start: the one-sample t test, signed higher - lower
                xs, sign = (a or b)[0], 1 if b is None else -1
                n = len(xs)
                d = sign * statistics.fmean(xs)
                se = statistics.stdev(xs) / math.sqrt(n)
                df = n - 1
            else:
                xs, ys = a[0], b[0]
                va, vb = statistics.variance(xs) / len(xs), statistics.variance(ys) / len(ys)
                d, se = statistics.fmean(xs) - statistics.fmean(ys), math.sqrt(va + vb)
                df = (va + vb) ** 2 / (va ** 2 / (len(xs) - 1) + vb ** 2 / (len(ys) - 1))
                w = stats.ttest_ind(xs, ys, equal_var=False)
                assert abs(w.statistic - d / se) < 1e-9 and abs(w.df - df) < 1e-6 * df, (finding, p['higher'])
            pv = 2 * stats.t.sf(abs(d / se), df)
            tost = None if delta is None else max(stats.t.sf((d + delta) / se, df), stats.t.cdf((d - delta) / se, df))
            tests.append((p, d, se, df, pv, delta, tost))
        adj = holm([x[4] for x in tests])
        levels = holm_levels([x[4] for x in tests])
        with_eq = [i for i, x in enumerate(tests) if x[6] is not None]
        eq_adj = dict(zip(with_eq, holm([tests[i][6] for i in with_eq])))
        for i, (p, d, se, df, pv, delta, tost) in enumerate(tests):
            half = stats.t.ppf(1 - levels[i] / 2, df) * se
            call = ('supports' if d > 0 else 'contradicts') if adj[i] < 0.05 else 'not resolved'
            shown = tost is not None and eq_adj[i] < 0.05  # a real difference can still be shown smaller than delta (T2's drop)
            iv, e = p.get('interval') or {}, p.get('equivalence') or {}
            same = abs(d - p['difference']) < 1e-4 and abs(pv - p['p']) < 1e-3 * max(p['p'], 1e-12) + 1e-12 \
                and abs(adj[i] - p['pAdjusted']) < 1e-3 * max(p['pAdjusted'], 1e-12) + 1e-12 and call == p['call'] \
                and abs(d - half - iv.get('lo', 1e9)) < 1e-4 and abs(d + half - iv.get('hi', 1e9)) < 1e-4 \
                and abs(1 - levels[i] - iv.get('level', -1)) < 1e-12 \
                and (tost is None or (abs(eq_adj[i] - e['pAdjusted']) < 1e-3 * e['pAdjusted'] + 1e-12 and shown == bool(p.get('rulesOut'))))
            bad += not same
            print(f"{finding} {p['higher']} > {p['lower']}: {d:+.2f} [{d - half:+.2f}, {d + half:+.2f}] ({100 * (1 - levels[i]):g} %) "
                  f"p {pv:.4g} Holm {adj[i]:.4g} {call}" + ('' if tost is None else f"; TOST at {delta}: Holm {eq_adj[i]:.4g}{' rules out' if shown else ''}")
                  + f" — {'same' if same else 'DIFFERENT'}")
    if bad:
        sys.exit(f'{bad} pair(s) differ')
    print("every pair recomputes to the same difference, interval at its level, p, Holm p, call and equivalence test")


def confirmatory():
    plan = json.load(open(os.path.join(ROOT, 'results/findings/confirmatory-plan.json')))
    runs = load_runs()
    tables = {f: json.load(open(os.path.join(ROOT, f'results/findings/{f}/table.json'))) for f in {x['finding'] for x in plan['leads']}}

    def committed(finding, label):
        c = next(c for c in tables[finding]['cells'] if f"{c['row']} · {c['col']}" == label)
        return seed_gains(runs, finding, label, set(range(1, c['planned'] + 1)))

    def welch(a, b):
        w = stats.ttest_ind(a, b, equal_var=False)
        return statistics.fmean(a) - statistics.fmean(b), w.pvalue

    bad = 0
    kept = [x for x in plan['leads'] if x['planned']]
    alpha = plan['familyAlpha'] / len(kept)
    for x in plan['leads']:
        t = tables[x['finding']]
        a, b = committed(x['finding'], x['higher']), committed(x['finding'], x['lower'])
        d, pv = welch(a, b)
        sd = math.sqrt(((len(a) - 1) * statistics.variance(a) + (len(b) - 1) * statistics.variance(b)) / (len(a) + len(b) - 2))
        pairs = t['compares']['pairs']
        at = [i for i, p in enumerate(pairs) if {p['higher'], p['lower']} == {x['higher'], x['lower']}]
        if at:  # a planned pair: Holm across the finding's pairs
            family = [welch(committed(x['finding'], p['higher']), committed(x['finding'], p['lower']))[1] for p in pairs]
            i = at[0]
        else:  # an unplanned contrast: Holm across every within-scale pair of the table
            family, i = [], None
            for row in t['rows']:
                labels = [f"{row} · {c}" for c in t['cols']]
                for j in range(len(labels)):
                    for k in range(j + 1, len(labels)):
                        if {labels[j], labels[k]} == {x['higher'], x['lower']}:
                            i = len(family)
                        family.append(welch(committed(x['finding'], labels[j]), committed(x['finding'], labels[k]))[1])
        pa = holm(family)[i]
        n = 2
        while power(n, abs(d), sd, x['alpha'], 2, 2) < plan['power']:
            n += 1
        c = x['committed']
        same = abs(d - c['difference']) < 0.006 and abs(sd - c['sd']) < 0.006 and abs(pv - c['p']) < 1e-3 * c['p'] \
            and abs(pa - c['pAdjusted']) < 1e-3 * c['pAdjusted'] and len(family) == c['family'] and n == x['seeds'] \
            and (x['alpha'] == alpha) == x['planned']
        bad += not same
        print(f"{x['finding']} {x['higher']} − {x['lower']}: {d:+.2f}, SD {sd:.2f}, p {pv:.4g}, Holm {pa:.4g} across {len(family)}; "
              f"{n} fresh seeds a cell at alpha {x['alpha']:.4g}, power {power(n, abs(d), sd, x['alpha'], 2, 2):.3f} "
              f"(at half the lead {power(n, abs(d) / 2, sd, x['alpha'], 2, 2):.2f}) — {'same' if same else 'DIFFERENT'}")
    hours = sum(c['seeds'] * c['coreMinutes'] for c in plan['cells']) / 60
    print(f"the plan: {len(plan['runs'])} runs, {hours:.1f} core-hours at the rounded per-run costs (record {plan['coreHours']}), seeds {plan['seeds'][0]}–{plan['seeds'][-1]}")
    used = max(s['lab']['seed'] for d, s in runs if not any(r['dir'].endswith('/' + d) for r in plan['runs']))
    if used >= plan['seeds'][0]:
        print(f'a run outside the plan used seed {used}, within the fresh seeds'); bad += 1
    # the test on the fresh seeds that have finished
    fresh, finished = {}, 0
    for r in plan['runs']:
        p = os.path.join(ROOT, r['dir'], 'summary.json')
        if not os.path.exists(p):
            continue
        s = json.load(open(p))
        assert s['lab']['seed'] == r['seed'], f"{p} is seed {s['lab']['seed']}, the plan's run there is seed {r['seed']}"
        finished += 1
        for cell in r['cells']:
            fresh.setdefault(cell, []).append((r['seed'], 100 * (s['final']['success'] - s['start']['success'])))
    sides = [[[g for seed, g in sorted(fresh.get(f"{x['finding']} {l}", [])) if seed < plan['seeds'][0] + x['seeds']] for l in (x['higher'], x['lower'])] for x in kept]
    complete = all(len(a) >= x['seeds'] and len(b) >= x['seeds'] for x, (a, b) in zip(kept, sides))
    tested = [(x, welch(a, b)) for x, (a, b) in zip(kept, sides) if len(a) >= 2 and len(b) >= 2]
    adj = holm([pv for _, (_, pv) in tested]) if tested else []
    record = os.path.join(ROOT, 'results/findings/confirmatory-test.json')
    rec = json.load(open(record))['results'] if os.path.exists(record) else None
    for (x, (d, pv)), pa in zip(tested, adj):
        call = 'interim' if not complete else ('confirmed' if d > 0 else 'reversed') if pa < plan['familyAlpha'] else 'not detected'
        y = next((y for y in rec or [] if y['higher'] == x['higher'] and y['lower'] == x['lower'] and y['finding'] == x['finding']), None)
        same = y is None or (abs(d - y['difference']) < 0.006 and abs(pa - y['pAdjusted']) < 1e-3 * y['pAdjusted'] and call == y['call'])
        bad += not same
        print(f"fresh: {x['finding']} {x['higher']} − {x['lower']}: {d:+.2f}, p {pv:.4g}, Holm {pa:.4g} — {call}"
              + ('' if y is None else f"; record {y['difference']} Holm {y['pAdjusted']} {y['call']} — {'same' if same else 'DIFFERENT'}"))
    print(f'{finished} of {len(plan["runs"])} planned runs finished' + ('' if complete else ': interim, no call'))
    if bad:
        sys.exit(f'{bad} figure(s) differ')
    print('the confirmatory plan recomputes to the same leads, seeds and calls')


def beyond():
    root = sys.argv[2] if len(sys.argv) > 2 else ROOT  # another tree's records and runs (a synthetic check's)
    rec = json.load(open(os.path.join(root, 'results/findings/beyond-test.json')))
    plan = json.load(open(os.path.join(root, 'results/findings/beyond-plan.json')))
    alpha = plan['choices']['alpha']
    bad = 0

    def run(d):
        p = os.path.join(root, d, 'summary.json')
        if not os.path.exists(p):
            return None
        s = json.load(open(p))
        return {'seed': s['lab']['seed'], 'gain': 100 * (s['final']['success'] - s['start']['success']), 'start': s['start'], 'dir': d}

    def stages(d):
        first = [None, None]
        for line in open(os.path.join(root, d, 'metrics.jsonl')):
            if not line.startswith('{"kind":"train"'):
                continue
            x = json.loads(line)
            for k in (1, 2):
                if first[k - 1] is None and x['charts/curriculum_stage'] >= k:
                    first[k - 1] = x['step']
        return first

    def median_ci(values, level=0.95):
        n = len(values)
        obs = sorted(v for v in values if v is not None)
        at = lambda r: obs[r - 1] if r <= len(obs) else None
        if n == 0:
            return None, None, None, None
        if n % 2:
            med = at((n + 1) // 2)
        else:
            a, b = at(n // 2), at(n // 2 + 1)
            med = None if a is None or b is None else (a + b) / 2
        j = 0
        while j + 1 <= n / 2 and stats.binom.cdf(j, n, 0.5) <= (1 - level) / 2:
            j += 1
        if j == 0:
            return med, None, None, None
        return med, at(j), at(n - j + 1), 1 - 2 * stats.binom.cdf(j - 1, n, 0.5)

    def family(tests, complete, label_of, recorded):
        nonlocal bad
        ok = [t for t in tests if t is not None]
        adj = holm([t['p'] for t in ok]) if ok else []
        for t, pa in zip(ok, adj):
            call = 'interim' if not complete else ('positive' if t['estimate'] > 0 else 'negative') if pa < alpha else 'not detected'
            y = next(y for y in recorded if y['label'] == t['label'])
            same = abs(t['estimate'] - y['difference']) < 0.006 and abs(pa - y['pAdjusted']) < 1e-3 * y['pAdjusted'] and call == y['call']
            bad += not same
            print(f"{t['label']}: {t['estimate']:+.2f}, p {t['p']:.4g}, Holm {pa:.4g} — {call}; record {y['difference']} Holm {y['pAdjusted']} {y['call']} — {'same' if same else 'DIFFERENT'}")
        for y in recorded:
            if y['difference'] is not None and not any(t['label'] == y['label'] for t in ok):
                print(f"{y['label']}: the record has a figure the runs do not give"); bad += 1

    # ---- T8
    n8 = plan['T8']['seedsPerCell']
    name = {'s': '1.5B', 'm': '3B', 'l': '7B'}
    cells = {(c['scale'], c['arm']): [r for r in map(run, c['dirs'][:n8]) if r] for c in rec['design']['t8']}
    complete = all(len(v) >= n8 for v in cells.values())
    g = lambda s, a: [r['gain'] for r in cells[(s, a)]]
    pairs = []
    for s in 'sml':
        a, b = g(s, 'adaptive'), g(s, 'fixed')
        if len(a) >= 2 and len(b) >= 2:
            w = stats.ttest_ind(a, b, equal_var=False)
            c = contrast([a, b], [1, -1])
            assert abs(c['p'] - w.pvalue) < 1e-9
            pairs.append({'label': f'adaptive − fixed at {name[s]}', 'estimate': c['estimate'], 'p': w.pvalue})
        else:
            pairs.append(None)
    family(pairs, complete, None, rec['T8']['pairs'])
    xs = []
    for s in 'sm':
        cs = [g(s, 'adaptive'), g(s, 'fixed'), g('l', 'adaptive'), g('l', 'fixed')]
        xs.append({**contrast(cs, [1, -1, -1, 1]), 'label': f'(adaptive − fixed at {name[s]}) − (adaptive − fixed at 7B)'} if all(len(x) >= 2 for x in cs) else None)
    family(xs, complete, None, rec['T8']['interactions'])
    for sw in rec['T8']['switches']:
        firsts = [stages(r['dir'])[sw['stage'] - 1] for r in cells[(sw['scale'], 'adaptive')]]
        med, lo, hi, cov = median_ci(firsts)
        i = sw['interval']
        same = (med, lo, hi) == (i['median'], i['lo'], i['hi']) and (cov is None) == (i['coverage'] is None) and (cov is None or abs(cov - i['coverage']) < 1e-12) \
            and i['censored'] == sum(f is None for f in firsts) and i['n'] == len(firsts)
        bad += not same
        print(f"{sw['name']} first stage-{sw['stage']} step: median {med} [{lo}, {hi}] ({len(firsts)} runs) — {'same' if same else 'DIFFERENT'}")
    fresh8 = sum(1 for c in rec['design']['t8'] for d in c['fresh'] if run(d))
    print(f"T8: {fresh8} of {len(plan['T8']['runs'])} planned runs finished (record {rec['T8']['finished']})")
    bad += fresh8 != rec['T8']['finished']
    # ---- T9
    n9 = plan['T9']['pairs']['seeds']
    cells9 = {c['size']: [r for r in map(run, c['dirs'][:n9]) if r] for c in rec['design']['t9']}
    standard = next(c['size'] for c in rec['design']['t9'] if not c['fresh'])
    complete9 = all(len(v) >= n9 for v in cells9.values())
    for st in rec['T9']['starts']:
        s = cells9[st['size']][0]['start']
        k = round(s['success'] * s['queries'])
        same = k == st['successes'] and s['queries'] == st['queries']
        if BACKEND == 'SciPy':
            ci = stats.binomtest(k, s['queries']).proportion_ci(method='wilson')
            same = same and abs(100 * ci.low - st['lo']) < 0.006 and abs(100 * ci.high - st['hi']) < 0.006
        bad += not same
        print(f"T9 start {st['size']}: {k} of {s['queries']} — {'same' if same else 'DIFFERENT'}")
    pairs9 = []
    for c in rec['design']['t9']:
        if c['size'] == standard:
            continue
        a, b = [r['gain'] for r in cells9[c['size']]], [r['gain'] for r in cells9[standard]]
        pairs9.append({'label': f"SFT on {c['size']} − on {standard}", 'estimate': statistics.fmean(a) - statistics.fmean(b), 'p': stats.ttest_ind(a, b, equal_var=False).pvalue} if len(a) >= 2 and len(b) >= 2 else None)
    family(pairs9, complete9, None, rec['T9']['pairs'])
    sft = sum(1 for x in rec['design']['sft'] if os.path.exists(os.path.join(root, x['dir'], 'card.json')))
    fresh9 = sft + sum(1 for c in rec['design']['t9'] for d in c['fresh'] if run(d))
    print(f"T9: {fresh9} of {rec['T9']['planned']} planned runs finished (record {rec['T9']['finished']})")
    bad += fresh9 != rec['T9']['finished']
    if bad:
        sys.exit(f'{bad} figure(s) differ')
    print(f'{BACKEND}: beyond-test.json recomputes to the same figures and calls')


def tost():
    """Schuirmann's TOST as two one-sided Welch tests: ttest_ind(x - d, y, alternative='greater') and (x + d ... 'less')"""
    fx = json.load(open(os.path.join(ROOT, 'test/fixtures/tost-r.json')))
    bad = 0
    for c in fx['tost']:
        x, y = fx['clinic'][c['data']]
        if c['log']:
            x, y = [math.log(v) for v in x], [math.log(v) for v in y]
        e = c['epsilon']
        lower = stats.ttest_ind([v + e for v in x], y, equal_var=False, alternative='greater')  # H0: d <= -e
        upper = stats.ttest_ind([v - e for v in x], y, equal_var=False, alternative='less')  # H0: d >= +e
        p = max(lower.pvalue, upper.pvalue)
        same = abs(p - c['p_value']) < 1e-9 * max(1, c['p_value']) and abs(upper.df - c['df']) < 1e-9 * c['df']
        bad += not same
        print(f"{c['name']}: SciPy TOST p {p:.12g} df {upper.df:.12g}; R p {c['p_value']:.12g} df {c['df']:.12g} — {'same' if same else 'DIFFERENT'}")
    if bad:
        sys.exit(f'{bad} TOST case(s) differ')
    print("SciPy's one-sided Welch tests give R's equivalence::tost p-values")


if __name__ == '__main__':
    print(f'statistics from {BACKEND}')
    {'fixtures': fixtures, 'check': check, 'plan': plan, 'tost': tost, 'pairs': pairs, 'confirmatory': confirmatory, 'beyond': beyond}[sys.argv[1] if len(sys.argv) > 1 else 'check']()
