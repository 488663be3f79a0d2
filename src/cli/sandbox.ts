// What the sandbox commands share: building the world a command names (generated or real).
import type { World, WorldSource } from '../env/types.ts';
import { generateWorld } from '../env/world.ts';
import { loadRealWorld } from '../env/node/realData.ts';

/** A generated world of `size` and `seed`, or the real one (`dataDir`: the TravelPlanner data folder). */
export function makeWorld(source: WorldSource, seed: number, dataDir?: string): World {
  return source === 'real' ? loadRealWorld(dataDir) : generateWorld(source, seed);
}

export const DATA_FLAG_HELP = `--data DIR    the real TravelPlanner data folder (default: $STAR_TRAVELPLANNER_DATA, else the repository's data/travelplanner)`;
