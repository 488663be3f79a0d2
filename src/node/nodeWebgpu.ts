// tfjs's `webgpu` backend in Node, through Dawn's Node bindings (the optional npm package `webgpu`):
// the same tfjs-backend-webgpu kernels, and the lab's fused ones (src/model/kernels), as the page.
// Nothing here is loaded unless a command asks for `--backend webgpu` (everything heavy is a dynamic
// import), and each thing that can be missing says so: the package, the Vulkan loader, a driver.
//
// On Linux Dawn drives the GPU through Vulkan: it dlopen()s the loader (libvulkan.so.1), which reads
// the driver files (ICDs). Two things make that work on machines that were not set up for it:
//   - the loader: the system's, else Chromium's copy (/usr/lib/chromium/libvulkan.so.1). glibc reads
//     LD_LIBRARY_PATH only at process start, so a loader outside the library path is loaded here first,
//     RTLD_GLOBAL | RTLD_NODELETE, through process.dlopen: Dawn's own dlopen("libvulkan.so.1") then finds
//     it loaded by its soname. (process.dlopen then throws "did not self-register": it is no Node addon.)
//   - the driver: the loader's own search first (a desktop's GPU), then NVIDIA's file in the place
//     NVIDIA's container toolkit mounts it, then Chromium's SwiftShader (a CPU Vulkan: slow, but
//     the same shaders, so CI tests this path with it). Debian's lavapipe is refused by Dawn.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { boundBufferPool } from '../model/kernels/bufferPool.ts';
import type { WebGPUBackend } from '../model/kernels/webgpu.ts';

/** the adapter a run used, as summary.json and the GPU check record it */
export interface WebgpuAdapterInfo {
  vendor: string;
  architecture: string;
  description: string;
  /** true for a software or otherwise degraded adapter (SwiftShader says it is) */
  isFallbackAdapter: boolean;
  /** the Vulkan driver file used (null: the loader's own search, or not Linux) */
  driverFile: string | null;
  /** the Vulkan loader used (null: not Linux) */
  vulkanLoader: string | null;
}

/** a Vulkan loader to use instead of the system's (a path to libvulkan.so.1) */
export const VULKAN_LOADER_ENV = 'STAR_VULKAN_LOADER';
/** dawn.node to load instead of the `webgpu` package's (the GPU check's pack carries its own) */
export const DAWN_NODE_ENV = 'STAR_DAWN_NODE';
/** `software`: skip the GPU and use SwiftShader; `hardware`: refuse a fallback adapter */
export const WEBGPU_ADAPTER_ENV = 'STAR_WEBGPU_ADAPTER';

export const CHROMIUM_VULKAN_LOADER = '/usr/lib/chromium/libvulkan.so.1';
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
/** where NVIDIA's container toolkit puts the driver's Vulkan ICD (the loader does not look there) */
export const NVIDIA_ICD_DIR = '/usr/local/nvidia/share/vulkan/icd.d';

const RTLD_NOW = 2;
const RTLD_GLOBAL = 0x100;
const RTLD_NODELETE = 0x1000; // glibc's value; Node 20's os.constants.dlopen does not list it

/** GPUAdapter.info (Dawn has it; this @webgpu/types version does not list it) */
const infoOf = (adapter: GPUAdapter) =>
  (adapter as GPUAdapter & { info: GPUAdapterInfo & { isFallbackAdapter?: boolean } }).info;

type DawnModule = { create: (options: string[]) => GPU; globals: Record<string, unknown> };

let started: WebgpuAdapterInfo | null = null;

/** the adapter the webgpu backend runs on in this process, or null when it was not started */
export function nodeWebgpuAdapter(): WebgpuAdapterInfo | null {
  return started;
}

/** Gives this process a `navigator.gpu` from Dawn on the best adapter found, then starts tfjs's webgpu
 *  backend on it. Throws, saying what is missing, when it cannot. */
export async function startNodeWebgpu(): Promise<WebgpuAdapterInfo> {
  if (started) return started;
  const tf = await import('@tensorflow/tfjs');
  const loader = process.platform === 'linux' ? loadVulkanLoader() : null;
  const dawn = await loadDawn();
  Object.assign(globalThis, dawn.globals); // GPUBufferUsage, GPUMapMode, … which tfjs reads as globals
  const { gpu, adapter, driverFile } = await pickAdapter(dawn);
  const info = infoOf(adapter);
  const fallback =
    info.isFallbackAdapter === true ||
    (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
  if (fallback && process.env[WEBGPU_ADAPTER_ENV] === 'hardware') {
    throw new Error(
      `the only WebGPU adapter is a fallback one (${info.description || info.vendor}); ${WEBGPU_ADAPTER_ENV}=hardware refuses it`,
    );
  }
  // tfjs-backend-webgpu registers itself at import only when navigator.gpu exists (Node 20 has no navigator)
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav) Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true });
  else Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
  await import('@tensorflow/tfjs-backend-webgpu');
  if (!tf.findBackendFactory('webgpu'))
    throw new Error('tfjs-backend-webgpu did not register the webgpu backend (navigator.gpu was not seen at import)');
  if (!(await tf.setBackend('webgpu'))) throw new Error('the tfjs webgpu backend failed to start on this adapter');
  await tf.ready();
  boundBufferPool(tf.backend() as unknown as WebGPUBackend); // as the page's worker does (worker/backend.ts)
  started = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    description: info.description ?? '',
    isFallbackAdapter: fallback,
    driverFile,
    vulkanLoader: loader,
  };
  return started;
}

/** Before the process exits: waits for the GPU's queue and destroys tfjs's device, so that dawn.node does
 *  not tear down with work in flight (a `bench --backend webgpu` exited with SIGSEGV without this). Not
 *  navigator.gpu: deleting it has crashed dawn.node (a known node-webgpu bug). */
export async function shutdownNodeWebgpu(): Promise<void> {
  if (!started) return;
  const tf = await import('@tensorflow/tfjs');
  const device = (tf.findBackend('webgpu') as unknown as { device?: GPUDevice } | null)?.device;
  if (!device) return;
  // a lost device may never finish its queue: give it 5 s
  await Promise.race([device.queue.onSubmittedWorkDone(), new Promise((done) => setTimeout(done, 5000).unref())]);
  device.destroy();
}

/** one line: vendor · architecture · description, and what a fallback adapter is */
export function describeAdapter(a: WebgpuAdapterInfo): string {
  const name = [a.vendor, a.architecture, a.description].filter(Boolean).join(' · ') || 'an unnamed adapter';
  return a.isFallbackAdapter ? `${name} (fallback adapter: a CPU emulation, not a GPU)` : name;
}

/** Loads the Vulkan loader process-wide; returns its path (or 'libvulkan.so.1' for the system's). */
function loadVulkanLoader(): string {
  const asked = process.env[VULKAN_LOADER_ENV];
  const candidates = asked ? [asked] : ['libvulkan.so.1', CHROMIUM_VULKAN_LOADER];
  const failures: string[] = [];
  for (const path of candidates) {
    if (path.includes('/') && !existsSync(path)) { failures.push(`${path}: no such file`); continue; }
    try {
      process.dlopen({ exports: {} }, path, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
      return path; // not reached: a shared library that is no Node addon always throws below
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/did not self-register/.test(message)) return path; // loaded, and kept by RTLD_NODELETE
      failures.push(`${path}: ${message.split('\n')[0]}`);
    }
  }
  throw new Error(
    `no Vulkan loader (libvulkan.so.1), which Dawn needs for WebGPU on Linux: install it (apt-get install libvulkan1) ` +
      `or Chromium (which carries one), or set ${VULKAN_LOADER_ENV} to its path (tried ${failures.join('; ')})`,
  );
}

async function loadDawn(): Promise<DawnModule> {
  const own = process.env[DAWN_NODE_ENV];
  if (own) {
    if (!existsSync(own)) throw new Error(`${DAWN_NODE_ENV}=${own}: no such file`);
    const module = { exports: {} as DawnModule };
    process.dlopen(module, own);
    return module.exports;
  }
  try {
    // a variable, so bundlers and the type checker leave this optional package alone
    const name = 'webgpu';
    return (await import(name)) as DawnModule;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (/Cannot find (package|module) 'webgpu'/.test(message)) {
      throw new Error(
        "--backend webgpu needs the optional npm package `webgpu` (Dawn's Node bindings), which is not installed: npm install webgpu@0.6.2",
        { cause: e },
      );
    }
    throw new Error(
      `the npm package \`webgpu\` did not load (${message.split('\n')[0]}); its prebuilt dawn.node exists for linux-x64/arm64, macOS and Windows`,
      { cause: e },
    );
  }
}

/** The folders the Vulkan loader searches for driver files on Linux (its docs, "Driver Discovery on Linux") */
export function loaderDriverDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? '';
  const config = [
    env.XDG_CONFIG_HOME || join(home, '.config'),
    ...(env.XDG_CONFIG_DIRS || '/etc/xdg').split(':'),
    '/etc',
  ];
  const data = [
    env.XDG_DATA_HOME || join(home, '.local/share'),
    ...(env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':'),
  ];
  return [...config, ...data].filter(Boolean).map((d) => join(d, 'vulkan', 'icd.d'));
}

const jsonFiles = (dir: string, exists: (p: string) => boolean, list: (dir: string) => string[]): string[] =>
  exists(dir) ? list(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f)) : [];

/** The Vulkan driver files to try, in order; null is the loader's own search, tried only when it has
 *  something to find (else Dawn prints "Found no drivers!" for nothing). */
export function driverCandidates(env: NodeJS.ProcessEnv = process.env, exists: (p: string) => boolean = existsSync,
  list: (dir: string) => string[] = (d) => readdirSync(d)): (string | null)[] {
  if (env.VK_ICD_FILENAMES || env.VK_DRIVER_FILES) return [null]; // the user chose: the loader reads them
  const software = exists(SWIFTSHADER_ICD) ? [SWIFTSHADER_ICD] : [];
  if (env[WEBGPU_ADAPTER_ENV] === 'software') return software;
  const own =
    env.VK_ADD_DRIVER_FILES || loaderDriverDirs(env).some((d) => jsonFiles(d, exists, list).length > 0) ? [null] : [];
  return [...own, ...jsonFiles(NVIDIA_ICD_DIR, exists, list), ...software];
}

/** The first adapter that is not a fallback, else the first found; each driver file gets a Dawn
 *  instance of its own, since the loader reads VK_ICD_FILENAMES when the instance is made. */
async function pickAdapter(dawn: DawnModule): Promise<{ gpu: GPU; adapter: GPUAdapter; driverFile: string | null }> {
  const tried: string[] = [];
  let fallback: { gpu: GPU; adapter: GPUAdapter; driverFile: string | null } | null = null;
  const before = process.env.VK_ICD_FILENAMES;
  for (const driverFile of driverCandidates()) {
    if (driverFile) process.env.VK_ICD_FILENAMES = driverFile;
    const gpu = dawn.create([]);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    const chosen = process.env.VK_ICD_FILENAMES || process.env.VK_DRIVER_FILES;
    const name = driverFile ?? (chosen ? `the drivers you chose (${chosen})` : "the Vulkan loader's own drivers");
    if (!adapter) { tried.push(`${name}: no adapter`); continue; }
    const info = infoOf(adapter);
    if (!info.isFallbackAdapter) return { gpu, adapter, driverFile };
    tried.push(`${name}: fallback adapter ${info.description || info.vendor}`);
    fallback ??= { gpu, adapter, driverFile };
  }
  if (fallback) {
    if (fallback.driverFile) process.env.VK_ICD_FILENAMES = fallback.driverFile;
    return fallback;
  }
  if (before === undefined) delete process.env.VK_ICD_FILENAMES; else process.env.VK_ICD_FILENAMES = before;
  throw new Error(
    `no WebGPU adapter: ${tried.join('; ') || 'no Vulkan driver to try'}. A GPU needs its Vulkan driver (ICD file); ` +
      `without one, Chromium's SwiftShader (${SWIFTSHADER_ICD}) serves, slowly`,
  );
}
