#!/usr/bin/env python3
"""Score an exported folder with TravelPlanner's OWN evaluation code and compare with the lab.

Needs a checkout of https://github.com/OSU-NLP-Group/TravelPlanner (its evaluation/, tools/ and
utils/ folders are imported from there, unchanged) and pandas. Those folders are copied into a
temporary folder whose database/ points at the export, because the official modules read
'../database/...' relative to themselves.

  npm run cli -- export --size small --queries 50 --out /tmp/x
  npx tsx scripts/mutatePlans.ts /tmp/x /tmp/x/broken.jsonl 400           # optional: rule-breaking plans
  npm run cli -- eval --dir /tmp/x --plans /tmp/x/broken.jsonl --out /tmp/x/ours.jsonl
  python3 scripts/official_crosscheck.py --travelplanner ~/TravelPlanner --dir /tmp/x \
      --plans /tmp/x/broken.jsonl --ours /tmp/x/ours.jsonl

Prints every plan whose official verdicts differ from the lab's (faithful mode), and the plans on
which the official code crashes (the lab scores those; there is no official verdict to match).
"""
import argparse, json, os, shutil, sys, tempfile, types

ap = argparse.ArgumentParser()
ap.add_argument('--travelplanner', required=True, help='checkout of OSU-NLP-Group/TravelPlanner')
ap.add_argument('--dir', required=True, help='an export folder (database/, queries.jsonl)')
ap.add_argument('--plans', required=True, help='submission JSONL scored by the lab')
ap.add_argument('--ours', required=True, help="the lab's eval output for --plans")
args = ap.parse_args()

mirror = tempfile.mkdtemp(prefix='tp-official-')
# copied, not linked: the modules chdir to their own folder and open '../database', and '..' of a
# symlinked folder is the checkout's own parent
for name in ('evaluation', 'tools', 'utils'):
    shutil.copytree(os.path.join(args.travelplanner, name), os.path.join(mirror, name), ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
os.symlink(os.path.abspath(os.path.join(args.dir, 'database')), os.path.join(mirror, 'database'))
sys.path.insert(0, mirror)
# utils/func.py imports gradio (an annotation UI), tools import requests; the checks use neither
for stub in ('gradio', 'requests', 'tqdm'):
    try:
        __import__(stub)
    except ImportError:
        m = types.ModuleType(stub)
        m.tqdm = lambda x, *a, **k: x
        m.Error = Exception
        sys.modules[stub] = m
        if stub == 'requests':
            exc = types.ModuleType('requests.exceptions'); exc.SSLError = Exception
            sys.modules['requests.exceptions'] = exc

from evaluation.commonsense_constraint import evaluation as commonsense_eval  # noqa: E402
from evaluation.hard_constraint import evaluation as hard_eval  # noqa: E402


def read_jsonl(path):
    with open(path, encoding='utf-8') as f:
        return [json.loads(line) for line in f if line.strip()]


queries = {q['idx']: q for q in read_jsonl(os.path.join(args.dir, 'queries.jsonl'))}
plans, ours = read_jsonl(args.plans), read_jsonl(args.ours)
if len(plans) != len(ours):
    sys.exit(f'{args.plans} has {len(plans)} lines but {args.ours} has {len(ours)}')
ROUTE = {'is_reasonalbe_visiting_city': 'is_reasonable_visiting_city'}  # the official spelling
as_bool = lambda v: None if v is None else bool(v)
compared = mismatches = crashes = 0
for plan, mine in zip(plans, ours):
    if 'error' in mine:
        continue
    query = queries[plan['idx']]
    try:
        if plan['plan']:
            cs = commonsense_eval(query, plan['plan'])
            hard = hard_eval(query, plan['plan']) if cs['is_not_absent'][0] and cs['is_valid_information_in_sandbox'][0] else None
        else:
            cs = hard = None
    except Exception as e:  # the official code has no verdict for this plan
        crashes += 1
        print(f'official crash on idx {plan["idx"]}: {type(e).__name__}: {e}')
        continue
    compared += 1
    official_cs = {ROUTE.get(k, k): as_bool(v[0]) for k, v in cs.items()} if cs else None
    official_hard = {k: as_bool(v[0]) for k, v in hard.items()} if hard else None
    lab_cs = mine['commonsense'] if plan['plan'] else None
    if official_cs != lab_cs or official_hard != mine['hard']:
        mismatches += 1
        print(f'MISMATCH idx {plan["idx"]}: official {official_cs} {official_hard}\n    lab {lab_cs} {mine["hard"]}')
print(f'{compared} plans compared: {mismatches} verdict mismatches; {crashes} plans crash the official code')
sys.exit(1 if mismatches else 0)
