"""STAR Lab export: TravelPlanner's database/ folder read the way the lab reads it.

Shared by travelplanner_tools.py (the six tools) and reward.py (the evaluator and the rewards).
Standard library only. It is a port of the lab's TypeScript (src/env/interop/rows.ts, database.ts,
world.ts) and keeps JavaScript's text conventions wherever the lab's output depends on them
(String(number), Number.toFixed, Math.round, UTF-16 string lengths, String.trim), so the tools and
the verdicts match the lab's character for character. Parity tests in the lab's repository
(test/cli/exportJob.test.ts) check this against the TypeScript on the same inputs.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
import threading
from decimal import ROUND_HALF_UP, Decimal

DATABASE_FILES = {
    'flights': 'database/flights/clean_Flights_2022.csv',
    'accommodations': 'database/accommodations/clean_accommodations_2022.csv',
    'restaurants': 'database/restaurants/clean_restaurant_2022.csv',
    'attractions': 'database/attractions/attractions.csv',
    'distances': 'database/googleDistanceMatrix/distance.csv',
    'cities': 'database/background/citySet_with_states.txt',
}
WORLD_MANIFEST_FILE = 'star_lab_world.json'
JOB_FILE = 'job.json'
MAX_DRIVE_MINUTES = 24 * 60
WORLD_DATES = ['2022-03-%02d' % d for d in range(1, 32)]
EMPTY_LIST = '-'

# ---------------------------------------------------------------------------------------------
# JavaScript text conventions

_JS_SPACE = set('\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff') | {chr(c) for c in range(0x2000, 0x200b)}


def js_trim(s: str) -> str:
    """String.prototype.trim (differs from str.strip on U+FEFF, U+001C-U+001F, U+0085)."""
    a, b = 0, len(s)
    while a < b and s[a] in _JS_SPACE:
        a += 1
    while b > a and s[b - 1] in _JS_SPACE:
        b -= 1
    return s[a:b]


def u16len(s: str) -> int:
    """JavaScript's string length: UTF-16 code units."""
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def u16slice(s: str, end: int) -> str:
    """s.slice(0, end) in UTF-16 code units (a split surrogate pair is kept whole)."""
    out, n = [], 0
    for ch in s:
        w = 2 if ord(ch) > 0xFFFF else 1
        if n + w > end:
            break
        out.append(ch)
        n += w
    return ''.join(out)


def pad_start(s: str, width: int) -> str:
    return ' ' * max(0, width - u16len(s)) + s


def pad_end(s: str, width: int) -> str:
    return s + ' ' * max(0, width - u16len(s))


def js_num(x) -> str:
    """String(number): integers without '.0', otherwise the shortest round-trip digits."""
    if isinstance(x, bool):
        return 'true' if x else 'false'
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return 'NaN'
    if math.isinf(x):
        return 'Infinity' if x > 0 else '-Infinity'
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if 'e' in r:  # JavaScript: 1e-7, 1.5e+21; Python: 1e-07, 1.5e+21
        mant, exp = r.split('e')
        sign = exp[0] if exp[0] in '+-' else '+'
        r = '%se%s%d' % (mant, sign, int(exp.lstrip('+-')))
    return r


def js_round(x: float) -> float:
    """Math.round: the nearest integer, halves toward +infinity."""
    f = math.floor(x)
    return float(f + 1) if x - f >= 0.5 else float(f)


def to_fixed(x: float, digits: int) -> str:
    """Number.prototype.toFixed: the exact binary value rounded half away from zero."""
    if x == 0:
        x = 0.0  # (-0).toFixed(1) is "0.0"
    q = Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return format(q, 'f')


def js_string(v) -> str:
    """String(v) for a JSON value (a plan field that is not text)."""
    if v is None:
        return 'null'
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, int, float)):
        return js_num(v)
    if isinstance(v, list):
        return ','.join('' if x is None else js_string(x) for x in v)
    return '[object Object]'


# ---------------------------------------------------------------------------------------------
# Rows (src/env/interop/rows.ts)

class RowError(ValueError):
    pass


def _text(row: dict, col: str) -> str:
    v = row.get(col)
    if v is None:
        raise RowError('missing "%s"' % col)
    s = js_trim(v)
    if s == '':
        raise RowError('empty "%s"' % col)
    return s


_JS_NUMBER = re.compile(r'[+-]?(Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)')


def _num(row: dict, col: str) -> float:
    s = _text(row, col)
    # Number(): decimal literals (and 0x/0o/0b, never in these tables); float() would also take "nan", "1_0"
    if not _JS_NUMBER.fullmatch(s):
        raise RowError('"%s" is not a number: %s' % (col, json.dumps(s)))
    n = float(s)
    if not math.isfinite(n):
        raise RowError('"%s" is not a number: %s' % (col, json.dumps(s)))
    return n


def _split_list(s: str, sep: str) -> list:
    if s == EMPTY_LIST:
        return []
    return [x for x in (js_trim(p) for p in s.split(sep)) if x != '']


def row_is_complete(row: dict, columns) -> bool:
    return all(row.get(c) is not None and js_trim(row[c]) != '' for c in columns)


FLIGHT_COLUMNS = ['Flight Number', 'Price', 'DepTime', 'ArrTime', 'ActualElapsedTime', 'FlightDate', 'OriginCityName', 'DestCityName', 'Distance']
ACCOMMODATION_COLUMNS = ['NAME', 'price', 'room type', 'house_rules', 'minimum nights', 'maximum occupancy', 'review rate number', 'city']
RESTAURANT_COLUMNS = ['Name', 'Average Cost', 'Cuisines', 'Aggregate Rating', 'City']
ATTRACTION_COLUMNS = ['Name', 'Latitude', 'Longitude', 'Address', 'Phone', 'Website', 'City']
ROOM_TYPES = ('Entire home/apt', 'Private room', 'Shared room')


def flight_from_row(row):
    return {
        'flightNumber': _text(row, 'Flight Number'), 'price': _num(row, 'Price'), 'depTime': _text(row, 'DepTime'),
        'arrTime': _text(row, 'ArrTime'), 'elapsed': _text(row, 'ActualElapsedTime'), 'date': _text(row, 'FlightDate'),
        'origin': _text(row, 'OriginCityName'), 'dest': _text(row, 'DestCityName'), 'distance': _num(row, 'Distance'),
    }


def restaurant_from_row(row):
    return {
        'name': _text(row, 'Name'), 'averageCost': _num(row, 'Average Cost'), 'cuisines': _split_list(_text(row, 'Cuisines'), ','),
        'rating': _num(row, 'Aggregate Rating'), 'city': _text(row, 'City'),
    }


def accommodation_from_row(row):
    room_type = _text(row, 'room type')
    if room_type not in ROOM_TYPES:
        raise RowError('unknown room type "%s"' % room_type)
    return {
        'name': _text(row, 'NAME'), 'price': _num(row, 'price'), 'roomType': room_type,
        'houseRules': _split_list(_text(row, 'house_rules'), '&'), 'minimumNights': _num(row, 'minimum nights'),
        'maximumOccupancy': _num(row, 'maximum occupancy'), 'rating': _num(row, 'review rate number'), 'city': _text(row, 'city'),
    }


def attraction_from_row(row):
    return {
        'name': _text(row, 'Name'), 'latitude': _num(row, 'Latitude'), 'longitude': _num(row, 'Longitude'),
        'address': _text(row, 'Address'), 'phone': _text(row, 'Phone'), 'website': _text(row, 'Website'), 'city': _text(row, 'City'),
    }


_UNITS = {'day': 1440, 'hour': 60, 'min': 1}
_DURATION = re.compile(r'(\d+)\s*(day|hour|min)s?')


def parse_duration(s: str) -> int:
    parts = _DURATION.findall(s)
    leftover = js_trim(_DURATION.sub('', s))
    if not parts or leftover != '':
        raise RowError('cannot read duration "%s"' % s)
    return sum(int(n) * _UNITS[u] for n, u in parts)


def parse_km(s: str) -> float:
    m = re.fullmatch(r'([\d,]+(?:\.\d+)?)\s*(km|m)', js_trim(s))
    if not m:
        raise RowError('cannot read distance "%s"' % s)
    n = float(m.group(1).replace(',', ''))
    return n / 1000 if m.group(2) == 'm' else n


def drive_from_row(row):
    if not row_is_complete(row, ['origin', 'destination', 'duration', 'distance']):
        return None
    if 'day' in (row.get('duration') or ''):  # the official tool: "no valid information"
        return None
    return {
        'origin': _text(row, 'origin'), 'destination': _text(row, 'destination'),
        'durationMinutes': parse_duration(_text(row, 'duration')), 'distanceKm': parse_km(_text(row, 'distance')),
    }


# ---------------------------------------------------------------------------------------------
# The database (src/env/interop/database.ts worldFromDatabaseFiles)

class Database:
    """A World: lookups by exact city name, rows in table order (the lab's Map insertion order)."""

    def __init__(self):
        self.source = 'real'
        self.seed = 0
        self.state_of = {}  # city -> state, city-set file order
        self.cities_by_state = {}  # state -> [city]
        self.restaurants = {}
        self.accommodations = {}
        self.attractions = {}
        self.flights = {}  # "origin|dest|date" -> [flight]
        self.drives = {}  # "origin|destination" -> drive (the first row of a pair wins)
        self.dates = list(WORLD_DATES)
        self._flights_by_number = None
        self._lock = threading.Lock()

    def flights_with_number(self, number: str) -> list:
        with self._lock:
            if self._flights_by_number is None:
                out = {}
                for rows in self.flights.values():
                    for f in rows:
                        out.setdefault(f['flightNumber'], []).append(f)
                self._flights_by_number = out
        return self._flights_by_number.get(number, [])


def _read_csv(path: str):
    with open(path, encoding='utf-8', newline='') as f:
        reader = csv.reader(f)
        header = None
        for cells in reader:
            if not cells or cells == ['']:
                continue
            if header is None:
                header = [h.lstrip('\ufeff') if i == 0 else h for i, h in enumerate(cells)]
                continue
            yield {h: (cells[i] if i < len(cells) else None) for i, h in enumerate(header)}


def _day_range(first: str, last: str) -> list:
    from datetime import date, timedelta
    a, b = date.fromisoformat(first), date.fromisoformat(last)
    return [(a + timedelta(days=i)).isoformat() for i in range((b - a).days + 1)]


def load_database(job_dir: str) -> Database:
    """Read job_dir/database/ (TravelPlanner's layout) and job_dir/job.json's world facts, if any."""
    db = Database()
    city_path = os.path.join(job_dir, DATABASE_FILES['cities'])
    if not os.path.exists(city_path):
        raise FileNotFoundError('%s is missing: is %s an exported job folder?' % (city_path, job_dir))
    with open(city_path, encoding='utf-8') as f:
        for i, line in enumerate(re.split(r'\r?\n', f.read())):
            if js_trim(line) == '':
                continue
            parts = line.split('\t')
            if len(parts) != 2 or not js_trim(parts[0]) or not js_trim(parts[1]):
                raise ValueError('city set line %d: expected "city<TAB>state", got %s' % (i + 1, json.dumps(line)))
            db.state_of[js_trim(parts[0])] = js_trim(parts[1])

    def table(key, columns, parse, add):
        path = os.path.join(job_dir, DATABASE_FILES[key])
        if not os.path.exists(path):
            raise FileNotFoundError('missing %s' % path)
        for line, row in enumerate(_read_csv(path), start=2):
            if not row_is_complete(row, columns):
                continue
            try:
                item = parse(row)
            except RowError as e:
                raise ValueError('%s row %d: %s' % (DATABASE_FILES[key], line, e)) from e
            if item is not None:
                add(item)

    table('flights', FLIGHT_COLUMNS, flight_from_row, lambda f: db.flights.setdefault('%s|%s|%s' % (f['origin'], f['dest'], f['date']), []).append(f))
    table('accommodations', ACCOMMODATION_COLUMNS, accommodation_from_row, lambda a: db.accommodations.setdefault(a['city'], []).append(a))
    table('restaurants', RESTAURANT_COLUMNS, restaurant_from_row, lambda r: db.restaurants.setdefault(r['city'], []).append(r))
    table('attractions', ATTRACTION_COLUMNS, attraction_from_row, lambda a: db.attractions.setdefault(a['city'], []).append(a))
    table('distances', ['origin', 'destination'], drive_from_row, lambda d: db.drives.setdefault('%s|%s' % (d['origin'], d['destination']), d))

    manifest = os.path.join(job_dir, WORLD_MANIFEST_FILE)
    if os.path.exists(manifest):
        with open(manifest, encoding='utf-8') as f:
            m = json.load(f)
        db.source = m.get('source', db.source)
        db.seed = m.get('seed', db.seed)
    # job.json (written by `cli export-job`) carries what TravelPlanner's layout cannot: the searchable
    # cities of each state and the dates the flight search answers for. Without it: every city of the
    # city set, and the dates the lab derives (src/env/world.ts worldDates).
    job = read_job(job_dir)
    world = (job or {}).get('world', {})
    if world.get('citiesByState') is not None:
        db.cities_by_state = {s: list(cs) for s, cs in world['citiesByState'].items()}
    else:
        for city, state in db.state_of.items():
            db.cities_by_state.setdefault(state, []).append(city)
    if world.get('dates') is not None:
        db.dates = list(world['dates'])
    elif db.source == 'real':
        first, last = WORLD_DATES[0], WORLD_DATES[-1]
        for key in db.flights:
            d = key[key.rfind('|') + 1:]
            if re.fullmatch(r'[0-9]{4}-[0-9]{2}-[0-9]{2}', d):
                first, last = min(first, d), max(last, d)
        db.dates = _day_range(first, last)
    return db


def read_job(job_dir: str):
    path = os.path.join(job_dir, JOB_FILE)
    if not os.path.exists(path):
        return None
    with open(path, encoding='utf-8') as f:
        return json.load(f)


_cache = {}
_cache_lock = threading.Lock()


def database(job_dir: str) -> Database:
    """The database of a job folder, loaded once per process."""
    key = os.path.abspath(job_dir)
    with _cache_lock:
        db = _cache.get(key)
        if db is None:
            db = _cache[key] = load_database(key)
    return db


def default_job_dir() -> str:
    """$STAR_JOB_DIR, else the folder of these modules (the exported job folder)."""
    return os.environ.get('STAR_JOB_DIR') or os.path.dirname(os.path.abspath(__file__))
