// The bound on tfjs's webgpu buffer pool (src/model/kernels/bufferPool.ts) on tfjs's own BufferManager
// (tfjs-backend-webgpu 4.22's buffer_manager.js) over a stand-in device whose buffers record being destroyed:
// which buffers go (the least recently freed sizes first), what stays reusable, and that tfjs's counts stay
// true. On a real device (SwiftShader) test/node/nodeWebgpu.test.ts runs the lab's kernels under a bound.
import { describe, expect, it } from 'vitest';
import { BufferManager } from '@tensorflow/tfjs-backend-webgpu/dist/buffer_manager.js';
import { boundBufferPool, bufferPoolStats } from '../../src/model/kernels/bufferPool.ts';
import type { WebGPUBackend } from '../../src/model/kernels/webgpu.ts';

const STORAGE = 0x80;
type FakeBuffer = { size: number; usage: number; destroyed: boolean; destroy(): void };

function pool() {
  let created = 0;
  const device = {
    createBuffer: ({ size, usage }: { size: number; usage: number }): FakeBuffer => {
      created++;
      return { size, usage, destroyed: false, destroy() { this.destroyed = true; } };
    },
  };
  const manager = new BufferManager(device as unknown as GPUDevice);
  const backend = { bufferManager: manager } as unknown as WebGPUBackend;
  const acquire = (size: number) => manager.acquireBuffer(size, STORAGE) as unknown as FakeBuffer;
  const release = (b: FakeBuffer) => manager.releaseBuffer(b as unknown as GPUBuffer);
  return { manager, backend, acquire, release, created: () => created };
}

describe("the bound on tfjs's webgpu buffer pool", () => {
  it('tfjs alone keeps every freed size', () => {
    const p = pool();
    for (let size = 100; size <= 1000; size += 100) p.release(p.acquire(size));
    expect(p.manager.numBytesAllocated).toBe(5500);
    expect(p.manager.numBytesUsed).toBe(0);
  });

  it('destroys the least recently freed sizes past the cap, and keeps the rest reusable', () => {
    const p = pool();
    boundBufferPool(p.backend, { floorBytes: 250, peakFactor: 0 });
    const [a, b, c] = [p.acquire(100), p.acquire(101), p.acquire(102)];
    p.release(a);
    p.release(b);
    expect(a.destroyed || b.destroyed).toBe(false); // 201 free bytes: within the cap
    p.release(c); // 303 free: the longest free (a) goes
    expect([a.destroyed, b.destroyed, c.destroyed]).toEqual([true, false, false]);
    expect(p.manager.numBytesAllocated).toBe(203);
    expect(p.manager.getNumFreeBuffers()).toBe(2);
    const before = p.created();
    expect(p.acquire(101)).toBe(b); // still pooled: reused, not made again
    expect(p.created()).toBe(before);
    const again = p.acquire(100); // a's size was destroyed: made anew, and tfjs's lists still take it back
    expect(again).not.toBe(a);
    p.release(again);
    expect(bufferPoolStats(p.backend)).toMatchObject({ usedBytes: 101, allocatedBytes: 303, evictedBuffers: 1, evictedBytes: 100 });
  });

  it('a size freed again becomes the most recent, whatever order it was first freed in', () => {
    const p = pool();
    boundBufferPool(p.backend, { floorBytes: 330, peakFactor: 0 });
    const x = [p.acquire(100), p.acquire(100), p.acquire(110), p.acquire(120)];
    p.release(x[0]); // a 100 first…
    p.release(x[2]);
    p.release(x[1]); // …and again: 100 is now the most recent size
    p.release(x[3]); // 430 free: 110 goes, not the first-freed 100
    expect(x.map((b) => b.destroyed)).toEqual([false, false, true, false]);
  });

  it('follows the most bytes held at once (allocated ≤ held + that), and walks past emptied lists', () => {
    const p = pool();
    boundBufferPool(p.backend, { floorBytes: 0, peakFactor: 1 });
    const held = [p.acquire(300), p.acquire(200)]; // peak held 500
    held.forEach(p.release); // 500 free = the cap
    expect(p.manager.numBytesAllocated).toBe(500);
    let last: FakeBuffer | null = null;
    for (let size = 1; size <= 400; size++) { // every size new
      const b = (last = p.acquire(size));
      expect(p.manager.numBytesAllocated).toBeLessThanOrEqual(p.manager.numBytesUsed + 500);
      p.release(b);
      expect(p.manager.numBytesAllocated - p.manager.numBytesUsed).toBeLessThanOrEqual(500);
    }
    expect(held.every((b) => b.destroyed)).toBe(true); // the oldest went first
    const s = bufferPoolStats(p.backend);
    expect(s.capBytes).toBe(500);
    expect(last!.destroyed).toBe(false); // the most recently freed stays
    expect(s.freeBytes).toBeGreaterThanOrEqual(400);
  });
});
