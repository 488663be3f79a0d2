// A bound on tfjs's WebGPU buffer pool. tfjs-backend-webgpu 4.22's BufferManager (buffer_manager.js) keeps
// every GPUBuffer a disposed tensor freed, in free lists keyed by its exact byte size and usage, and never
// releases one (only the backend's dispose() does, with every live buffer too); sizes are not rounded and no
// WEBGPU_* flag limits it. The lab makes tensors of ever new sizes — each rollout's prompt and cache length,
// each micro-batch's padded length — so the pool grows with every shape a run meets: on the H200 the check
// held 8.9 MB of tensors at m with 8.6 GB allocated (results/gpu/2026-12-04). Here, once the free lists
// hold more than the cap, the least recently freed sizes are destroyed (GPUBuffer.destroy: the driver frees
// the memory once submitted work that used it is done), so allocated ≤ held + cap at every moment. The cap
// follows the most the lab held at once (a repeat of the largest phase is served from the pool), with a
// floor so that small steps do not churn. Installed wherever the webgpu backend starts: the page's worker
// (worker/backend.ts) and the CLI (node/nodeWebgpu.ts).
import type { WebGPUBackend } from './webgpu.ts';

/** the cap's floor: at most this many free bytes are kept whatever the held peak */
export const POOL_FLOOR_BYTES = 64 * 2 ** 20;
/** the cap as a multiple of the most bytes held at once (so allocated ≤ (1 + this) × peak held, above the floor) */
export const POOL_PEAK_FACTOR = 1;

/** the fields of tfjs's BufferManager this reads and keeps true (4.22; `private` there, hence this shape) */
interface BufferManager {
  freeBuffers: Map<string, GPUBuffer[]>;
  numFreeBuffers: number;
  numBytesUsed: number;
  numBytesAllocated: number;
  acquireBuffer(size: number, usage: number, mappedAtCreation?: boolean, reuse?: boolean): GPUBuffer;
  releaseBuffer(buffer: GPUBuffer, reuse?: boolean): void;
}

export interface PoolBound {
  floorBytes: number;
  peakFactor: number;
}

/** what the pool holds now: bytes in live tensors, allocated, free, and the bound's own counts */
export interface PoolStats {
  usedBytes: number;
  allocatedBytes: number;
  freeBytes: number;
  freeBuffers: number;
  /** distinct (size, usage) free lists holding a buffer */
  freeSizes: number;
  /** the most bytes held at once since resetPoolPeaks (else since the bound was installed) */
  peakUsedBytes: number;
  /** the most bytes allocated at once, likewise */
  peakAllocatedBytes: number;
  /** the free bytes kept at most now (null: no bound installed) */
  capBytes: number | null;
  /** buffers and bytes the bound destroyed so far */
  evictedBuffers: number;
  evictedBytes: number;
}

interface Installed {
  bound: PoolBound;
  /** the most bytes ever held at once: the cap follows it */
  peakUsed: number;
  /** the peaks since resetPoolPeaks */
  phasePeakUsed: number;
  peakAllocated: number;
  evictedBuffers: number;
  evictedBytes: number;
}
const installed = new WeakMap<BufferManager, Installed>();

const managerOf = (backend: WebGPUBackend): BufferManager =>
  (backend as unknown as { bufferManager: BufferManager }).bufferManager;
/** tfjs's free-list key (buffer_manager.js getBufferKey) */
const keyOf = (size: number, usage: number) => `${size}_${usage}`;
const capOf = (s: Installed) => Math.max(s.bound.floorBytes, s.bound.peakFactor * s.peakUsed);

/**
 * Bounds `backend`'s buffer pool (once per backend; a second call changes the bound). The least recently
 * freed sizes go first: the decode step's and the current micro-batch's sizes stay pooled, an old
 * prompt length's do not.
 */
export function boundBufferPool(
  backend: WebGPUBackend,
  bound: PoolBound = { floorBytes: POOL_FLOOR_BYTES, peakFactor: POOL_PEAK_FACTOR },
): void {
  const manager = managerOf(backend);
  const known = installed.get(manager);
  if (known) {
    known.bound = bound;
    trim(manager, known);
    return;
  }
  const state: Installed = {
    bound,
    peakUsed: manager.numBytesUsed,
    phasePeakUsed: manager.numBytesUsed,
    peakAllocated: manager.numBytesAllocated,
    evictedBuffers: 0,
    evictedBytes: 0,
  };
  installed.set(manager, state);
  const acquire = manager.acquireBuffer.bind(manager);
  const release = manager.releaseBuffer.bind(manager);
  manager.acquireBuffer = (size, usage, mappedAtCreation, reuse) => {
    const buffer = acquire(size, usage, mappedAtCreation, reuse);
    state.peakUsed = Math.max(state.peakUsed, manager.numBytesUsed);
    state.phasePeakUsed = Math.max(state.phasePeakUsed, manager.numBytesUsed);
    state.peakAllocated = Math.max(state.peakAllocated, manager.numBytesAllocated);
    return buffer;
  };
  manager.releaseBuffer = (buffer, reuse = true) => {
    const key = keyOf(buffer.size, buffer.usage);
    release(buffer, reuse);
    const list = manager.freeBuffers.get(key);
    if (reuse && list) {
      manager.freeBuffers.delete(key);
      manager.freeBuffers.set(key, list);
    } // most recent last
    trim(manager, state);
  };
  trim(manager, state);
}

/** destroys the least recently freed buffers until the free bytes are within the cap */
function trim(manager: BufferManager, state: Installed): void {
  let excess = manager.numBytesAllocated - manager.numBytesUsed - capOf(state);
  if (excess <= 0) return;
  const emptied: [string, GPUBuffer[]][] = [];
  for (const [key, list] of manager.freeBuffers) {
    if (excess <= 0) break;
    while (excess > 0 && list.length) {
      const buffer = list.shift()!; // the longest free of its size (acquire pops the newest)
      excess -= buffer.size;
      manager.numFreeBuffers--;
      manager.numBytesAllocated -= buffer.size;
      state.evictedBuffers++;
      state.evictedBytes += buffer.size;
      buffer.destroy();
    }
    if (!list.length) emptied.push([key, list]);
  }
  // emptied lists move to the back (after the walk, which would otherwise meet them again), so the next trim
  // does not walk past them; tfjs needs the keys kept: releaseBuffer pushes onto the list its acquireBuffer made
  for (const [key, list] of emptied) { manager.freeBuffers.delete(key); manager.freeBuffers.set(key, list); }
}

/** the pool of `backend` now */
export function bufferPoolStats(backend: WebGPUBackend): PoolStats {
  const manager = managerOf(backend);
  const state = installed.get(manager);
  let freeBuffers = 0;
  let freeSizes = 0;
  for (const list of manager.freeBuffers.values()) { freeBuffers += list.length; if (list.length) freeSizes++; }
  return {
    usedBytes: manager.numBytesUsed,
    allocatedBytes: manager.numBytesAllocated,
    freeBytes: manager.numBytesAllocated - manager.numBytesUsed,
    freeBuffers,
    freeSizes,
    peakUsedBytes: state?.phasePeakUsed ?? manager.numBytesUsed,
    peakAllocatedBytes: state?.peakAllocated ?? manager.numBytesAllocated,
    capBytes: state ? capOf(state) : null,
    evictedBuffers: state?.evictedBuffers ?? 0,
    evictedBytes: state?.evictedBytes ?? 0,
  };
}

/** restarts the peaks of bufferPoolStats at what is held and allocated now (a phase's own peaks; the cap
 *  still follows the most ever held). Does nothing where no bound is installed. */
export function resetPoolPeaks(backend: WebGPUBackend): void {
  const manager = managerOf(backend);
  const state = installed.get(manager);
  if (!state) return;
  state.phasePeakUsed = manager.numBytesUsed;
  state.peakAllocated = manager.numBytesAllocated;
}
