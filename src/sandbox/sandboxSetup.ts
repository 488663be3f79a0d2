// Which world and query split the Sandbox view shows: the ones training uses, so a person plays on
// the same database and the same validation queries the lab scores its runs on. RL trains on its
// starting point's world (rlEnvironment: the SFT checkpoint's world and its validation split); SFT
// trains on the config's world. RL's validation split is grown to 300 (rlEnvironment), and its first
// queries are these: the sandbox shows the card's own split, not the extension drawn after the
// training split (that would mean generating the whole training split here). The split sizes mirror
// what the worker builds: a shipped card's
// `data` (validation 100 after a test split of 100) and sftJobOptions (no test split); a unit test
// holds these numbers to the card and to sftJobOptions, so they cannot drift apart silently.
import type { LabConfig } from '../lab/config.ts';
import type { Query, World, WorldSize } from '../env/types.ts';
import { generateWorld } from '../env/world.ts';
import { buildDataset } from '../env/queries.ts';

export const WORLD_SIZE_CHOICES: readonly WorldSize[] = ['tiny', 'small', 'standard'];

/** the shipped SFT checkpoints' world and held-out split sizes (public/checkpoints/*-tiny/card.json) */
export const SHIPPED_SANDBOX = { size: 'tiny', seed: 1, validationSize: 100, testSize: 100 } as const;

/** the SFT job's validation queries per world size (sftJobOptions: tiny 2, else 32; no test split) */
export function sftValidationSize(size: WorldSize): number {
  return size === 'tiny' ? 2 : 32;
}

export interface SandboxSpec {
  size: WorldSize;
  seed: number;
  /** the held-out splits as the training job draws them (validation depends on the test split drawn first) */
  validationSize: number;
  testSize: number;
  /** where this world comes from, in words */
  origin: string;
}

/** the starting point as the page knows it: its kind and, once the worker has read it, its world */
export interface StartingWorld {
  kind: 'shipped' | 'run';
  world?: { size: string; seed: number } | null;
}

export function isWorldSize(s: string): s is WorldSize {
  return (WORLD_SIZE_CHOICES as readonly string[]).includes(s);
}

/** The world and validation split the configured training run uses. */
export function trainingSandboxSpec(config: LabConfig, start: StartingWorld): SandboxSpec {
  if (config.stage === 'rl') {
    const w = start.world;
    if (start.kind === 'shipped') {
      const size = w && isWorldSize(w.size) ? w.size : SHIPPED_SANDBOX.size;
      const seed = w?.seed ?? SHIPPED_SANDBOX.seed;
      return {
        size,
        seed,
        validationSize: SHIPPED_SANDBOX.validationSize,
        testSize: SHIPPED_SANDBOX.testSize,
        origin: `the shipped ${config.scale} checkpoint's world (RL starts there)`,
      };
    }
    if (w && isWorldSize(w.size)) {
      return {
        size: w.size,
        seed: w.seed,
        validationSize: sftValidationSize(w.size),
        testSize: 0,
        origin: "the starting SFT run's world (RL starts there)",
      };
    }
  }
  return {
    size: config.worldSize,
    seed: config.seed,
    validationSize: sftValidationSize(config.worldSize),
    testSize: 0,
    origin:
      config.stage === 'rl'
        ? "the config's world (the starting run's world is not read yet)"
        : "the config's world (SFT trains there)",
  };
}

export interface SandboxData {
  world: World;
  validation: Query[];
}

/** Builds the world and its validation split (the slow part: call once per spec, never in a reactive loop). */
export function buildSandbox(spec: Pick<SandboxSpec, 'size' | 'seed' | 'validationSize' | 'testSize'>): SandboxData {
  const world = generateWorld(spec.size, spec.seed);
  const { validation } = buildDataset(world, {
    size: 0,
    mix: [4, 3, 3],
    seed: spec.seed,
    validationSize: spec.validationSize,
    testSize: spec.testSize,
  });
  return { world, validation };
}

/** a key that changes exactly when the built sandbox would */
export function specKey(spec: Pick<SandboxSpec, 'size' | 'seed' | 'validationSize' | 'testSize'>): string {
  return `${spec.size}|${spec.seed}|${spec.validationSize}|${spec.testSize}`;
}
