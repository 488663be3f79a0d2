// The committed runs' records say the world they trained: an RL run trains its SFT start's world whatever its config
// said, so each summary.json under results/findings/runs names its start's world (the checkpoint's card) in
// lab.worldSize, its hash and world; a record corrected after the fact says so in a note. Reads files only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseHash } from '../../src/lab/urlState.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const runs = join(root, 'results/findings/runs');

interface Summary {
  hash: string;
  lab: { worldSize: string };
  world?: { size: string; seed: number };
  checkpoint: string;
  note?: string;
}

describe('the committed run records', () => {
  it("name the world each run trained, its start's, in lab, hash and world", () => {
    const cards = new Map<string, { world: { size: string; seed: number } }>();
    const dirs = readdirSync(runs).filter((d) => existsSync(join(runs, d, 'summary.json')));
    expect(dirs.length).toBeGreaterThanOrEqual(427);
    const wrong: string[] = [];
    for (const d of dirs) {
      const s = JSON.parse(readFileSync(join(runs, d, 'summary.json'), 'utf8')) as Summary;
      if (!cards.has(s.checkpoint))
        cards.set(s.checkpoint, JSON.parse(readFileSync(join(root, 'public/checkpoints', s.checkpoint, 'card.json'), 'utf8')));
      const world = cards.get(s.checkpoint)!.world;
      const said = [s.lab.worldSize, parseHash(s.hash).config.worldSize, s.world?.size, s.world?.seed];
      if (JSON.stringify(said) !== JSON.stringify([world.size, world.size, world.size, world.seed]))
        wrong.push(`${d}: ${said.join(' / ')}, its start ${s.checkpoint} trained ${world.size} (seed ${world.seed})`);
      if (s.note !== undefined) expect(s.note, d).toMatch(/^Corrected \d{4}-\d\d-\d\d, in place: .* every other field is as the run wrote it\.$/);
    }
    expect(wrong).toEqual([]);
  });
});
