// `run --dry-run`: what a run would do, then exit: the resolved config (each setting, the ones moved off their
// defaults marked, the ones this run ignores said), the world and checkpoint it starts from, what it trains and
// evaluates, what its --out folder holds, and its estimated time from the finished runs on this machine.
import { existsSync } from 'node:fs';
import { SETTING_KEYS, defaultConfig, unusedIn, type LabConfig } from '../lab/config.ts';
import { serializeHash } from '../lab/urlState.ts';
import { rlConfigFromLab } from '../rl/rlConfig.ts';
import { checkConfigAgainstStart, configAsTrained } from '../rl/startConfig.ts';
import { readCheckpointDir, shippedCheckpointDir } from '../node/checkpointDir.ts';
import { estimateRunTime, formatEstimate, formatEta, formatStepTime } from '../lab/runEstimate.ts';
import { findRunFolders, readRunFolder, stepSampleOf } from './runFolders.ts';
import type { NodeBackend } from '../node/nodeBackend.ts';

export interface DryRunOptions {
  lab: LabConfig;
  out: string;
  checkpoint?: string;
  backend: NodeBackend;
  /** folders whose finished runs time the estimate (default results/ and runs/) */
  timedFrom?: readonly string[];
}

const shown = (v: unknown) => (Array.isArray(v) ? v.join(':') : String(v));

export async function dryRunText(o: DryRunOptions): Promise<string> {
  const dir = o.checkpoint ?? shippedCheckpointDir(o.lab.scale);
  const ckpt = await readCheckpointDir(dir);
  checkConfigAgainstStart(o.lab, ckpt.card, dir);
  const lab = configAsTrained(o.lab, ckpt.card.world);
  const rl = rlConfigFromLab(lab);
  const defaults = defaultConfig();
  const lines = [`dry run: nothing is trained or written`, '', `config ${serializeHash(lab) || '(every setting at its default)'}`];
  const wn = Math.max(...SETTING_KEYS.map((k) => k.length));
  for (const k of SETTING_KEYS) {
    const moved = JSON.stringify(lab[k]) !== JSON.stringify(defaults[k]);
    const unused = unusedIn(k, lab);
    lines.push(`  ${moved ? '*' : ' '} ${k.padEnd(wn)}  ${shown(lab[k]).padEnd(12)}${unused ? `  (not read: ${unused})` : ''}`);
  }
  lines.push('  (* moved off its default; npm run cli -- settings says what each does)', '');
  lines.push(`world      the ${ckpt.card.world.size} world, seed ${ckpt.card.world.seed} (its start's: the checkpoint decides it)`);
  lines.push(`checkpoint ${ckpt.card.name} in ${dir} (preset ${ckpt.card.preset}, weights SHA-256 ${ckpt.card.weights.sha256.slice(0, 16)}…)`);
  lines.push(
    `trains     ${rl.steps} ${rl.steps === 1 ? 'step' : 'steps'} of ${rl.algorithm.toUpperCase()} with the ${rl.reward} reward, ` +
      `${rl.queriesPerStep} ${rl.queriesPerStep === 1 ? 'query' : 'queries'} × ${rl.groupSize} rollouts a step, on ${o.backend}`,
  );
  lines.push(`evaluates  at step 0, every ${rl.evalEvery} steps and at the end, on ${rl.evalQueries} validation queries + ${rl.evalToolQa} unseen tool-QA tasks (${rl.planDecoding} decoding)`);
  const held = existsSync(o.out) ? readRunFolder(o.out) : null;
  lines.push(
    `--out      ${o.out}: ${!existsSync(o.out) ? 'new' : held?.status.kind === 'finished' ? `holds a finished run (${held.summary?.steps} steps): --resume ${(held.summary?.steps ?? Infinity) < rl.steps ? `extends it to ${rl.steps} (from the final state it kept: a --no-policy run kept none)` : 'keeps it'}, --force replaces it` : held?.status.kind === 'unfinished' ? `holds an unfinished run: --resume continues it` : 'exists'}`,
  );
  // the newest finished runs on this backend, of this scale where there are some (their metric lines are read)
  const finished = (o.timedFrom ?? ['results', 'runs']).filter((d) => existsSync(d)).flatMap((d) => findRunFolders(d))
    .filter((r) => r.summary?.backend === o.backend);
  const sameScale = finished.filter((r) => r.summary?.lab.scale === lab.scale);
  const samples = (sameScale.length > 0 ? sameScale : finished)
    .sort((a, b) => String(b.summary?.finishedAt).localeCompare(String(a.summary?.finishedAt)))
    .slice(0, 40).flatMap((r) => stepSampleOf(r) ?? []);
  const estimate = estimateRunTime(lab, samples);
  lines.push(
    estimate
      ? `estimate   about ${formatEstimate(estimate.ms)} here: ${estimate.steps} steps × ${formatStepTime(estimate.stepMs)} + ${estimate.evaluations} evaluations × ${formatStepTime(estimate.evalMs)}` +
          `${estimate.startMeasured ? ` + ${formatEta(estimate.startMs)} to start` : ''} (scaled from ${samples.length} finished ${o.backend} runs under ${(o.timedFrom ?? ['results', 'runs']).join(', ')}; their machines may differ from this one)`
      : `estimate   none: no finished ${o.backend} run under ${(o.timedFrom ?? ['results', 'runs']).join(', ')} to time it from`,
  );
  return lines.join('\n');
}
