// Scale l at the default group (4 queries × 8 rollouts) trains on wasm in Node: before the
// token-budgeted micro-batches, `cli run --config '#scale=l&reward=sum&steps=1'` printed `Aborted()` (a
// mini-batch of 16 rows padded to ~576 tokens overflowed the wasm heap). One step, evaluation cut to a
// query and a tool-QA task to keep the test short. A run that ran out of memory resumes with a smaller
// micro-batch budget: the resume fingerprint ignores it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumeFingerprint, runRl } from '../../src/cli/rlRun.ts';
import { defaultConfig, type LabConfig } from '../../src/lab/config.ts';
import { rlConfigFromLab } from '../../src/rl/rlConfig.ts';

describe('cli run at scale l', () => {
  it('runs one RL step of 4 × 8 rollouts on wasm', async () => {
    const out = mkdtempSync(join(tmpdir(), 'star-rl-l-'));
    const lab: LabConfig = { ...defaultConfig(), scale: 'l', reward: 'sum', steps: 1, evalQueries: 1, evalToolQa: 1, evalSamples: 0 };
    expect([lab.queriesPerStep, lab.groupSize]).toEqual([4, 8]); // the page's default group
    try {
      const s = await runRl({ lab, out, resume: false, backend: 'wasm', quiet: true, keepPolicy: false });
      expect(s.steps).toBe(1);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 600_000);

  it('the resume fingerprint ignores the micro-batch budget, not the update', () => {
    const lab = defaultConfig();
    const fp = (l: LabConfig) => resumeFingerprint(l, rlConfigFromLab(l), 'sha', 'wasm');
    expect(fp({ ...lab, microBatchTokens: 512 })).toBe(fp(lab));
    expect(fp({ ...lab, learningRate: 2e-4 })).not.toBe(fp(lab));
  });
});
