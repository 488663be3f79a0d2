// The veRL job's data files (cli/verlJob.ts): one parquet row per query in veRL's multi-turn tool layout
// (examples/data_preprocess/gsm8k_multiturn_w_tool.py).
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import { TOOL_NAMES } from '../../env/tools.ts';
import { toTravelPlannerQuery } from '../../env/interop/submission.ts';
import type { Query } from '../../env/types.ts';
import { DATA_SOURCE, VERL_VERSION } from './target.ts';
import { systemPrompt } from './toolsAndPrompt.ts';

export interface VerlRow {
  data_source: string;
  prompt: { role: string; content: string }[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    index: bigint;
    split: string;
    need_tools_kwargs: boolean;
    tools_kwargs: Record<string, { create_kwargs: { split: string; index: bigint } }>;
  };
  agent_name: string;
}

export function verlRows(queries: readonly Query[], split: 'train' | 'validation'): VerlRow[] {
  const system = systemPrompt();
  return queries.map((q, i) => ({
    data_source: DATA_SOURCE,
    prompt: [{ role: 'system', content: system }, { role: 'user', content: q.query }],
    ability: 'travel-planning',
    reward_model: { style: 'rule', ground_truth: JSON.stringify(toTravelPlannerQuery(q, i + 1)) },
    extra_info: {
      index: BigInt(i),
      split,
      need_tools_kwargs: true,
      tools_kwargs: Object.fromEntries(TOOL_NAMES.map((t) => [t, { create_kwargs: { split, index: BigInt(i) } }])),
    },
    agent_name: 'tool_agent',
  }));
}

const str = (name: string): SchemaElement => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: 'OPTIONAL',
});
const int64 = (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
const group = (name: string, children: number, extra: Partial<SchemaElement> = {}): SchemaElement => ({
  name,
  repetition_type: 'OPTIONAL',
  num_children: children,
  ...extra,
});

/** The parquet schema (Arrow's layout: prompt a 3-level LIST of structs, the rest nested structs). */
export function verlSchema(): SchemaElement[] {
  const tools = TOOL_NAMES.flatMap((t) => [group(t, 1), group('create_kwargs', 2), str('split'), int64('index')]);
  return [
    { name: 'schema', num_children: 6 },
    str('data_source'),
    group('prompt', 1, { converted_type: 'LIST' }),
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    group('element', 2),
    str('role'),
    str('content'),
    str('ability'),
    group('reward_model', 2),
    str('style'),
    str('ground_truth'),
    group('extra_info', 4),
    int64('index'),
    str('split'),
    { name: 'need_tools_kwargs', type: 'BOOLEAN', repetition_type: 'OPTIONAL' },
    group('tools_kwargs', TOOL_NAMES.length),
    ...tools,
    str('agent_name'),
  ];
}

export const PARQUET_COLUMNS = [
  'data_source',
  'prompt',
  'ability',
  'reward_model',
  'extra_info',
  'agent_name',
] as const;

export function parquetOf(rows: readonly VerlRow[]): Uint8Array {
  if (rows.length === 0) throw new Error('a parquet file needs at least one row');
  // key order inside each struct must follow the schema
  const ordered = rows.map((r) => ({
    ...r,
    reward_model: { style: r.reward_model.style, ground_truth: r.reward_model.ground_truth },
    extra_info: {
      index: r.extra_info.index,
      split: r.extra_info.split,
      need_tools_kwargs: r.extra_info.need_tools_kwargs,
      tools_kwargs: Object.fromEntries(
        TOOL_NAMES.map((t) => [
          t,
          {
            create_kwargs: {
              split: r.extra_info.tools_kwargs[t].create_kwargs.split,
              index: r.extra_info.tools_kwargs[t].create_kwargs.index,
            },
          },
        ]),
      ),
    },
  }));
  const buffer = parquetWriteBuffer({
    columnData: PARQUET_COLUMNS.map((name) => ({ name, data: ordered.map((r) => r[name]) })),
    schema: verlSchema(),
    kvMetadata: [{ key: 'star-lab', value: `export-job --engine verl (veRL ${VERL_VERSION} multi-turn tool layout)` }],
  });
  return new Uint8Array(buffer);
}
