// The SFT starting points per scale, from their cards' `evaluation300` (greedy, the validation
// split grown to 300 queries, scripts/cardEvaluation300.ts): success and delivery with 95 % Wilson
// intervals, free and constrained plan decoding, the compute each stage took, and the two calls
// asked of them — is success ordered s < m < l, and are the intervals of s and l apart.
//   npx tsx scripts/scaleTable.ts --out results/scale LABEL=DIR …
// LABEL names a group of checkpoints (e.g. `scratch`, `pretrained`); DIR is an SFT checkpoint folder (or a
// card's .json file on its own, as results/ keeps the cards of checkpoints that were not shipped).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCard, type SftCard } from '../src/rl/checkpointFiles.ts';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args[outAt + 1] : 'results/scale';
const entries = args.filter((a, i) => a.includes('=') && i !== outAt + 1).map((a) => a.split('=') as [string, string]);
if (!entries.length) {
  console.error('usage: npx tsx scripts/scaleTable.ts [--out DIR] LABEL=CHECKPOINT_DIR …');
  process.exit(2);
}

type Decoding = 'free' | 'constrained';
interface Row {
  group: string; dir: string; preset: string; parameters: number;
  pretrainTokens: number; pretrainTokensPerParameter: number; pretrainHours: number;
  sftSteps: number; sftHours: number;
  success: Record<Decoding, { rate: number; lo: number; hi: number }>;
  delivery: Record<Decoding, { rate: number; lo: number; hi: number }>;
  ood: number; queries: number;
}

const rows: Row[] = entries.map(([group, dir]) => {
  const file = dir.endsWith('.json') ? dir : join(dir, 'card.json');
  const card = parseCard(JSON.parse(readFileSync(file, 'utf8')), file) as SftCard;
  const e = card.evaluation300;
  if (!e) throw new Error(`${file} has no evaluation300: run npx tsx scripts/cardEvaluation300.ts ${dir}`);
  const rate = (d: Decoding, k: 'success' | 'delivery') => {
    const i = e[d][`${k}Interval`];
    return { rate: e[d][k], lo: i.lo ?? NaN, hi: i.hi ?? NaN };
  };
  const tokens = card.pretrain?.tokens ?? 0;
  return {
    group,
    dir,
    preset: card.preset,
    parameters: card.parameters,
    pretrainTokens: tokens,
    pretrainTokensPerParameter: tokens / card.parameters,
    pretrainHours: (card.pretrain?.trainSeconds ?? 0) / 3600,
    sftSteps: card.sft.steps,
    sftHours: card.trainSeconds / 3600,
    success: { free: rate('free', 'success'), constrained: rate('constrained', 'success') },
    delivery: { free: rate('free', 'delivery'), constrained: rate('constrained', 'delivery') },
    ood: e.free.oodAccuracy,
    queries: e.free.queries,
  };
});

/** per group and decoding: success ordered s < m < l (point estimates), and s's interval below l's */
function calls(group: string, d: Decoding) {
  const by = (p: string) => rows.find((r) => r.group === group && r.preset === p);
  const [s, m, l] = [by('s'), by('m'), by('l')];
  if (!s || !m || !l)
    return {
      decoding: d,
      ordered: null,
      sAndLApart: null,
      sentence: `${group}, ${d} decoding: only ${[s, m, l]
        .filter(Boolean)
        .map((r) => r!.preset)
        .join(', ')} scored; no ordering call`,
    };
  const ordered = s.success[d].rate < m.success[d].rate && m.success[d].rate < l.success[d].rate;
  const sAndLApart = s.success[d].hi < l.success[d].lo;
  const pct = (r: Row) => `${(100 * r.success[d].rate).toFixed(1)}`;
  return {
    decoding: d,
    ordered,
    sAndLApart,
    sentence:
      `${group}, ${d} decoding: success s ${pct(s)} · m ${pct(m)} · l ${pct(l)} % — ` +
      `${ordered ? 'ordered s < m < l' : 'not ordered s < m < l'}; the intervals of s and l ${sAndLApart ? 'are apart' : 'overlap or are the wrong way round'}`,
  };
}

const groups = [...new Set(rows.map((r) => r.group))];
const table = {
  format: 'star-lab-scale-table/1',
  queries: rows[0].queries,
  rows,
  calls: groups.flatMap((g) => (['free', 'constrained'] as const).map((d) => calls(g, d))),
};
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'table.json'), JSON.stringify(table, null, 1) + '\n');

const pct = (x: { rate: number; lo: number; hi: number }) =>
  `${(100 * x.rate).toFixed(1)} [${(100 * x.lo).toFixed(1)}, ${(100 * x.hi).toFixed(1)}]`;
const md = [
  `| start | preset | parameters | pretrain tokens (per parameter) | SFT steps | hours pretrain + SFT (wall) | success free | success constrained | delivery free | delivery constrained | OOD tool-QA |`,
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.group} | ${r.preset} | ${(r.parameters / 1e6).toFixed(2)}M | ${r.pretrainTokens ? `${(r.pretrainTokens / 1e6).toFixed(2)}M (${r.pretrainTokensPerParameter.toFixed(1)})` : '—'} | ` +
      `${r.sftSteps} | ${r.pretrainTokens ? r.pretrainHours.toFixed(2) : '—'} + ${r.sftHours.toFixed(2)} | ${pct(r.success.free)} | ${pct(r.success.constrained)} | ${pct(r.delivery.free)} | ${pct(r.delivery.constrained)} | ${(100 * r.ood).toFixed(1)} |`,
  ),
  '',
  `Greedy, the first ${table.queries} validation queries of each card's grown split (the same queries for every preset), 95 % Wilson intervals; hours are each stage's wall time as its card records it (one wasm thread on a shared 2-core machine).`,
  '',
  ...table.calls.map((c) => `- ${c.sentence}`),
  '',
].join('\n');
writeFileSync(join(out, 'table.md'), md);
console.log(md);
