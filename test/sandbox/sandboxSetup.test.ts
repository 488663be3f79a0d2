import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/lab/config.ts';
import { SHIPPED_SANDBOX, buildSandbox, sftValidationSize, specKey, trainingSandboxSpec } from '../../src/sandbox/sandboxSetup.ts';
import { sftJobOptions } from '../../src/worker/sftJob.ts';
import { rlEnvironment } from '../../src/rl/rlEnvironment.ts';
import { queryKey } from '../../src/env/queries.ts';

describe('trainingSandboxSpec: the world and split training uses', () => {
  it('RL from a shipped checkpoint: the card’s world and held-out sizes', () => {
    for (const scale of ['s', 'm', 'l'] as const) {
      const card = JSON.parse(readFileSync(`public/checkpoints/${scale}-tiny/card.json`, 'utf8'));
      expect({ size: card.world.size, seed: card.world.seed, validationSize: card.data.validationQueries, testSize: card.data.testQueries }).toEqual(SHIPPED_SANDBOX);
    }
    const spec = trainingSandboxSpec({ ...defaultConfig(), stage: 'rl', worldSize: 'standard', seed: 9 }, { kind: 'shipped' });
    expect(spec).toMatchObject({ size: 'tiny', seed: 1, validationSize: 100, testSize: 100 });
    // the worker's answer wins once it is read
    expect(trainingSandboxSpec(defaultConfig(), { kind: 'shipped', world: { size: 'small', seed: 4 } })).toMatchObject({ size: 'small', seed: 4 });
  });

  it('SFT, and RL from a stored SFT run: that world with the SFT job’s split sizes', () => {
    for (const worldSize of ['tiny', 'small', 'standard'] as const) {
      const config = { ...defaultConfig(), stage: 'sft' as const, worldSize, seed: 5 };
      expect(sftValidationSize(worldSize)).toBe(sftJobOptions(config).validationQueries);
      expect(trainingSandboxSpec(config, { kind: 'shipped' })).toMatchObject({ size: worldSize, seed: 5, testSize: 0 });
    }
    const rl = trainingSandboxSpec({ ...defaultConfig(), stage: 'rl' }, { kind: 'run', world: { size: 'small', seed: 7 } });
    expect(rl).toMatchObject({ size: 'small', seed: 7, validationSize: 32, testSize: 0 });
    // an unknown world (e.g. 'real') falls back to the config's
    expect(trainingSandboxSpec({ ...defaultConfig(), stage: 'rl', worldSize: 'small' }, { kind: 'run', world: { size: 'real', seed: 1 } }).size).toBe('small');
  });

  it('builds exactly the first queries of the validation split RL evaluates on', () => {
    const spec = { size: 'tiny', seed: 1, validationSize: 12, testSize: 10 } as const;
    const built = buildSandbox(spec);
    const env = rlEnvironment(
      { world: { size: 'tiny', seed: 1 }, data: { trainQueries: 4, validationQueries: 12, testQueries: 10, toolQa: 4, mix: [4, 3, 3] }, contextLength: 576 },
      { trainSize: 4, mix: [4, 3, 3] },
    );
    // RL's split is the card's queries then more drawn after its training split (grown to 300): the sandbox shows the card's
    expect(built.validation.map(queryKey)).toEqual(env.validation.slice(0, 12).map(queryKey));
    expect(env.validation).toHaveLength(300);
    expect(specKey(spec)).not.toBe(specKey({ ...spec, testSize: 0 }));
  });
});
