// The veRL job's length limits (cli/verlJob.ts), measured on the world and the teacher so that nothing
// the tools return is cut.
import { callTool } from '../../env/tools.ts';
import { renderObservation } from '../../env/render.ts';
import { teachTrajectory } from '../../env/teacher.ts';
import { Rng } from '../../env/random.ts';
import type { Query, World } from '../../env/types.ts';
import { systemPrompt, toolSchemas } from './toolsAndPrompt.ts';

/** The longest text any well-formed call can return in this world (characters). */
export function longestObservation(world: World): number {
  let longest = 0;
  const see = (text: string) => void (longest = Math.max(longest, text.length));
  for (const [key, rows] of world.flights) {
    const [departure, destination, date] = key.split('|');
    see(renderObservation({ kind: 'flights', rows, departure, destination, date }));
  }
  for (const city of world.stateOf.keys()) {
    see(renderObservation({ kind: 'accommodations', rows: world.accommodations.get(city) ?? [] }));
    see(renderObservation({ kind: 'restaurants', rows: world.restaurants.get(city) ?? [] }));
    see(renderObservation({ kind: 'attractions', rows: world.attractions.get(city) ?? [] }));
    see(
      renderObservation(
        callTool(world, { tool: 'SearchFlight', args: { departure: city, destination: city, date: '2022/03/01' } }),
      ),
    );
  }
  for (const cities of world.citiesByState.values()) see(renderObservation({ kind: 'cities', cities }));
  return longest;
}

export interface Lengths {
  /** veRL multi_turn.max_tool_response_length (characters) */
  maxToolResponse: number;
  /** data.max_prompt_length (tokens) */
  maxPrompt: number;
  /** data.max_response_length (tokens): assistant turns and tool responses together */
  maxResponse: number;
  /** the teacher's longest trajectory, in characters, that maxResponse was sized from */
  teacherLongestChars: number;
}

/** Characters per token assumed for Qwen2.5's tokenizer on this text (tables, names, JSON): conservative. */
const CHARS_PER_TOKEN = 3;
const roundUp = (x: number, to: number) => Math.ceil(x / to) * to;

export function measureLengths(world: World, train: readonly Query[], seed: number): Lengths {
  const maxToolResponse = roundUp(Math.max(256, longestObservation(world) * 1.1), 256);
  const schemaChars = JSON.stringify(toolSchemas()).length;
  const longestQuery = Math.max(0, ...train.map((q) => q.query.length));
  const maxPrompt = roundUp(((systemPrompt().length + schemaChars + longestQuery) / CHARS_PER_TOKEN) * 1.25 + 64, 512);
  const rng = new Rng(seed).fork(0x7eac);
  let teacherLongestChars = 0;
  train.forEach((q, i) => {
    const t = teachTrajectory(world, q, { rng: rng.fork(i) });
    if (!t) return;
    let chars = JSON.stringify(t.plan).length + 200; // the plan turn with its tags and a sentence
    for (const s of t.steps)
      chars +=
        renderObservation(s.observation).length +
        JSON.stringify({ name: s.call.tool, arguments: s.call.args }).length +
        60;
    teacherLongestChars = Math.max(teacherLongestChars, chars);
  });
  // room for a policy that searches more than the teacher and thinks aloud: 1.5 × the teacher's longest
  const maxResponse = roundUp(Math.max(2048, (teacherLongestChars / CHARS_PER_TOKEN) * 1.5), 1024);
  return { maxToolResponse, maxPrompt, maxResponse, teacherLongestChars };
}
