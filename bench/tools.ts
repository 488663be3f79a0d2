// Tool-call throughput at `standard` size (target: ≥ 200,000 calls/s on one core) and the
// cost of generating a world. The call mix imitates a teacher episode: per trip a state lookup,
// flights and both drive modes for each leg, the three per-city searches, and a few bad calls.
import type { BenchSuite } from './harness.ts';
import { opsPerSecond } from './harness.ts';
import { Rng } from '../src/env/random.ts';
import { callTool } from '../src/env/tools.ts';
import { renderObservation } from '../src/env/render.ts';
import { destinationStates, generateWorld, worldDates } from '../src/env/world.ts';
import type { ToolCall, World } from '../src/env/types.ts';

function callMix(world: World, rng: Rng, episodes: number): ToolCall[] {
  const states = destinationStates(world);
  const cities = [...world.stateOf.keys()];
  const dates = worldDates(world);
  const calls: ToolCall[] = [];
  for (let e = 0; e < episodes; e++) {
    const state = rng.pick(states);
    const stops = rng.sample(world.citiesByState.get(state)!, rng.between(1, 3));
    const origin = rng.pick(cities.filter((c) => world.stateOf.get(c) !== state));
    const route = [origin, ...stops, origin];
    calls.push({ tool: 'SearchCity', args: { state } });
    for (let leg = 0; leg + 1 < route.length; leg++) {
      const [departure, destination] = [route[leg], route[leg + 1]];
      calls.push({ tool: 'SearchFlight', args: { departure, destination, date: rng.pick(dates) } });
      calls.push({ tool: 'GoogleDistanceMatrix', args: { departure, destination, mode: 'self-driving' } });
      calls.push({ tool: 'GoogleDistanceMatrix', args: { departure, destination, mode: 'taxi' } });
    }
    for (const city of stops) {
      calls.push({ tool: 'SearchAccommodation', args: { city } });
      calls.push({ tool: 'SearchRestaurant', args: { city } });
      calls.push({ tool: 'SearchAttraction', args: { city } });
    }
    if (rng.chance(0.3)) calls.push({ tool: 'SearchRestaurant', args: { city: 'Atlantis' } }); // a policy's mistake
    if (rng.chance(0.2))
      calls.push({ tool: 'SearchFlight', args: { departure: origin, destination: stops[0], date: '2022-13-01' } });
  }
  return calls;
}

export const toolsSuite: BenchSuite = {
  name: 'tools',
  async run(report, { quick }) {
    const minMs = quick ? 150 : 1000;
    const times: number[] = [];
    const cpuTimes: number[] = []; // CPU time too: on a busy machine wall time mostly measures the neighbours
    for (let i = 0; i < (quick ? 1 : 5); i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      generateWorld('standard', 100 + i);
      times.push(performance.now() - t0);
      cpuTimes.push(process.cpuUsage(c0).user / 1000);
    }
    const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    report('world.generate_ms.standard', median(times), 'ms', `wall, median of ${times.length} seeds`);
    report('world.generate_cpu_ms.standard', median(cpuTimes), 'ms', 'user CPU time, same runs');

    const world = generateWorld('standard', 1);
    const calls = callMix(world, new Rng(7), 2000);
    const sweep = () => {
      for (let i = 0; i < calls.length; i++) callTool(world, calls[i]);
    };
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let swept = 0;
    while (performance.now() - t0 < minMs) {
      sweep();
      swept++;
    }
    const cpuSeconds = process.cpuUsage(c0).user / 1e6;
    const wallSeconds = (performance.now() - t0) / 1000;
    report(
      'tools.calls_per_s',
      (swept * calls.length) / cpuSeconds,
      'calls/s',
      `per CPU-second: standard world, ${calls.length}-call teacher-like mix, one core`,
    );
    report(
      'tools.calls_per_s_wall',
      (swept * calls.length) / wallSeconds,
      'calls/s',
      'same run by wall clock (lower on a busy machine)',
    );

    const rng = new Rng(3);
    const options = { failureRate: 0.05, rng };
    const sweepWithFailures = () => {
      for (let i = 0; i < calls.length; i++) callTool(world, calls[i], options);
    };
    report(
      'tools.calls_per_s_failures_5pct',
      opsPerSecond(sweepWithFailures, minMs, calls.length),
      'calls/s',
      'same mix, 5 % injected failures',
    );

    const observations = calls.slice(0, 2000).map((c) => callTool(world, c));
    const render = () => {
      for (const obs of observations) renderObservation(obs);
    };
    report(
      'tools.render_per_s',
      opsPerSecond(render, minMs, observations.length),
      'obs/s',
      'TravelPlanner text of each observation',
    );
  },
};
