"""STAR Lab export: the reward of a TravelPlanner plan, as veRL's `compute_score` hook.

    custom_reward_function.path=<job>/reward.py  custom_reward_function.name=compute_score

`compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs)` reads the plan
from the last assistant turn of `solution_str` (a JSON list of days inside <plan>...</plan>),
scores it with TravelPlanner's 8 commonsense and 5 hard checks over the job's database/, and returns
the experiment's reward with every verdict as an extra key.

It is a port of the lab's evaluator and rewards (src/env/evaluate.ts, commonsense.ts, hard.ts,
planParse.ts, evalContext.ts, sandboxIndex.ts, rewards.ts): the same verdicts, the same reasons and
the same numbers; the lab's parity test (test/cli/exportJob.test.ts) compares them on a thousand
plans. By default it scores in the lab's mode (what the lab's RL trainer pays); `faithful=True`
reproduces the official TravelPlanner evaluation's quirks instead (see evaluate.ts, QUIRKS).

Rewards: sum = mean of commonsense micro and hard micro; macro = mean of commonsense
macro and hard macro; success = 1 if everything passes; curriculum = sum, then macro, then success
at fractions of training. An undelivered or unparsable plan scores 0 under every reward.

Which reward: keyword arguments (veRL passes `custom_reward_function.reward_kwargs` through):
`reward` (sum|macro|success|curriculum, default: job.json's), and for the curriculum `stage`
(sum|macro|success), or `progress` in [0, 1], or `step` and `total_steps` (progress = step /
total_steps, the lab's rule), with `switch_points` (default job.json's). veRL passes no training
step to a reward function, so run.sh trains a curriculum in three phases, each with its `stage`.

Standard library only; no veRL import.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from travelplanner_db import (  # noqa: E402
    MAX_DRIVE_MINUTES, database, default_job_dir, js_num, js_round, js_string, read_job, u16len, u16slice,
)

COMMONSENSE_KEYS = [
    'is_reasonable_visiting_city', 'is_valid_restaurants', 'is_valid_attractions', 'is_valid_accommodation',
    'is_valid_transportation', 'is_valid_information_in_current_city', 'is_valid_information_in_sandbox', 'is_not_absent',
]
HARD_KEYS = ['valid_cost', 'valid_room_rule', 'valid_cuisine', 'valid_room_type', 'valid_transportation']
PLAN_FIELDS = ['current_city', 'transportation', 'breakfast', 'attraction', 'lunch', 'dinner', 'accommodation']
MEAL_SLOTS = ['breakfast', 'lunch', 'dinner']
UNUSED_DAY_TEXT = "You don't need to fill in the information for this or later days."
REWARD_KINDS = ['sum', 'macro', 'success', 'curriculum']
STAGES = ['sum', 'macro', 'success']
DEFAULT_SWITCH_POINTS = (1 / 3, 2 / 3)

# ---------------------------------------------------------------------------------------------
# Plan strings (planParse.ts): the official evaluation's own regular expressions

_FROM_TO = re.compile(r'from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)')
_NAME_CITY = re.compile(r'(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$')
_PAREN = re.compile(r'^(.*?)\([^)]*\)')


def extract_before_parenthesis(s: str) -> str:
    m = _PAREN.search(s)
    return m.group(1) if m else s


def route_of(s: str):
    if 'from' not in s:
        return None
    m = _FROM_TO.search(s)
    if not m:
        return None
    return (extract_before_parenthesis(m.group(1)), extract_before_parenthesis(m.group(2)))


def parse_name_city(s: str):
    """(name, city) as get_valid_name_city reads 'Name, City', or None where it cannot."""
    m = _NAME_CITY.search(s)
    if not m:
        return None
    return (m.group(1).strip(), extract_before_parenthesis(m.group(2).strip()).strip())


def is_filled(v: str) -> bool:
    return v != '' and v != '-'


def attraction_items(value: str, faithful: bool):
    parts = value.split(';')
    last = parts.pop()
    if not faithful and last.strip() != '':
        parts.append(last)
    return parts


def transport_kind(value: str):
    lower = value.lower()
    if 'taxi' in lower:
        return 'Taxi'
    if 'self-driving' in lower:
        return 'Self-driving'
    if 'flight' in lower:
        return 'Flight'
    return None


def flight_number_of(value: str):
    parts = value.split('Flight Number: ')
    return parts[1].split(',')[0] if len(parts) > 1 else None


def sandbox_transport_mode(value: str):
    lower = value.lower()
    if 'flight number' in lower:
        return 'flight'
    if 'self-driving' in lower:
        return 'self-driving'
    if 'taxi' in lower:
        return 'taxi'
    return None


# ---------------------------------------------------------------------------------------------
# Lookups (sandboxIndex.ts): names match by substring, the first row in table order prices it


class Index:
    def __init__(self, db):
        self.db = db
        self._memo = {}
        self._drives_from = None

    def match_item(self, table: str, value: str):
        """(item, first row or None, count): item None = not readable as 'Name, City'."""
        key = (table, value)
        hit = self._memo.get(key)
        if hit is None:
            item = parse_name_city(value)
            first, count = None, 0
            if item is not None:
                for row in getattr(self.db, table).get(item[1], []):
                    if item[0] in row['name']:
                        if count == 0:
                            first = row
                        count += 1
            hit = self._memo[key] = (item, first, count)
        return hit

    def flight_item(self, transportation: str):
        number = flight_number_of(transportation)
        return number, ([] if number is None else self.db.flights_with_number(number))

    def drive_cost(self, origin: str, destination: str, mode: str):
        drive = self.db.drives.get('%s|%s' % (origin, destination))
        if drive is None or not drive['durationMinutes'] < MAX_DRIVE_MINUTES:
            return None
        km = drive['distanceKm']
        return math.trunc(km) if mode == 'taxi' else math.trunc(km * 0.05)


_indexes = {}


def _index(db) -> Index:
    ix = _indexes.get(id(db))
    if ix is None or ix.db is not db:
        ix = _indexes[id(db)] = Index(db)
    return ix


# ---------------------------------------------------------------------------------------------
# Days (evalContext.ts)


class Day:
    def __init__(self, value, index: int):
        self.index = index
        self.raw = value if isinstance(value, dict) else None
        self.missing = []
        for f in PLAN_FIELDS:
            if self.raw is None or f not in self.raw:
                self.missing.append(f)
                v = ''
            else:
                x = self.raw[f]
                v = '' if x is None else (x if isinstance(x, str) else js_string(x))
            setattr(self, f, v)
        self.has_from = 'from' in self.current_city
        self.route = route_of(self.current_city) if self.has_from else None

    def get(self, f):
        return getattr(self, f)


class Ctx:
    def __init__(self, db, query, plan, faithful):
        self.db = db
        self.index = _index(db)
        self.query = query
        self.faithful = faithful
        self.days = [Day(plan[i], i) for i in range(min(query['days'], len(plan)))]


def quote(value: str) -> str:
    return "'%s'" % (u16slice(value, 87) + '...' if u16len(value) > 90 else value)


def label(d: Day) -> str:
    return 'Day %d' % (d.index + 1)


def _pass(reason):
    return {'pass': True, 'reason': reason}


def _fail(reason):
    return {'pass': False, 'reason': reason}


def _not_set(what):
    return {'pass': None, 'reason': 'The query sets no %s' % what}


def money(x: float) -> str:
    cents = int(js_round(abs(x) * 100))
    whole = '{:,}'.format(cents // 100)
    frac = cents % 100
    tail = '' if frac == 0 else '.' + re.sub(r'0$', '', '%02d' % frac)
    return '%s$%s%s' % ('-' if x < 0 else '', whole, tail)


# ---------------------------------------------------------------------------------------------
# The 8 commonsense checks (commonsense.ts)


def _unreadable_route(d):
    return _fail("%s current_city %s cannot be read as 'from A to B'" % (label(d), quote(d.current_city)))


def _route_text(cities):
    return ' → '.join(c for i, c in enumerate(cities) if i == 0 or c != cities[i - 1])


def _city_sequence_problem(cities):
    n = len(cities)
    if n < 3:
        return 'the route %s has fewer than 3 stops' % _route_text(cities)
    visited = set()
    i = 0
    while i < n:
        city = cities[i]
        if city in visited and i != 0 and i != n - 1:
            return '%s is visited again after the route left it' % city
        count = 0
        while i < n and cities[i] == city:
            count += 1
            i += 1
        if count == 1 and 0 < i - 1 < n - 1:
            return 'the route breaks at %s: it is reached, but the next day does not continue from it' % city
        visited.add(city)
    return None


def check_reasonable_visiting_city(ctx):
    q = ctx.query
    cities = []
    for d in ctx.days:
        if d.has_from:
            if d.route is None:
                return _unreadable_route(d)
            a, b = d.route
            if d.index == 0 and a != q['org']:
                return _fail('Day 1 starts from %s, but the trip starts from %s' % (a, q['org']))
            cities += [a, b]
        else:
            cities.append(extract_before_parenthesis(d.current_city))
    route = _route_text(cities)
    if not ctx.faithful and cities[0] != q['org']:
        return _fail('The route %s does not start at the origin %s' % (route, q['org']))
    if cities[0] != cities[-1]:
        return _fail('The route %s does not return to %s: the trip is not a closed loop' % (route, cities[0]))
    problem = _city_sequence_problem(cities)
    if problem is not None:
        return _fail('The city sequence is invalid: %s' % problem)
    for i, city in enumerate(cities):
        state = ctx.db.state_of.get(city)
        if state is None:
            return _fail('%s on the route %s is not a city of the database' % (quote(city), route))
        middle = i != 0 and i != len(cities) - 1
        if middle and q['days'] > 3 and state != q['dest']:
            return _fail('%s is in %s, not in the destination state %s' % (city, state, q['dest']))
        if middle and not ctx.faithful and q['days'] == 3 and city != q['dest']:
            return _fail('%s is not the destination %s' % (city, q['dest']))
    return _pass('The route %s is a closed loop of contiguous stays' % route)


def check_restaurants(ctx):
    seen = {}
    for d in ctx.days:
        for slot in MEAL_SLOTS:
            v = d.get(slot)
            if not is_filled(v):
                continue
            if v in seen:
                return _fail('%s %s %s was already chosen for %s' % (label(d), slot, quote(v), seen[v]))
            seen[v] = 'day %d %s' % (d.index + 1, slot)
    return _pass('No restaurant is chosen twice (%d meals)' % len(seen))


def check_attractions(ctx):
    seen = {}
    for d in ctx.days:
        if not is_filled(d.attraction):
            continue
        for a in attraction_items(d.attraction, ctx.faithful):
            if a in seen:
                return _fail('%s attraction %s was already visited on day %d' % (label(d), quote(a), seen[a]))
            seen[a] = d.index + 1
    return _pass('No attraction is visited twice (%d visits)' % len(seen))


def check_accommodation(ctx):
    for d in ctx.days:
        if 'accommodation' in d.missing:
            return _fail('%s has no accommodation field' % label(d))
    days = ctx.days
    start = 0
    while start < len(days):
        v = days[start].accommodation
        end = start + 1
        while end < len(days) and days[end].accommodation == v:
            end += 1
        nights = end - start
        if v != '-' and v != '':
            _, first, count = ctx.index.match_item('accommodations', v)
            if count == 1 and first is not None and nights < first['minimumNights']:
                span = 'day %d only' % (start + 1) if nights == 1 else 'days %d–%d' % (start + 1, end)
                return _fail('%s is booked for %d night%s (%s), but its minimum stay is %s nights' % (
                    quote(v), nights, '' if nights == 1 else 's', span, js_num(first['minimumNights'])))
        start = end
    return _pass('Every stay meets its minimum nights')


def check_transportation(ctx):
    first = ctx.days[0] if ctx.days else None
    if first is None or not is_filled(first.transportation):
        return _fail('Day 1 has no transportation, but the trip must begin by leaving %s' % ctx.query['org'])
    first_day = {}
    for d in ctx.days:
        if not is_filled(d.transportation):
            continue
        kind = transport_kind(d.transportation)
        if kind is not None and kind not in first_day:
            first_day[kind] = d.index + 1
    drive, flight, taxi = first_day.get('Self-driving'), first_day.get('Flight'), first_day.get('Taxi')
    if drive is not None and flight is not None:
        return _fail('Self-driving (day %d) and flights (day %d) conflict: the car cannot be left behind' % (drive, flight))
    if drive is not None and taxi is not None:
        return _fail('Taxi (day %d) and self-driving (day %d) conflict: the car cannot be left behind' % (taxi, drive))
    kinds = [k.lower() for k in first_day]
    return _pass('Transportation is consistent (%s)' % (', '.join(kinds) or 'none named'))


def _place_of(v):
    nc = parse_name_city(v)
    return '%s names no city' % quote(v) if nc is None else "'%s' is in %s" % (nc[0], nc[1] or 'no city')


def check_current_city(ctx):
    for d in ctx.days:
        if d.has_from:
            if d.route is None:
                return _unreadable_route(d)
            cities = list(d.route)
            where = 'the day travels from %s to %s' % d.route
        else:
            city = extract_before_parenthesis(d.current_city)
            if ctx.faithful:
                cities = list(city)
            elif city.strip() == '':
                return _fail('%s has no current city' % label(d))
            else:
                cities = [city]
            where = 'the day is spent in %s' % (city or 'no city')
        dl = label(d)
        t = d.transportation
        if is_filled(t):
            for c in cities:
                if c not in t:
                    return _fail('%s transportation %s does not mention %s, but %s' % (dl, quote(t), c, where))
        for slot in MEAL_SLOTS:
            v = d.get(slot)
            if is_filled(v) and not any(c in v for c in cities):
                return _fail('%s %s %s, but %s' % (dl, slot, _place_of(v), where))
        if is_filled(d.attraction):
            for a in attraction_items(d.attraction, ctx.faithful):
                if not any(c in a for c in cities):
                    return _fail('%s attraction %s, but %s' % (dl, _place_of(a), where))
        acc = d.accommodation
        if is_filled(acc):
            if not cities:
                return _fail('%s has an accommodation but no current city' % dl)
            night = cities[-1]
            if night not in acc:
                return _fail('%s accommodation %s, but the night is spent in %s' % (dl, _place_of(acc), d.route[1] if d.route else night))
    return _pass("Every transportation, meal, attraction and stay is in the day's city")


def _missing_item(v, match, kind):
    item, _, count = match
    if item is None:
        return "%s cannot be read as 'Name, City'" % quote(v)
    if count == 0:
        return "'%s' is not %s %s in %s in the database" % (item[0], 'a' if kind == 'restaurant' else 'an', kind, 'an unnamed city' if item[1] == '' else item[1])
    return None


def check_sandbox(ctx):
    ix = ctx.index
    for d in ctx.days:
        dl = label(d)
        t = d.transportation
        if is_filled(t):
            mode = sandbox_transport_mode(t)
            if mode is not None:
                ft = route_of(t) or d.route
                if mode == 'flight':
                    if ft is None:
                        return _fail("%s flight %s names no 'from A to B' route" % (dl, quote(t)))
                    number, flights = ix.flight_item(t)
                    if number is None:
                        return _fail("%s transportation %s has no 'Flight Number: ' to look up" % (dl, quote(t)))
                    org, dst = ft
                    if not any(f['origin'] == org and f['dest'] == dst for f in flights):
                        other = ' (%s flies %s to %s)' % (number, flights[0]['origin'], flights[0]['dest']) if flights else ''
                        return _fail('%s flight %s from %s to %s is not in the database%s' % (dl, quote(number), org, dst, other))
                else:
                    org, dst = ft if ft is not None else ('-', '-')
                    if ix.drive_cost(org, dst, mode) is None:
                        return _fail('%s %s from %s to %s is not in the database (no drive of less than a day)' % (dl, mode, org, dst))
        for slot in MEAL_SLOTS:
            v = d.get(slot)
            if not is_filled(v):
                continue
            problem = _missing_item(v, ix.match_item('restaurants', v), 'restaurant')
            if problem is not None:
                return _fail('%s %s %s' % (dl, slot, problem))
        if is_filled(d.attraction):
            for a in attraction_items(d.attraction, ctx.faithful):
                problem = _missing_item(a, ix.match_item('attractions', a), 'attraction')
                if problem is not None:
                    return _fail('%s attraction %s' % (dl, problem))
        if is_filled(d.accommodation):
            problem = _missing_item(d.accommodation, ix.match_item('accommodations', d.accommodation), 'accommodation')
            if problem is not None:
                return _fail('%s accommodation %s' % (dl, problem))
    return _pass('Every flight, drive, restaurant, attraction and stay exists in the database')


def _is_blank(ctx, d, f):
    v = d.get(f)
    return (v == '' or v == '-') and (not ctx.faithful or d.raw is None or f not in d.raw or d.raw[f] is not None)


def _filled_value(v):
    if v == '-' or v is None or v is False or v == '':
        return False
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0:
        return False
    if isinstance(v, (list, dict)):
        return len(v) > 0
    return True


def check_not_absent(ctx):
    q = ctx.query
    planned = sum(1 for d in ctx.days if d.raw is not None and len(d.raw) > 0 and d.current_city != UNUSED_DAY_TEXT)
    if planned != q['days']:
        return _fail("The plan fills %d of the trip's %d days" % (planned, q['days']))
    visited = {}
    for d in ctx.days:
        if d.has_from:
            if d.route is None:
                return _unreadable_route(d)
            if d.index == 0 and d.route[0] != q['org']:
                return _fail('Day 1 starts from %s, not from the origin %s' % (d.route[0], q['org']))
            visited[d.route[0]] = True
            visited[d.route[1]] = True
        else:
            visited[extract_before_parenthesis(d.current_city)] = True
    visited.pop(q['org'], None)
    if len(visited) != q['visiting_city_number']:
        lst = ' (%s)' % ', '.join(visited) if visited else ''
        return _fail('The plan visits %d cit%s%s, but the query asks for %s' % (len(visited), 'y' if len(visited) == 1 else 'ies', lst, js_num(q['visiting_city_number'])))
    order = ['transportation', 'breakfast', 'lunch', 'dinner', 'attraction', 'accommodation']
    filled = 0
    for d in ctx.days:
        dl = label(d)
        for f in order:
            if f in d.missing:
                return _fail('%s has no %s field' % (dl, f))
        cc = d.current_city
        if ('from ' in cc or 'to ' in cc) and _is_blank(ctx, d, 'transportation'):
            return _fail('%s travels (%s) but has no transportation' % (dl, quote(cc)))
        if 'from ' not in cc and ' to ' not in cc and _is_blank(ctx, d, 'attraction'):
            return _fail('%s is spent in %s but has no attraction' % (dl, cc or 'no city'))
        if d.index != q['days'] - 1 and _is_blank(ctx, d, 'accommodation'):
            return _fail('%s has no accommodation, but the trip goes on' % dl)
        if 'from ' not in cc:
            for meal in MEAL_SLOTS:
                if _is_blank(ctx, d, meal):
                    return _fail('%s has no %s, and it is not a travel day' % (dl, meal))
        if d.raw is not None:
            filled += sum(1 for k in d.raw if _filled_value(d.raw[k]))
    needed = 6 * q['days']
    if filled / needed < 0.5:
        return _fail('Only %d of %d pieces of information are filled (under half)' % (filled, needed))
    return _pass('All %s days are complete: transportation, meals, attractions and stays' % js_num(q['days']))


# ---------------------------------------------------------------------------------------------
# The 5 hard checks and the cost (hard.ts)


def cost_breakdown(ctx):
    ix, people = ctx.index, ctx.query['people_number']
    total = transport = meals = stays = 0
    for d in ctx.days:
        t = d.transportation
        if is_filled(t):
            route = route_of(t) or d.route
            if route is not None:
                lower = t.lower()
                if 'flight number' in lower:
                    number, flights = ix.flight_item(t)
                    if number is None:
                        return None
                    if flights:
                        c = flights[0]['price'] * people
                        total += c
                        transport += c
                elif 'self-driving' in lower or 'taxi' in lower:
                    mode = 'self-driving' if 'self-driving' in lower else 'taxi'
                    per_car = ix.drive_cost(route[0], route[1], mode)
                    if per_car is None:
                        return None
                    c = per_car * math.ceil(people / (5 if mode == 'self-driving' else 4))
                    total += c
                    transport += c
        for slot in MEAL_SLOTS:
            v = d.get(slot)
            if not is_filled(v):
                continue
            r = ix.match_item('restaurants', v)[1]
            if r is not None:
                c = r['averageCost'] * people
                total += c
                meals += c
        if is_filled(d.accommodation):
            a = ix.match_item('accommodations', d.accommodation)[1]
            if a is not None:
                if not a['maximumOccupancy'] > 0:
                    return None
                c = a['price'] * math.ceil(people / a['maximumOccupancy'])
                total += c
                stays += c
    return {'total': total, 'transport': transport, 'meals': meals, 'stays': stays}


def check_cost(ctx, cost):
    budget = ctx.query['budget']
    if cost is None:
        return _fail('The total cost cannot be computed: a drive, flight or stay of the plan has no price')
    parts = 'transport %s, meals %s, stays %s' % (money(cost['transport']), money(cost['meals']), money(cost['stays']))
    if cost['total'] <= budget:
        return _pass('Total cost %s (%s) is within the budget of %s' % (money(cost['total']), parts, money(budget)))
    return _fail('Total cost %s (%s) exceeds the budget of %s by %s' % (money(cost['total']), parts, money(budget), money(cost['total'] - budget)))


FORBIDDING_RULE = {'smoking': 'No smoking', 'parties': 'No parties', 'children under 10': 'No children under 10', 'visitors': 'No visitors', 'pets': 'No pets'}


def _stay_of(ctx, d):
    return ctx.index.match_item('accommodations', d.accommodation)[1] if is_filled(d.accommodation) else None


def check_room_rule(ctx):
    rule = ctx.query['local_constraint'].get('house rule')
    if rule is None:
        return _not_set('house rule')
    forbidding = FORBIDDING_RULE.get(rule)
    if forbidding is not None:
        for d in ctx.days:
            stay = _stay_of(ctx, d)
            if stay is not None and forbidding in ' & '.join(stay['houseRules']):
                return _fail("%s stay '%s' says '%s', but the query needs %s allowed" % (label(d), stay['name'], forbidding, rule))
    return _pass('Every stay allows %s' % rule)


def check_room_type(ctx):
    wanted = ctx.query['local_constraint'].get('room type')
    if wanted is None:
        return _not_set('room type')
    for d in ctx.days:
        stay = _stay_of(ctx, d)
        if stay is None:
            continue
        t = stay['roomType']
        bad = ((wanted == 'not shared room' and t == 'Shared room') or (wanted == 'shared room' and t != 'Shared room')
               or (wanted == 'private room' and t != 'Private room') or (wanted == 'entire room' and t != 'Entire home/apt'))
        if bad:
            article = 'an' if t[:1].lower() in 'aeiou' and t[:1] != '' else 'a'
            return _fail("%s stay '%s' is %s %s, but the query asks for %s" % (label(d), stay['name'], article, t.lower(), wanted))
    return _pass('Every stay is a %s' % wanted)


def check_cuisine(ctx):
    wanted = ctx.query['local_constraint'].get('cuisine')
    if not wanted:
        return _not_set('cuisine')
    found = {}
    for d in ctx.days:
        next_day = False
        for slot in MEAL_SLOTS:
            v = d.get(slot)
            if not is_filled(v):
                continue
            item, r, _ = ctx.index.match_item('restaurants', v)
            if ('-' if item is None else item[1]) == ctx.query['org']:
                next_day = True  # Q5: the official `continue` jumps to the next day
                break
            if r is None:
                continue
            text = ', '.join(r['cuisines'])
            for c in wanted:
                if c not in found and c in text:
                    found[c] = "day %d %s '%s'" % (d.index + 1, slot, r['name'])
        if next_day:
            continue
    missing = next((c for c in wanted if c not in found), None)
    if missing is not None:
        return _fail('No meal outside %s serves %s cuisine' % (ctx.query['org'], missing))
    return _pass('Every requested cuisine is served: %s' % '; '.join('%s at %s' % (c, found[c]) for c in wanted))


def check_transport_mode(ctx):
    rule = ctx.query['local_constraint'].get('transportation')
    if rule is None:
        return _not_set('transportation constraint')
    banned = 'Flight' if rule == 'no flight' else 'Self-driving' if rule == 'no self-driving' else None
    if banned is not None:
        for d in ctx.days:
            t = d.transportation
            if is_filled(t) and banned in t:
                return _fail('%s transportation %s breaks the query\'s "%s"' % (label(d), quote(t), rule))
    return _pass('No day breaks "%s"' % rule)


def hard_constraint_count(query) -> int:
    lc = query['local_constraint']
    if query['level'] == 'easy':
        return 1
    n = 1 + sum(1 for k in ('house rule', 'cuisine', 'room type') if lc.get(k) is not None)
    if query['level'] == 'hard' and lc.get('transportation') is not None:
        n += 1
    return n


# ---------------------------------------------------------------------------------------------
# evaluatePlan (evaluate.ts)

_NOT_DELIVERED = {'pass': False, 'reason': 'No plan was delivered'}


def _check_query(q):
    problem = (
        'is not an object' if not isinstance(q, dict)
        else 'has no org' if not isinstance(q.get('org'), str)
        else 'has no dest' if not isinstance(q.get('dest'), str)
        else 'has no positive integer days' if not (isinstance(q.get('days'), int) and not isinstance(q.get('days'), bool) and q['days'] >= 1)
        else 'has no people_number' if not isinstance(q.get('people_number'), (int, float))
        else 'has no budget' if not isinstance(q.get('budget'), (int, float))
        else 'has no local_constraint' if not isinstance(q.get('local_constraint'), dict)
        else None
    )
    if problem is not None:
        raise ValueError('evaluate_plan: the query %s: %s' % (problem, json.dumps(q)[:200]))


def evaluate_plan(db, query: dict, plan, faithful: bool = False) -> dict:
    """The lab's Verdicts: {delivered, commonsense, hard, finalPass, cost, hardConstraintCount}."""
    _check_query(query)
    hard_count = hard_constraint_count(query)
    if not (isinstance(plan, list) and len(plan) > 0):
        return {'delivered': False, 'commonsense': {k: dict(_NOT_DELIVERED) for k in COMMONSENSE_KEYS}, 'hard': None,
                'finalPass': False, 'cost': None, 'hardConstraintCount': hard_count}
    ctx = Ctx(db, query, plan, faithful)
    cs = {
        'is_reasonable_visiting_city': check_reasonable_visiting_city(ctx),
        'is_valid_restaurants': check_restaurants(ctx),
        'is_valid_attractions': check_attractions(ctx),
        'is_valid_accommodation': check_accommodation(ctx),
        'is_valid_transportation': check_transportation(ctx),
        'is_valid_information_in_current_city': check_current_city(ctx),
        'is_valid_information_in_sandbox': check_sandbox(ctx),
        'is_not_absent': check_not_absent(ctx),
    }
    cost = cost_breakdown(ctx)
    hard = None
    if cs['is_not_absent']['pass'] and cs['is_valid_information_in_sandbox']['pass']:
        hard = {
            'valid_cost': check_cost(ctx, cost),
            'valid_room_rule': check_room_rule(ctx),
            'valid_cuisine': check_cuisine(ctx),
            'valid_room_type': check_room_type(ctx),
            'valid_transportation': check_transport_mode(ctx),
        }
    final = hard is not None and all(cs[k]['pass'] is not False for k in COMMONSENSE_KEYS) and all(hard[k]['pass'] is not False for k in HARD_KEYS)
    return {'delivered': True, 'commonsense': cs, 'hard': hard, 'finalPass': final,
            'cost': None if cost is None else cost['total'], 'hardConstraintCount': hard_count}


# ---------------------------------------------------------------------------------------------
# Rewards (rewards.ts)


def commonsense_micro(v) -> float:
    if not v['delivered']:
        return 0
    return sum(1 for k in COMMONSENSE_KEYS if v['commonsense'][k]['pass'] is not False) / len(COMMONSENSE_KEYS)


def hard_micro(v) -> float:
    if not v['delivered'] or v['hard'] is None:
        return 0
    applicable = passed = 0
    for k in HARD_KEYS:
        p = v['hard'][k]['pass']
        if p is None:
            continue
        applicable += 1
        if p:
            passed += 1
    return 1 if applicable == 0 else passed / applicable


def commonsense_macro(v) -> float:
    if not v['delivered']:
        return 0
    return 1 if all(v['commonsense'][k]['pass'] is not False for k in COMMONSENSE_KEYS) else 0


def hard_macro(v) -> float:
    if not v['delivered'] or v['hard'] is None:
        return 0
    return 1 if all(v['hard'][k]['pass'] is not False for k in HARD_KEYS) else 0


def sum_reward(v) -> float:
    if not v['delivered']:
        return 0
    return (commonsense_micro(v) + hard_micro(v)) / 2


def macro_reward(v) -> float:
    if not v['delivered']:
        return 0
    return (commonsense_macro(v) + hard_macro(v)) / 2


def success_reward(v) -> float:
    return 1 if v['delivered'] and v['finalPass'] else 0


def _check_switch_points(sp):
    if len(sp) != 2:
        raise ValueError('curriculum needs 2 switch points, got %d' % len(sp))
    a, b = sp
    if not (math.isfinite(a) and math.isfinite(b) and 0 <= a <= b <= 1):
        raise ValueError('curriculum switch points must satisfy 0 ≤ a ≤ b ≤ 1, got [%s, %s]' % (js_num(a), js_num(b)))


def curriculum_stage(progress: float, switch_points=DEFAULT_SWITCH_POINTS) -> str:
    _check_switch_points(switch_points)
    if not math.isfinite(progress):
        raise ValueError('curriculum progress must be a number, got %s' % progress)
    if progress < switch_points[0]:
        return 'sum'
    if progress < switch_points[1]:
        return 'macro'
    return 'success'


def curriculum_reward(v, progress: float, switch_points=DEFAULT_SWITCH_POINTS) -> float:
    stage = curriculum_stage(progress, switch_points)
    return sum_reward(v) if stage == 'sum' else macro_reward(v) if stage == 'macro' else success_reward(v)


def compute_reward(kind: str, v, progress: float = 0, switch_points=DEFAULT_SWITCH_POINTS) -> float:
    if kind == 'sum':
        return sum_reward(v)
    if kind == 'macro':
        return macro_reward(v)
    if kind == 'success':
        return success_reward(v)
    if kind == 'curriculum':
        return curriculum_reward(v, progress, switch_points)
    raise ValueError('unknown reward kind "%s" (expected one of %s)' % (kind, ', '.join(REWARD_KINDS)))


# ---------------------------------------------------------------------------------------------
# The plan in a rollout's text


def _strict_json(text):
    def no_constant(name):
        raise ValueError('JSON has no %s' % name)
    return json.loads(text, parse_constant=no_constant)


def last_assistant_turn(solution_str: str) -> str:
    """The text after the last tool response (or the last assistant header, with chat markers kept)."""
    s = solution_str
    for marker in ('</tool_response>', '<|im_start|>assistant'):
        at = s.rfind(marker)
        if at != -1:
            s = s[at + len(marker):]
    s = s.replace('<|im_end|>', '').replace('<|endoftext|>', '')
    s = re.sub(r'^\s*(<\|im_end\|>)?\s*(assistant\s*\n)?', '', s)
    return s


def extract_plan(solution_str: str):
    """(plan or None, how): the JSON list inside the last <plan>...</plan> of the last assistant turn,
    else the last ```json fenced list there. A plan that is not a non-empty list is undelivered."""
    turn = last_assistant_turn(solution_str if isinstance(solution_str, str) else '')
    candidates = []
    at = turn.rfind('<plan>')
    if at != -1:
        body = turn[at + len('<plan>'):]
        end = body.find('</plan>')
        candidates.append(('plan_tag', body if end == -1 else body[:end]))
    else:
        fences = re.findall(r'```(?:json)?\s*\n?(.*?)```', turn, flags=re.S)
        if fences:
            candidates.append(('json_fence', fences[-1]))
    for how, text in candidates:
        text = text.strip()
        fence = re.fullmatch(r'```(?:json)?\s*(.*?)\s*```', text, flags=re.S)
        if fence:
            text = fence.group(1)
        try:
            plan = _strict_json(text)
        except ValueError:
            return None, how + ':not_json'
        if isinstance(plan, dict) and isinstance(plan.get('plan'), list):
            plan = plan['plan']
        return (plan, how) if isinstance(plan, list) and plan else (None, how + ':not_a_plan')
    return None, 'none'


# ---------------------------------------------------------------------------------------------
# veRL's hook


def _job_defaults(job_dir):
    job = read_job(job_dir) or {}
    r = job.get('reward', {})
    return r.get('kind', 'sum'), tuple(r.get('switchPoints', DEFAULT_SWITCH_POINTS)), bool(r.get('faithful', False))


def score_plan(plan, query: dict, db, reward='sum', stage=None, progress=None, step=None, total_steps=None,
               switch_points=DEFAULT_SWITCH_POINTS, faithful=False) -> dict:
    """The verdicts and rewards of one plan (None = undelivered), as compute_score returns them."""
    v = evaluate_plan(db, query, plan, faithful)
    if reward not in REWARD_KINDS:
        raise ValueError('unknown reward kind "%s" (expected one of %s)' % (reward, ', '.join(REWARD_KINDS)))
    if reward == 'curriculum':
        if stage is not None:
            if stage not in STAGES:
                raise ValueError('unknown curriculum stage "%s" (expected sum, macro or success)' % stage)
        else:
            if progress is None:
                if step is None or not total_steps:
                    raise ValueError('the curriculum reward needs reward_kwargs stage, progress, or step and total_steps')
                progress = step / total_steps
            stage = curriculum_stage(float(progress), switch_points)
    else:
        stage = reward
    rewards = {'sum': sum_reward(v), 'macro': macro_reward(v), 'success': success_reward(v)}
    out = {
        'score': float(rewards[stage]),
        'stage': float(STAGES.index(stage)),
        'delivered': float(v['delivered']),
        'final_pass': float(v['finalPass']),
        'commonsense_micro': float(commonsense_micro(v)),
        'commonsense_macro': float(commonsense_macro(v)),
        'hard_micro': float(hard_micro(v)),
        'hard_macro': float(hard_macro(v)),
        'hard_checked': float(v['hard'] is not None),
        'reward_sum': float(rewards['sum']),
        'reward_macro': float(rewards['macro']),
        'reward_success': float(rewards['success']),
        'cost': float(v['cost']) if v['cost'] is not None else -1.0,
    }
    # one key per check: 1 pass, 0 fail (or hard checks not run); not applicable counts as a pass, as in TravelPlanner's macro rates
    for k in COMMONSENSE_KEYS:
        out['cs_' + k] = 0.0 if v['commonsense'][k]['pass'] is False else 1.0
    for k in HARD_KEYS:
        out['hard_' + k] = 0.0 if v['hard'] is None or v['hard'][k]['pass'] is False else 1.0
    return out


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """veRL's reward hook (verl.utils.reward_score.default_compute_score's signature)."""
    job_dir = kwargs.get('job_dir') or default_job_dir()
    kind, switch_points, faithful = _job_defaults(job_dir)
    query = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    plan, how = extract_plan(solution_str)
    out = score_plan(
        plan, query, database(job_dir), reward=kwargs.get('reward') or kind, stage=kwargs.get('stage'),
        progress=kwargs.get('progress'), step=kwargs.get('step'), total_steps=kwargs.get('total_steps'),
        switch_points=tuple(kwargs.get('switch_points') or switch_points), faithful=bool(kwargs.get('faithful', faithful)))
    out['plan_found'] = 0.0 if plan is None else 1.0
    out['plan_tag'] = 1.0 if how == 'plan_tag' else 0.0
    return out
