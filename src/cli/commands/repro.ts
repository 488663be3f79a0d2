// `npm run repro -- sft <preset>`: reruns a shipped checkpoint's SFT exactly as its card's `command`
// says, into a fresh folder, and compares the new card with the shipped one (weights SHA-256, final
// loss, both evaluations, the verdict check). The long checks live here, not in `npm test`:
// a shipped SFT run takes the better part of an hour of one core.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { readCard, readCheckpointDir, readPretrainDir } from '../../node/checkpointDir.ts';
import { formatDuration } from '../progress.ts';
import { comparisonTable, compareCards } from '../cardCompare.ts';
import { sftCommand } from './sft.ts';
import { pretrainCommand } from './pretrain.ts';
import { shellCommand, splitShellWords } from '../shellQuote.ts';

const KNOWN = ['checkpoint', 'out'];
const SFT_PREFIX = 'npm run cli -- sft ';
const PRETRAIN_PREFIX = 'npm run cli -- pretrain ';

export const reproCommand: Command = {
  name: 'repro',
  summary: "reruns a shipped checkpoint's SFT as its card says and compares the result with the card",
  help: `usage: npm run repro -- sft s|m|l [--checkpoint DIR] [--out DIR]

  sft s|m|l            the shipped SFT checkpoint of that preset (public/checkpoints/<preset>-tiny)
  --checkpoint DIR     another checkpoint folder to reproduce (its card's preset must match)
  --out DIR            where the rerun writes its checkpoint (default: a fresh folder in the system's temp folder);
                       rerunning into the same DIR resumes an interrupted rerun

Runs the card's \`command\` with --out replaced (when the card has a pretrain stage, first that stage's
command into OUT/pretrain, and the SFT with --from OUT/pretrain), then prints a table of the shipped and rerun figures
and a verdict: identical (same weights, same evaluation) or differs. Exit code 0 only when identical.
Takes as long as the shipped run did (the card's trainSeconds + evalSeconds; tens of minutes).`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, [], KNOWN); // the positional words are the stage and preset, checked below
    const [stage, preset, ...rest] = positional;
    if (stage !== 'sft')
      throw new Error(
        `repro: what to reproduce? only "sft" exists so far (npm run repro -- sft s|m|l), got "${stage ?? ''}"`,
      );
    if (!preset || !['s', 'm', 'l'].includes(preset))
      throw new Error(`repro sft: a preset s, m or l, got "${preset ?? ''}"`);
    if (rest.length > 0) throw new Error(`unexpected argument "${rest[0]}"`);
    const dir = flagText(flags, 'checkpoint', join('public', 'checkpoints', `${preset}-tiny`));

    // the shipped checkpoint must itself be whole: comparing against a damaged one means nothing
    const shipped = (await readCheckpointDir(dir)).card;
    if (shipped.preset !== preset) throw new Error(`${dir}/card.json is for preset ${shipped.preset}, not ${preset}`);
    const out = flagOptionalText(flags, 'out') ?? mkdtempSync(join(tmpdir(), `star-repro-${preset}-`));
    if (resolve(out) === resolve(dir))
      throw new Error('--out is the checkpoint being reproduced; choose another folder');
    if (existsSync(join(out, 'card.json')))
      throw new Error(`${out} already holds a finished checkpoint; choose another --out`);

    let sftArgs = [...rerunArgs(shipped.command, out), '--resume'];
    if (shipped.pretrain) { // both stages: the pretraining first, then the SFT from the rerun's own pretrain weights
      const ptOut = join(out, 'pretrain');
      const ptArgs = [...rerunArgs(shipped.pretrain.command, ptOut, PRETRAIN_PREFIX), '--resume'];
      console.error(
        `reproducing the pretrain stage of ${dir} (${shipped.pretrain.name}, ${formatDuration(shipped.pretrain.trainSeconds)} when shipped)\n  ` +
          shellCommand(PRETRAIN_PREFIX.trim(), ptArgs),
      );
      const ptCode = await pretrainCommand.run(ptArgs);
      if (ptCode !== 0) return ptCode;
      const pt = (await readPretrainDir(ptOut)).card;
      const same = pt.weights.sha256 === shipped.pretrain.sha256;
      console.log(
        `pretrain stage: weights ${same ? 'identical' : `differ (SHA-256 ${pt.weights.sha256.slice(0, 12)}… vs shipped ${shipped.pretrain.sha256.slice(0, 12)}…)`}`,
      );
      sftArgs = withFrom(sftArgs, ptOut);
    }
    console.error(
      `reproducing ${dir} (${shipped.name}, commit ${shipped.commit.slice(0, 12)}, ${shipped.backend}); the shipped run took ` +
        `${formatDuration(shipped.trainSeconds + shipped.evaluation.evalSeconds)}\n  ${shellCommand(SFT_PREFIX.trim(), sftArgs)}`,
    );
    const code = await sftCommand.run(sftArgs);
    if (code !== 0) return code;

    const rerun = readCard(out);
    const { rows, weightsSame, evaluationSame } = compareCards(shipped, rerun);
    console.log(`\n${comparisonTable(rows)}\n`);
    if (weightsSame && evaluationSame) {
      console.log(`identical: the rerun's weights and evaluation match ${dir}'s card exactly (rerun in ${out})`);
      return 0;
    }
    console.log(
      `differs: ${weightsSame ? 'same weights, but the evaluation' : evaluationSame ? 'the weights differ, the evaluation does not' : 'the weights and the evaluation'}` +
        ` (rows marked ≠); shipped at commit ${shipped.commit.slice(0, 12)} on ${shipped.backend}, rerun at ${rerun.commit.slice(0, 12)} on ${rerun.backend} (in ${out})`,
    );
    return 1;
  },
};

/** `args` with --from's value replaced by `from` (the rerun's own pretrain checkpoint) */
export function withFrom(args: readonly string[], from: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--from') i++;
    else if (!args[i].startsWith('--from=')) kept.push(args[i]);
  }
  return [...kept, '--from', from];
}

/** the arguments of a card's command (sft, or pretrain with its prefix), writing to `out` instead (and never resuming
 * the shipped folder) */
export function rerunArgs(command: string, out: string, prefix = SFT_PREFIX): string[] {
  if (!command.startsWith(prefix))
    throw new Error(`the card's command is not a ${prefix.trim().split(' ').pop()} command: "${command}"`);
  const args = splitShellWords(command.slice(prefix.length)); // cards write their command shell-quoted (shellQuote.ts)
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out') i++; // and its value
    else if (args[i].startsWith('--out=') || args[i] === '--resume' || args[i] === '--force') continue;
    else kept.push(args[i]);
  }
  return [...kept, '--out', out];
}
