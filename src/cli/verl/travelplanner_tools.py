"""STAR Lab export: TravelPlanner's six tools as veRL tools.

Each tool is a subclass of veRL's `verl.tools.base_tool.BaseTool` (veRL v0.7.0) that answers from
the job folder's database/ exactly as the lab's tools do (src/env/tools.ts callTool, parseToolCall
and src/env/render.ts renderObservation): the same rows, in the same order, rendered as the same
text (TravelPlanner's pandas tables and sentences), and the same error messages.

Tool failures: with probability `failure_rate` (tool_config.yaml) a call answers a transient error
instead ("Error: SearchFlight is temporarily unavailable (HTTP 503). Please retry."). The draws come
from one seeded stream per process (the lab's generator, xoroshiro128+, ported), shared by the six
tools, one draw per well-formed call, as the lab draws them. veRL's tool agent loop creates and
releases an instance for every call, so nothing else is kept between calls.

Without veRL installed (the lab's parity tests) the module falls back to a minimal local BaseTool
and ToolResponse with the same signatures.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
from typing import Any, Optional
from uuid import uuid4

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from travelplanner_db import (  # noqa: E402
    database, default_job_dir, js_num, js_round, js_trim, pad_end, pad_start, to_fixed, u16len,
)

try:  # veRL v0.7.0
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
    HAVE_VERL = True
except ImportError:  # the lab's tests, or a machine without veRL: same signatures
    HAVE_VERL = False
    OpenAIFunctionToolSchema = Any  # type: ignore

    class ToolResponse:  # type: ignore[no-redef]
        def __init__(self, text: Optional[str] = None, image=None, video=None):
            self.text, self.image, self.video = text, image, video

    class BaseTool:  # type: ignore[no-redef]
        def __init__(self, config: dict, tool_schema):
            self.config = config
            self.tool_schema = tool_schema
            self.name = tool_schema['function']['name'] if isinstance(tool_schema, dict) else tool_schema.function.name

        def get_openai_tool_schema(self):
            return self.tool_schema

        async def create(self, instance_id: Optional[str] = None, **kwargs):
            return (instance_id or str(uuid4())), ToolResponse()

        async def execute(self, instance_id: str, parameters: dict, **kwargs):
            return ToolResponse(text='Updated the tool state.'), 0.0, {}

        async def calc_reward(self, instance_id: str, **kwargs) -> float:
            return 0.0

        async def release(self, instance_id: str, **kwargs) -> None:
            return None

TOOL_NAMES = ['SearchFlight', 'GoogleDistanceMatrix', 'SearchAccommodation', 'SearchRestaurant', 'SearchAttraction', 'SearchCity']
TOOL_ARGUMENTS = {
    'SearchFlight': ['departure', 'destination', 'date'],
    'GoogleDistanceMatrix': ['departure', 'destination', 'mode'],
    'SearchAccommodation': ['city'],
    'SearchRestaurant': ['city'],
    'SearchAttraction': ['city'],
    'SearchCity': ['state'],
}
TOOL_ALIASES = {
    'FlightSearch': 'SearchFlight', 'DistanceMatrix': 'GoogleDistanceMatrix', 'AccommodationSearch': 'SearchAccommodation',
    'RestaurantSearch': 'SearchRestaurant', 'AttractionSearch': 'SearchAttraction', 'CitySearch': 'SearchCity',
}
ARG_ALIASES = {'origin': 'departure', 'departure city': 'departure', 'destination city': 'destination', 'origin city': 'departure'}
MODES = {'self-driving': 'self-driving', 'self driving': 'self-driving', 'selfdriving': 'self-driving', 'driving': 'self-driving', 'taxi': 'taxi'}
FAILURE_MESSAGES = [
    'is temporarily unavailable (HTTP 503). Please retry.',
    'timed out after 10 s. Please retry.',
    'hit a rate limit (HTTP 429). Please retry.',
]

# ---------------------------------------------------------------------------------------------
# The lab's random source (src/env/random.ts: pure-rand's xoroshiro128+ and uniformFloat64)


def _i32(x: int) -> int:
    return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _u32(x: int) -> int:
    return x & 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return _i32(_i32(a) * _i32(b))


def _mix_seed(seed: int) -> int:
    z = _i32(seed) + 0x9E3779B9  # a double in JavaScript, not wrapped
    z = _imul(_i32(z) ^ (_u32(z) >> 16), 0x85EBCA6B)
    z = _imul(z ^ (_u32(z) >> 13), 0xC2B2AE35)
    return _i32(z ^ (_u32(z) >> 16))


class Rng:
    """new Rng(seed) of the lab: the same seed gives the same stream as in TypeScript."""

    def __init__(self, seed: int):
        s = _mix_seed(seed)
        self.s01, self.s00, self.s11, self.s10 = -1, _i32(~s), s, 0

    def _next32(self) -> int:
        out = _i32(self.s00 + self.s10)
        a0 = _i32(self.s10 ^ self.s00)
        a1 = _i32(self.s11 ^ self.s01)
        s00, s01 = self.s00, self.s01
        self.s00 = _i32((s00 << 24) ^ (_u32(s01) >> 8) ^ a0 ^ (a0 << 16))
        self.s01 = _i32((s01 << 24) ^ (_u32(s00) >> 8) ^ a1 ^ ((a1 << 16) | (_u32(a0) >> 16)))
        self.s10 = _i32((a1 << 5) ^ (_u32(a0) >> 27))
        self.s11 = _i32((a0 << 5) ^ (_u32(a1) >> 27))
        return out

    def next(self) -> float:
        v1 = self._next32() & 0x3FFFFFF
        v2 = self._next32() & 0x7FFFFFF
        return v1 * 1.4901161193847656e-8 + v2 * 1.1102230246251565e-16

    def int(self, n: int) -> int:
        return math.floor(self.next() * n)


_streams = {}
_streams_lock = threading.Lock()


def failure_stream(seed: int) -> Rng:
    """The process's failure stream for a seed, shared by the six tools."""
    with _streams_lock:
        rng = _streams.get(seed)
        if rng is None:
            rng = _streams[seed] = Rng(seed)
        return rng


def reset_failure_streams() -> None:
    with _streams_lock:
        _streams.clear()


# ---------------------------------------------------------------------------------------------
# parseToolCall (src/env/tools.ts): untrusted arguments -> a call, or an error text


def _js_type(v) -> str:
    if v is None:
        return 'null'
    if isinstance(v, bool):
        return 'boolean'
    if isinstance(v, (int, float)):
        return 'number'
    if isinstance(v, str):
        return 'string'
    return 'object'


def _js_key_order(keys):
    """Object.entries order: array-index keys ascending first, then the rest as inserted."""
    index = [k for k in keys if re.fullmatch(r'0|[1-9][0-9]*', k) and int(k) < 4294967295]
    rest = [k for k in keys if k not in set(index)]
    return sorted(index, key=int) + rest


def parse_tool_call(name, args):
    """(tool, {arg: value}) or {'error': text}."""
    if not isinstance(name, str):
        return {'error': 'The tool name must be text.'}
    trimmed = js_trim(name)
    tool = trimmed if trimmed in TOOL_NAMES else TOOL_ALIASES.get(trimmed)
    if tool is None:
        return {'error': "Unknown tool '%s'. Tools: %s." % (name, ', '.join(TOOL_NAMES))}
    if not isinstance(args, dict):
        return {'error': '%s needs an arguments object.' % tool}
    expected = TOOL_ARGUMENTS[tool]
    values = {}
    for raw_key in _js_key_order(list(args.keys())):
        value = args[raw_key]
        lowered = js_trim(raw_key).lower()
        key = ARG_ALIASES.get(lowered, lowered)
        if key not in expected:
            return {'error': "%s has no argument '%s' (it takes %s)." % (tool, raw_key, ', '.join(expected))}
        if not isinstance(value, str):
            return {'error': "%s: '%s' must be text, got %s." % (tool, key, _js_type(value))}
        if key in values:
            return {'error': "%s: '%s' is given twice." % (tool, key)}
        values[key] = js_trim(value)
    missing = [k for k in expected if k not in values or values[k] == '']
    if missing:
        return {'error': '%s is missing %s (it takes %s).' % (tool, ', '.join(missing), ', '.join(expected))}
    if tool == 'GoogleDistanceMatrix':
        mode = MODES.get(values['mode'].lower())
        if mode is None:
            return {'error': "GoogleDistanceMatrix: mode '%s' is not one of self-driving, taxi." % values['mode']}
        values['mode'] = mode
    return (tool, {k: values[k] for k in expected})


# ---------------------------------------------------------------------------------------------
# callTool + renderObservation (src/env/tools.ts, src/env/render.ts)


def _table(headers, numeric, rows, with_index) -> str:
    columns = [[str(r[c]) for r in rows] for c in range(len(headers))]
    widths = []
    for c, header in enumerate(headers):
        width = u16len(header) + 1 if numeric[c] else u16len(header)
        for cell in columns[c]:
            width = max(width, u16len(cell) + (1 if (not numeric[c] and with_index) else 0))
        widths.append(width)
    index_width = len(str(max(0, len(rows) - 1))) if with_index else 0

    def line(cells, index):
        parts = ' '.join(pad_start(cell, widths[c]) for c, cell in enumerate(cells))
        return parts if index is None else pad_end(index, index_width) + ' ' + parts

    out = [line(headers, '' if with_index else None)]
    for r in range(len(rows)):
        out.append(line([col[r] for col in columns], str(r) if with_index else None))
    return '\n'.join(out)


def _f1(x):
    return to_fixed(x, 1)


def duration_text(minutes: int) -> str:
    h, m = minutes // 60, minutes % 60
    mins = '%d %s' % (m, 'min' if m == 1 else 'mins')
    if h == 0:
        return mins
    return '%d %s %s' % (h, 'hour' if h == 1 else 'hours', mins)


def distance_text(km: float) -> str:
    if km < 100:
        return '%s km' % js_num(js_round(km * 10) / 10)
    return '{:,} km'.format(int(js_round(km)))


def python_list(items) -> str:
    def one(s):
        if "'" in s and '"' not in s:
            return '"%s"' % s
        return "'%s'" % s.replace("'", "\\'")
    return '[%s]' % ', '.join(one(s) for s in items)


def render_flights(rows, departure, destination, date) -> str:
    if not rows:
        return 'There is no flight from %s to %s on %s.' % (departure, destination, date)
    return _table(
        ['Flight Number', 'Price', 'DepTime', 'ArrTime', 'ActualElapsedTime', 'FlightDate', 'OriginCityName', 'DestCityName', 'Distance'],
        [False, True, False, False, False, False, False, False, True],
        [[f['flightNumber'], js_num(f['price']), f['depTime'], f['arrTime'], f['elapsed'], f['date'], f['origin'], f['dest'], _f1(f['distance'])] for f in rows],
        False)


def render_accommodations(rows) -> str:
    if not rows:
        return 'There is no accommodation in this city.'
    return _table(
        ['NAME', 'price', 'room type', 'house_rules', 'minimum nights', 'maximum occupancy', 'review rate number', 'city'],
        [False, True, False, False, True, True, True, False],
        [[a['name'], _f1(a['price']), a['roomType'], ' & '.join(a['houseRules']) or '-', _f1(a['minimumNights']),
          js_num(a['maximumOccupancy']), _f1(a['rating']), a['city']] for a in rows],
        False)


def render_restaurants(rows) -> str:
    if not rows:
        return 'There is no restaurant in this city.'
    return _table(
        ['Name', 'Average Cost', 'Cuisines', 'Aggregate Rating', 'City'],
        [False, True, False, True, False],
        [[r['name'], js_num(r['averageCost']), ', '.join(r['cuisines']), _f1(r['rating']), r['city']] for r in rows],
        True)


def render_attractions(rows) -> str:
    if not rows:
        return 'There is no attraction in this city.'
    return _table(
        ['Name', 'Latitude', 'Longitude', 'Address', 'Phone', 'Website', 'City'],
        [False, True, True, False, False, False, False],
        [[a['name'], to_fixed(a['latitude'], 6), to_fixed(a['longitude'], 6), a['address'], a['phone'], a['website'], a['city']] for a in rows],
        False)


def _unknown_city(db, city) -> str:
    return "'%s' is not a city in this world (%d cities). Use SearchCity with a state to list its cities." % (city, len(db.state_of))


def _bad_date(db, date) -> str:
    if not re.fullmatch(r'[0-9]{4}-[0-9]{2}-[0-9]{2}', date):
        return "Date '%s' is not in YYYY-MM-DD form (e.g. 2022-03-16)." % date
    return "There is no flight data for %s: this world's dates run from %s to %s." % (date, db.dates[0], db.dates[-1])


def call_tool(db, tool: str, args: dict, failure_rate: float = 0.0, rng: Optional[Rng] = None) -> dict:
    """{'text': observation, 'failure': injected error?, 'error': any error?} for a parsed call."""
    if failure_rate > 0:
        rng = rng if rng is not None else failure_stream(db.seed ^ 0x5EED)
        if rng.next() < failure_rate:  # one draw per call whatever the arguments
            return {'text': 'Error: %s %s' % (tool, FAILURE_MESSAGES[rng.int(len(FAILURE_MESSAGES))]), 'failure': True, 'error': True}

    def err(text):
        return {'text': text, 'failure': False, 'error': True}

    def ok(text):
        return {'text': text, 'failure': False, 'error': False}

    if tool == 'SearchFlight':
        dep, dst, date = args['departure'], args['destination'], args['date']
        if dep not in db.state_of:
            return err(_unknown_city(db, dep))
        if dst not in db.state_of:
            return err(_unknown_city(db, dst))
        if date not in set(db.dates):
            return err(_bad_date(db, date))
        return ok(render_flights(db.flights.get('%s|%s|%s' % (dep, dst, date), []), dep, dst, date))
    if tool == 'GoogleDistanceMatrix':
        dep, dst, mode = args['departure'], args['destination'], args['mode']
        if mode not in ('self-driving', 'taxi'):
            return err("Mode '%s' is not one of self-driving, taxi." % mode)
        if dep not in db.state_of:
            return err(_unknown_city(db, dep))
        if dst not in db.state_of:
            return err(_unknown_city(db, dst))
        drive = db.drives.get('%s|%s' % (dep, dst))
        if drive is None:
            return ok('No valid information.')
        km = drive['distanceKm']
        cost = int(km // 1) if mode == 'taxi' else int((km * 0.05) // 1)
        return ok('%s, from %s to %s, duration: %s, distance: %s, cost: %d' % (
            mode, drive['origin'], drive['destination'], duration_text(drive['durationMinutes']), distance_text(km), cost))
    if tool in ('SearchAccommodation', 'SearchRestaurant', 'SearchAttraction'):
        city = args['city']
        if city not in db.state_of:
            return err(_unknown_city(db, city))
        if tool == 'SearchAccommodation':
            return ok(render_accommodations(db.accommodations.get(city, [])))
        if tool == 'SearchRestaurant':
            return ok(render_restaurants(db.restaurants.get(city, [])))
        return ok(render_attractions(db.attractions.get(city, [])))
    if tool == 'SearchCity':
        state = args['state']
        cities = db.cities_by_state.get(state)
        if cities is None:
            return err("'%s' is not a state in this world (%d states)." % (state, len(db.cities_by_state)))
        return ok(python_list(cities))
    return err("Unknown tool '%s'. Tools: %s." % (tool, ', '.join(TOOL_NAMES)))


def run_tool(db, name, parameters, failure_rate: float = 0.0, rng: Optional[Rng] = None) -> dict:
    """A model's call as the lab handles it: parse (an error draws no failure), then call."""
    parsed = parse_tool_call(name, parameters)
    if isinstance(parsed, dict):
        return {'text': parsed['error'], 'failure': False, 'error': True}
    return call_tool(db, parsed[0], parsed[1], failure_rate, rng)


# ---------------------------------------------------------------------------------------------
# veRL tools


class TravelPlannerTool(BaseTool):
    """One of the six tools. tool_config.yaml's `config` may set failure_rate, seed and job_dir."""

    tool_name = ''

    def __init__(self, config: dict, tool_schema: OpenAIFunctionToolSchema):
        super().__init__(config, tool_schema)
        cfg = dict(config or {})
        self.job_dir = cfg.get('job_dir') or default_job_dir()
        self.failure_rate = float(cfg.get('failure_rate', 0.0) or 0.0)
        self.seed = int(cfg.get('seed', 1))
        if not 0 <= self.failure_rate < 1:
            raise ValueError('failure_rate must be in [0, 1), got %r' % self.failure_rate)
        self.db = database(self.job_dir)

    async def create(self, instance_id: Optional[str] = None, **kwargs):
        # create_kwargs hold the query's split and index (for tracing); the tools keep no state
        return (instance_id or str(uuid4())), ToolResponse()

    async def execute(self, instance_id: str, parameters: dict, **kwargs):
        if isinstance(parameters, str):  # some rollouts pass the JSON text
            try:
                parameters = json.loads(parameters)
            except ValueError:
                return ToolResponse(text='%s needs an arguments object.' % self.tool_name), 0.0, {'error': True, 'failure': False}
        result = run_tool(self.db, self.tool_name, parameters, self.failure_rate, failure_stream(self.seed) if self.failure_rate > 0 else None)
        return ToolResponse(text=result['text']), 0.0, {'error': result['error'], 'failure': result['failure']}

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        return 0.0

    async def release(self, instance_id: str, **kwargs) -> None:
        return None


class SearchFlightTool(TravelPlannerTool):
    tool_name = 'SearchFlight'


class GoogleDistanceMatrixTool(TravelPlannerTool):
    tool_name = 'GoogleDistanceMatrix'


class SearchAccommodationTool(TravelPlannerTool):
    tool_name = 'SearchAccommodation'


class SearchRestaurantTool(TravelPlannerTool):
    tool_name = 'SearchRestaurant'


class SearchAttractionTool(TravelPlannerTool):
    tool_name = 'SearchAttraction'


class SearchCityTool(TravelPlannerTool):
    tool_name = 'SearchCity'


TOOL_CLASSES = {cls.tool_name: cls for cls in (SearchFlightTool, GoogleDistanceMatrixTool, SearchAccommodationTool, SearchRestaurantTool, SearchAttractionTool, SearchCityTool)}
