// Tool-QA episodes (the OOD suite) in the token language: same tools and observations
// as travel planning, a different output. Prompt and answer grammar (tokens in vocab.ts):
//   <bos> <qa> qa:cheapestFlight CITY CITY </qa>                  → <ans> #k <eos>   (flight row; the date is d+0)
//   <bos> <qa> qa:accommodationUnder CITY (<rule> RULE)? (<room> <not>? TYPE)? <budget> NUM </qa> → <ans> #k <eos>
//   <bos> <qa> qa:bestRestaurant CITY <cuisine> CUISINE </qa>     → <ans> #k <eos>
//   <bos> <qa> qa:countAttractions CITY </qa>                     → <ans> NUM <eos>
//   <bos> <qa> qa:driveCost CITY CITY MODE </qa>                  → <ans> NUM <eos>
//   <bos> <qa> qa:countCities STATE </qa>                         → <ans> NUM <eos>
// A #k answer resolves in the episode's latest successful observation, exactly as plan refs do.
import type { ToolStep } from '../env/types.ts';
import { scoreToolQa, type ToolQaAnswer, type ToolQaEpisode, type ToolQaTask } from '../env/toolqa.ts';
import { cityToken, pushSteps, stateToken, toIds, type EncodedEpisode, type Result } from './encode.ts';
import { MAX_REFS, VOCAB, numberTokens, refIndex, refToken, type Vocab } from './vocab.ts';

export type { ToolQaTask, ToolQaAnswer };
export { scoreToolQa };

/** questions without a date still need a base date for call parsing; any world date works */
const NO_DATE = '2022-03-01';

export function toolQaBaseDate(task: ToolQaTask): string {
  return task.question.kind === 'cheapestFlight' ? task.question.date : NO_DATE;
}

const ROOM: Record<string, string[]> = {
  'entire room': ['entire'],
  'private room': ['private'],
  'shared room': ['shared'],
  'not shared room': ['<not>', 'shared'],
};
const RULE: Record<string, string> = {
  parties: 'parties',
  smoking: 'smoking',
  'children under 10': 'children',
  pets: 'pets',
  visitors: 'visitors',
};

export function toolQaPromptTokens(task: ToolQaTask): string[] {
  const q = task.question;
  const t = ['<qa>', `qa:${q.kind}`];
  switch (q.kind) {
    case 'cheapestFlight': t.push(cityToken(q.from), cityToken(q.to)); break;
    case 'accommodationUnder':
      t.push(cityToken(q.city));
      if (q.houseRule) t.push('<rule>', RULE[q.houseRule]);
      if (q.roomType) t.push('<room>', ...ROOM[q.roomType]);
      t.push('<budget>', ...numberTokens(Math.round(q.maxPrice)));
      break;
    case 'bestRestaurant': t.push(cityToken(q.city), '<cuisine>', q.cuisine); break;
    case 'countAttractions': t.push(cityToken(q.city)); break;
    case 'driveCost': t.push(cityToken(q.from), cityToken(q.to), q.mode); break;
    case 'countCities': t.push(stateToken(q.state)); break;
  }
  t.push('</qa>');
  return t;
}

export function encodeToolQaPrompt(task: ToolQaTask, vocab: Vocab = VOCAB): number[] {
  return toIds(['<bos>', ...toolQaPromptTokens(task)], vocab);
}

/** the name each row kind answers with, or null for observations that answer with numbers */
function rowNames(steps: readonly ToolStep[]): string[] | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    const o = steps[i].observation;
    if (o.kind === 'error') continue;
    if (o.kind === 'flights') return o.rows.slice(0, MAX_REFS).map((f) => f.flightNumber);
    if (o.kind === 'accommodations' || o.kind === 'restaurants') return o.rows.slice(0, MAX_REFS).map((r) => r.name);
    return null;
  }
  return null;
}

export function answerTokens(answer: ToolQaAnswer, steps: readonly ToolStep[]): Result<string[]> {
  if (answer.kind === 'number') return { ok: true, value: ['<ans>', ...numberTokens(Math.round(answer.value))] };
  const k = rowNames(steps)?.indexOf(answer.name) ?? -1;
  if (k < 0) return { ok: false, error: `answer "${answer.name}" is not a row of the latest observation` };
  return { ok: true, value: ['<ans>', refToken(k + 1)] };
}

/** `<ans> … [<eos>]` back to an answer, resolving #k in the episode's observations */
export function decodeToolQaAnswer(
  _task: ToolQaTask,
  ids: readonly number[],
  steps: readonly ToolStep[],
  vocab: Vocab = VOCAB,
): Result<ToolQaAnswer> {
  let t = ids.map((i) => (i >= 0 && i < vocab.size ? vocab.tokens[i] : `?${i}`));
  if (t[0] === '<ans>') t = t.slice(1);
  if (t[t.length - 1] === '<eos>') t = t.slice(0, -1);
  if (t.length === 0) return { ok: false, error: 'empty answer' };
  if (t.length === 1 && refIndex(t[0]) > 0) {
    const names = rowNames(steps);
    if (!names)
      return { ok: false, error: `answer ${t[0]} but no flight, accommodation or restaurant list was observed` };
    const k = refIndex(t[0]);
    if (k > names.length) return { ok: false, error: `answer ${t[0]} is not among the ${names.length} rows observed` };
    return { ok: true, value: { kind: 'name', name: names[k - 1] } };
  }
  let value = 0;
  for (const tok of t) {
    const m = /^n(\d+)$/.exec(tok);
    if (!m) return { ok: false, error: `answer must be #k or a number, got "${t.join(' ')}"` };
    value = value * 100 + Number(m[1]);
  }
  return { ok: true, value: { kind: 'number', value } };
}

/** A teacher tool-QA episode as training tokens (mask as for plans: calls and answer only). */
export function encodeToolQaEpisode(ep: ToolQaEpisode, vocab: Vocab = VOCAB): EncodedEpisode {
  const prompt = encodeToolQaPrompt(ep.task, vocab);
  const out: EncodedEpisode = { tokens: [...prompt], lossMask: prompt.map(() => 0) };
  pushSteps(out, ep.steps, toolQaBaseDate(ep.task), vocab);
  const ans = answerTokens(ep.answer, ep.steps);
  if (!ans.ok) throw new Error(`encodeToolQaEpisode: ${ans.error}`);
  const a = toIds([...ans.value, '<eos>'], vocab);
  out.tokens.push(...a);
  out.lossMask.push(...a.map(() => 1));
  return out;
}
