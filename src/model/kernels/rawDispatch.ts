// One compute dispatch that writes more than one buffer, recorded into tfjs-backend-webgpu's own command
// stream. tfjs's programs bind every input read-only and write one output, so a kernel that must also
// update tensors it reads (a decode step's attention writing the fresh key and value rows into the cache
// before it reads the cache) would take extra dispatches there. This records the dispatch the way the
// backend's recordAndSubmit does (same encoder and compute pass, same batching of submits, same deferred
// release of the buffers it touches), with a WGSL source that declares its own bindings. Tensors bound
// read_write are written in place: the caller makes sure nothing else shares their memory.
import * as tf from '@tensorflow/tfjs';
import type { WebGPUBackend } from './webgpu.ts';

type Uniform = { type: 'int32' | 'float32'; data: number[] };

/** what of WebGPUBackend this reaches into (tfjs-backend-webgpu 4.22's recordAndSubmit) */
interface BackendInternals {
  device: GPUDevice;
  commandEncoder: GPUCommandEncoder | null;
  computePassEncoder: GPUComputePassEncoder | null;
  dispatchCountInPass: number;
  commandQueueOwnedIds: WeakSet<object>;
  tensorMap: { get(dataId: object): { resource: GPUBuffer | null } | undefined };
  uploadToGPU(dataId: object): void;
  makeUniforms(u: Uniform[]): GPUBufferBinding;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
}

const pipelines = new WeakMap<GPUDevice, Map<string, GPUComputePipeline>>();
/** backends whose internals were found as this file expects (a tfjs upgrade fails loudly, once) */
const checked = new WeakSet<object>();
const listeners: ((key: string) => void)[] = [];

/** calls `listener` with the key of every raw dispatch from now on: the dispatch counters, which otherwise
 *  see tfjs's programs only (WebGPUBackend.runWebGPUProgram / recordAndSubmit) */
export function onRawDispatch(listener: (key: string) => void): void {
  listeners.push(listener);
}

/**
 * Records one dispatch of `workgroups` workgroups of `source`, whose bindings 0..n−1 are `buffers` in order and
 * binding n the `uniforms` (tfjs's packing: scalars in order). `key` names the source for the pipeline cache.
 */
export function dispatchRaw(
  webgpu: WebGPUBackend,
  o: { key: string; source: string; buffers: tf.TensorInfo[]; uniforms: Uniform[]; workgroups: number },
): void {
  const b = webgpu as unknown as BackendInternals;
  if (!checked.has(b)) {
    for (const f of ['uploadToGPU', 'makeUniforms', 'ensureCommandEncoderReady', 'endComputePassEncoder', 'submitQueue']) {
      if (typeof (b as unknown as Record<string, unknown>)[f] !== 'function' || !b.tensorMap || !b.device) {
        throw new Error(`${o.key}: the webgpu backend has no ${f} (this was written against tfjs-backend-webgpu 4.22)`);
      }
    }
    checked.add(b);
  }
  const limit = b.device.limits.maxComputeWorkgroupsPerDimension;
  if (o.workgroups > limit) throw new Error(`${o.key}: ${o.workgroups} workgroups, more than the device's ${limit}`);
  let cache = pipelines.get(b.device);
  if (!cache) pipelines.set(b.device, (cache = new Map()));
  let pipeline = cache.get(o.key);
  if (!pipeline) {
    const module = b.device.createShaderModule({ code: o.source, label: o.key });
    pipeline = b.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    cache.set(o.key, pipeline);
  }
  const entries: GPUBindGroupEntry[] = o.buffers.map((t, i) => {
    b.uploadToGPU(t.dataId);
    const resource = b.tensorMap.get(t.dataId)?.resource;
    if (!resource) throw new Error(`${o.key}: binding ${i} has no GPU buffer`);
    b.commandQueueOwnedIds.add(t.dataId); // released only after the submit that uses it
    return { binding: i, resource: { buffer: resource } };
  });
  entries.push({ binding: o.buffers.length, resource: b.makeUniforms(o.uniforms) });
  const bindGroup = b.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
  b.ensureCommandEncoderReady();
  if (!b.computePassEncoder) b.computePassEncoder = b.commandEncoder!.beginComputePass({});
  b.computePassEncoder.setPipeline(pipeline);
  b.computePassEncoder.setBindGroup(0, bindGroup);
  b.computePassEncoder.dispatchWorkgroups(o.workgroups, 1, 1);
  b.dispatchCountInPass++;
  for (const listener of listeners) listener(o.key);
  if (Number(tf.env().get('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE')) <= b.dispatchCountInPass) {
    b.endComputePassEncoder();
    b.submitQueue();
  }
}
