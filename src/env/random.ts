// The one seeded random source of the lab. pure-rand's xoroshiro128+ is small, fast, well tested
// and exposes its state, so an RNG can be checkpointed and resumed exactly ("every run
// is seeded"). Everything random in env/agent/rl draws from an `Rng`, never from Math.random.
import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

export class Rng {
  private gen: JumpableRandomGenerator;

  constructor(seed: number | readonly number[]) {
    // Small seeds (1, 2, 3…) give xoroshiro poor first outputs; a splitmix-style hash spreads them.
    this.gen = typeof seed === 'number' ? xoroshiro128plus(mixSeed(seed)) : xoroshiro128plusFromState(seed);
  }

  /** uniform in [0, 1) */
  next(): number {
    return uniformFloat64(this.gen);
  }

  /** uniform integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** uniform integer in [lo, hi] */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** true with probability p */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[this.int(items.length)];
  }

  /** Fisher–Yates, returns a new array */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** k distinct items in random order (k clipped to the list length) */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.min(k, items.length));
  }

  /** an independent child stream, e.g. one per query, so adding draws in one place does not shift another */
  fork(salt: number): Rng {
    return new Rng((this.int(0x7fffffff) ^ Math.imul(salt | 0, 0x9e3779b1)) | 0);
  }

  /** the full generator state, for checkpoints */
  getState(): number[] {
    return [...this.gen.getState()];
  }

  static fromState(state: readonly number[]): Rng {
    return new Rng(state);
  }
}

function mixSeed(seed: number): number {
  let z = (seed | 0) + 0x9e3779b9;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) | 0;
}
