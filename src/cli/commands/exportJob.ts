import { mkdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { checkOutDirFree, makeOutDir, replaceDir } from '../outDir.ts';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagChoice, flagInt, flagOptionalText, flagText, rejectUnknownFlags } from '../envFlags.ts';
import { ignoredSettingLines, parseLabConfig } from '../labConfigArg.ts';
import { DATA_FLAG_HELP } from '../sandbox.ts';
import { ARPO_REFUSAL, ENGINES, STAGE_REFUSAL, buildVerlJob } from '../verlJob.ts';
import { VERL_VERSION } from '../verl/target.ts';
import { readCard, shippedCheckpointDir } from '../../node/checkpointDir.ts';
import { checkConfigAgainstStart, configAsTrained } from '../../rl/startConfig.ts';
import { generateWorld } from '../../env/world.ts';
import { buildDataset } from '../../env/queries.ts';
import { loadRealExamples, loadRealWorld } from '../../env/node/realData.ts';
import type { Query, World } from '../../env/types.ts';

export const exportJobCommand: Command = {
  name: 'export-job',
  summary: 'write an experiment as a runnable veRL job on real LLMs (Qwen2.5 1.5B/3B/7B)',
  help: `usage: npm run cli -- export-job --config '<hash or JSON>' --out DIR [--engine verl] [options]

Writes DIR so that \`bash DIR/run.sh\` trains the experiment with veRL ${VERL_VERSION} on a GPU machine:
data/train.parquet and data/val.parquet (veRL's multi-turn tool layout), database/ (the world in
TravelPlanner's layout), travelplanner_tools.py + tool_config.yaml (the six tools as veRL tools),
reward.py (the lab's evaluator and rewards as veRL's compute_score), run.sh and README.md.
See docs/verl-export.md.

  --config C        the lab config: the page's URL hash ('#scale=s&trainSize=100') or a JSON object
  --engine E        the engine to write for: verl (the default, and the only one)
  --out DIR         the folder to write; it must not exist or be empty, unless --force
  --force           replace an earlier export job in DIR: it is moved aside to DIR.replaced-<time>/, never
                    deleted; a DIR holding other files is refused even so
  --world W         generated (default: the lab run's world, its SFT start's: tiny, seed 1 for the shipped
                    checkpoints) or real: the world of TravelPlanner's 45 training queries, with those queries
                    (the first --validation of them, default 10, validate; up to trainSize of the rest train)
  --checkpoint DIR  the lab run's SFT start, whose world and preset the job takes (default
                    public/checkpoints/<scale>-tiny, as \`run\`)
  --world-size S    export a generated world of size S (tiny|small|standard) instead of the lab run's: then the
                    job and the lab run are different experiments, and the job's README says so
  --world-seed K    seed of the generated world and of its query splits (default: the lab run's, 1 for the shipped)
  --validation N    validation queries (default 100, the shipped checkpoints' split)
  --test N          test queries held out before the training split is drawn (default 100, as the checkpoints)
  --gpus N          trainer.n_gpus_per_node written into run.sh (default 8; run.sh --gpus overrides)
  --nodes N         trainer.nnodes written into run.sh (default 1; run.sh --nodes overrides)
  --lr X            veRL's learning rate (default: the config's learningRate if it is not the lab's default,
                    else 1e-6, veRL's GRPO recipe value for Qwen2.5-Instruct)
  ${DATA_FLAG_HELP}

The training queries are the config's (trainSize, mix), drawn as the lab's RL runs draw them: with a
tiny world and the defaults they are exactly the queries a lab run of the same config trains on.
ARPO cannot be exported (the command says why).`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(
      flags,
      positional,
      [
        'config',
        'engine',
        'out',
        'force',
        'world',
        'checkpoint',
        'world-size',
        'world-seed',
        'validation',
        'test',
        'gpus',
        'nodes',
        'lr',
        'data',
      ],
      ['force'],
    );
    // every check happens before anything is written
    // verl is the only engine: the flag stays so a second engine is a choice, not a change of the command line
    const engine = flags.get('engine') ?? ENGINES[0];
    if (engine === true) throw new Error(`--engine needs a value (one of: ${ENGINES.join(', ')})`);
    if (!(ENGINES as readonly string[]).includes(engine))
      throw new Error(`unknown engine "${engine}": export-job writes jobs for ${ENGINES.join(', ')}`);
    const lab = parseLabConfig(flagText(flags, 'config'));
    if (lab.algorithm === 'arpo') throw new Error(ARPO_REFUSAL);
    if (lab.stage !== 'rl') throw new Error(STAGE_REFUSAL(lab.stage));
    for (const line of ignoredSettingLines(lab)) console.error(line);
    const out = resolve(flagText(flags, 'out'));
    const force = flags.has('force');
    const worldKind = flagChoice(flags, 'world', ['generated', 'real'] as const, 'generated');
    // the lab run's world is its SFT start's (rlRun.ts): the job exports that one unless a flag names another
    const startDir = flagOptionalText(flags, 'checkpoint') ?? shippedCheckpointDir(lab.scale);
    const start = readCard(startDir);
    checkConfigAgainstStart(lab, start, startDir);
    if (worldKind === 'real' && (flags.has('world-size') || flags.has('world-seed')))
      throw new Error('--world real takes no --world-size or --world-seed');
    const worldSize = flagChoice(flags, 'world-size', ['tiny', 'small', 'standard'] as const, start.world.size);
    const worldSeed = flagInt(flags, 'world-seed', start.world.seed);
    const chosen = [
      flags.has('world-size') && worldSize !== start.world.size ? `--world-size ${worldSize}` : '',
      flags.has('world-seed') && worldSeed !== start.world.seed ? `--world-seed ${worldSeed}` : '',
    ].filter(Boolean);
    const worldNote =
      worldKind === 'real'
        ? undefined
        : chosen.length === 0
          ? `the lab run's world: its SFT start ${start.name}'s`
          : `chosen with ${chosen.join(' ')}: NOT the lab run's world (${start.world.size}, seed ${start.world.seed}), so this job is a different experiment from the lab run`;
    const validationSize = flagInt(flags, 'validation', 100, 1);
    const testSize = flagInt(flags, 'test', 100, 0);
    const gpus = flagInt(flags, 'gpus', 8, 1);
    const nodes = flagInt(flags, 'nodes', 1, 1);
    const lrText = flagOptionalText(flags, 'lr');
    const lr = lrText === undefined ? undefined : Number(lrText);
    if (lr !== undefined && !(Number.isFinite(lr) && lr > 0 && lr < 1))
      throw new Error(`--lr needs a number in (0, 1), got "${lrText}"`);
    checkOutDirFree(out, force);

    const started = performance.now();
    let world: World;
    let ds: { train: Query[]; validation: Query[] };
    if (worldKind === 'real') {
      // the real world is too small to draw new queries from: its own 45 queries, validation first
      const dataDir = flagOptionalText(flags, 'data');
      world = loadRealWorld(dataDir);
      const real = loadRealExamples(dataDir).map((e) => e.query);
      const v = flags.has('validation') ? validationSize : 10;
      if (v >= real.length)
        throw new Error(`--validation ${v} leaves no training query among the ${real.length} real ones`);
      ds = { validation: real.slice(0, v), train: real.slice(v, v + lab.trainSize) };
    } else {
      world = generateWorld(worldSize, worldSeed);
      ds = buildDataset(world, { size: lab.trainSize, mix: lab.mix, seed: worldSeed, validationSize, testSize });
    }
    const jobLab = worldKind === 'real' ? lab : configAsTrained(lab, { size: worldSize });
    const { files, plan } = buildVerlJob({
      lab: jobLab,
      world,
      train: ds.train,
      validation: ds.validation,
      gpus,
      nodes,
      lr,
      worldNote,
    });

    // write beside DIR, then move into place: a failure leaves DIR as it was
    const parent = dirname(out);
    makeOutDir(parent, `--out ${out}`);
    const staging = join(parent, `.${basename(out)}.export-job-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    try {
      for (const [rel, content] of files) {
        const path = join(staging, rel);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
      }
      chmodSync(join(staging, 'run.sh'), 0o755);
      const aside = replaceDir(staging, out);
      if (aside)
        console.error(
          `--force: moved the earlier job in ${out} aside to ${aside}; delete it yourself once it is not needed`,
        );
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      throw e;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `wrote ${files.size} files to ${out} in ${seconds} s: veRL ${VERL_VERSION} job, ${lab.algorithm.toUpperCase()} on ${plan.lab.scale} (${ds.train.length} train / ${ds.validation.length} validation queries, ${plan.world.label} world)`,
    );
    console.log(
      `learning rate ${plan.learningRate} (${plan.learningRateNote}); max_tool_response_length ${plan.lengths.maxToolResponse}, max_response_length ${plan.lengths.maxResponse}`,
    );
    console.log(`run it on a machine with veRL: bash ${join(out, 'run.sh')} --gpus N`);
    return 0;
  },
};
