// An RL run's config against its start checkpoint. RL trains in its start's world, at its
// preset: the World size setting cannot change that, so the config a run records is the one it trained
// (the page's worker and the CLI both record it this way), and a config that contradicts the start is
// refused with the reason rather than recorded as if it had been trained.
import { defaultConfig, type LabConfig } from '../lab/config.ts';
import { serializeHash } from '../lab/urlState.ts';

type WorldSize = LabConfig['worldSize'];

/** the config as an RL run from a start in `world` trains it: its World size is the start's (a LabConfig, or a
 *  stored run's config record) */
export function configAsTrained<C extends object>(config: C, world: { size: WorldSize }): C {
  return { ...config, worldSize: world.size };
}

/** an RL run's identity with the World size left out (the start decides it): a run recorded before its world was
 *  recorded, and one recorded after, of the same config compare equal */
export function rlRunKey(lab: LabConfig): string {
  return serializeHash({ ...lab, worldSize: defaultConfig().worldSize });
}

/**
 * Throws, saying why and what to do, when `lab` cannot be what an RL run from `start` trains: an SFT config
 * (stage=sft), another scale than the start's preset, or a World size other than the start's (the default,
 * standard, counts as not given, as a link without worldSize reads).
 */
export function checkConfigAgainstStart(
  lab: LabConfig,
  start: { name: string; preset: string; world: { size: WorldSize; seed: number } },
  where: string,
): void {
  const problems: string[] = [];
  if (lab.stage !== 'rl')
    problems.push(
      `stage=${lab.stage}: this command trains RL from an SFT checkpoint; an SFT run is \`npm run cli -- sft\``,
    );
  if (lab.scale !== start.preset) {
    problems.push(
      `scale=${lab.scale}, but the start ${start.name} (${where}) is preset ${start.preset}: set scale=${start.preset}, or start from the ${lab.scale} checkpoint`,
    );
  }
  const given = lab.worldSize !== defaultConfig().worldSize;
  if (given && lab.worldSize !== start.world.size) {
    problems.push(
      `worldSize=${lab.worldSize}, but RL trains in its start's world: ${start.name} was trained on the ${start.world.size} world (seed ${start.world.seed}); leave worldSize out or set it to ${start.world.size}`,
    );
  }
  if (problems.length > 0)
    throw new Error(
      `the config contradicts its start checkpoint (nothing was written):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
}
