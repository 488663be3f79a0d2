// `gpu-check --pack DIR`: everything the GPU check needs on a machine with a GPU and nothing else (no Node,
// no network), small enough to travel with the repository (the device tool carries at most 64 MiB, the
// tracked tree is ~29 MB, so the pack must stay under PACK_LIMIT_BYTES):
//   node.xz            this Node's binary, stripped of its symbol table (99 → 86 MB) and xz'd with the x86
//                      filter (→ ~21 MB); run.sh unpacks it with xz or Python's lzma
//   dawn.node.xz       the `webgpu` package's linux-x64 Dawn bindings
//   libvulkan.so.1.xz  a Vulkan loader, for a machine that has the driver but not the loader
//   runtime.tar.xz     glibc and libstdc++ of this machine, for one whose own are older than dawn.node needs;
//                      libglvnd's dispatch libraries, without which NVIDIA's Vulkan ICD does not load
//   cli.mjs            the CLI's gpu-check and run commands in one file (esbuild), tfjs's .wasm beside it
//   wasm-out/          tfjs's threaded wasm build (its pthread script must be a real file)
//   run.sh, README.md, manifest.json (every file's size and sha256, the commit, what dawn.node needs)
// The checkpoints are not copied: they travel with the repository (public/checkpoints), which run.sh
// reads from its working directory.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provenance, type DirtyFile } from '../../node/provenance.ts';
import { CHROMIUM_VULKAN_LOADER } from '../../node/nodeWebgpu.ts';

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));

/** the pack's ceiling: 64 MiB the device tool carries, less the tracked tree (~29 MB) and room for it to grow */
export const PACK_LIMIT_BYTES = 32 * 2 ** 20;

export interface PackFile { path: string; bytes: number; sha256: string }
export interface PackManifest {
  format: 'star-lab-gpu-pack/1';
  commit: string;
  /** files that differed from `commit` when the pack was built (only with --allow-dirty) */
  dirtyFiles?: DirtyFile[];
  builtAt: string;
  node: string;
  /** the newest symbol versions the binaries need (objdump -T), for the target's glibc */
  needs: Record<string, string>;
  files: PackFile[];
  totalBytes: number;
}

/** [] when the pack fits and holds what run.sh needs; else what is wrong */
export function packProblems(m: Pick<PackManifest, 'files' | 'totalBytes'>, limit = PACK_LIMIT_BYTES): string[] {
  const problems: string[] = [];
  const have = new Set(m.files.map((f) => f.path));
  for (const need of REQUIRED) if (!have.has(need)) problems.push(`${need} is missing`);
  const total = m.files.reduce((a, f) => a + f.bytes, 0);
  if (total !== m.totalBytes) problems.push(`totalBytes ${m.totalBytes} is not the files' ${total}`);
  if (total > limit)
    problems.push(
      `${mib(total)} MiB is over the pack's ${mib(limit)} MiB (the device tool carries 64 MiB with the repository)`,
    );
  return problems;
}

export const REQUIRED = [
  'run.sh',
  'node.xz',
  'dawn.node.xz',
  'libvulkan.so.1.xz',
  'runtime.tar.xz',
  'cli.mjs',
  'tfjs-backend-wasm-simd.wasm',
  'wasm-out/package.json',
  'wasm-out/tfjs-backend-wasm-threaded-simd.js',
  'wasm-out/tfjs-backend-wasm-threaded-simd.worker.js',
  'wasm-out/tfjs-backend-wasm-threaded-simd.wasm',
];

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const run = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 30 });
const has = (cmd: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** xz -9e of `src` (or of what `prepare` makes from it) into `dest`, with x86's branch filter for machine
 *  code; kept when `dest` was made from the same source (DEST.source records it: Node's takes ~2 min) */
function xz(src: string, dest: string, machineCode: boolean, prepare: (src: string) => string = (p) => p): void {
  const stamp = `${dest}.source`;
  const source = `${realpathSync(src)} ${statSync(src).size} ${statSync(src).mtimeMs} ${machineCode} ${prepare.name}`;
  if (existsSync(dest) && existsSync(stamp) && readFileSync(stamp, 'utf8') === source) return;
  const args = [...(machineCode ? ['--x86'] : []), '--lzma2=preset=9e,dict=128MiB', '-T1', '-c', prepare(src)];
  writeFileSync(dest, run('xz', args));
  writeFileSync(stamp, source);
}

/** the newest GLIBC_ / GLIBCXX_ / CXXABI_ version a binary asks for */
function needs(binary: string): Record<string, string> {
  if (!has('objdump')) return {};
  const text = run('objdump', ['-T', binary]).toString();
  const newest = (prefix: string) => [...new Set(text.match(new RegExp(`${prefix}_[0-9.]+`, 'g')) ?? [])]
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1) ?? '';
  return Object.fromEntries(['GLIBC', 'GLIBCXX', 'CXXABI'].map((p) => [p, newest(p)]).filter(([, v]) => v));
}

const hasSystemLibrary = (name: string) =>
  run('ldconfig', ['-p'])
    .toString()
    .split('\n')
    .some((l) => l.trim().startsWith(`${name} `) && l.includes('x86-64'));

/** the shared library `name` as the dynamic linker finds it here */
function systemLibrary(name: string): string {
  const line = run('ldconfig', ['-p'])
    .toString()
    .split('\n')
    .find((l) => l.trim().startsWith(`${name} `) && l.includes('x86-64'));
  const path = line?.split('=> ')[1]?.trim();
  if (!path) throw new Error(`--pack: ${name} is not on this machine (ldconfig -p)`);
  return realpathSync(path);
}

export async function writePack(dir: string, allowDirty = false): Promise<PackManifest> {
  // the pack's figures are committed (results/gpu) with the commit it was built from: refused before building where
  // that cannot be checked out
  const made = provenance(join(dir, 'manifest.json'), { allowDirty, committed: true });
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error('--pack builds a linux-x64 pack: run it on linux-x64');
  for (const tool of ['xz', 'strip', 'tar', 'ldconfig'])
    if (!has(tool)) throw new Error(`--pack needs ${tool} (apt-get install xz-utils binutils tar)`);
  const dawn = join(dirname(require.resolve('webgpu')), 'dist', 'linux-x64', 'dawn.node');
  if (!existsSync(dawn)) throw new Error(`--pack needs the npm package webgpu's ${dawn} (npm install)`);
  const loader = existsSync(CHROMIUM_VULKAN_LOADER) ? CHROMIUM_VULKAN_LOADER : systemLibrary('libvulkan.so.1');
  mkdirSync(join(dir, 'wasm-out'), { recursive: true });
  const tmp = mkdtempSync(join(os.tmpdir(), 'star-gpu-pack-'));
  try {
    console.log(`packing into ${dir} (Node's binary takes ~2 min to compress; kept if unchanged)`);
    const stripped = (src: string) => { // .symtab and debug info go; .dynsym, which addons link against, stays
      run('strip', ['-o', join(tmp, 'node'), src]);
      return join(tmp, 'node');
    };
    xz(process.execPath, join(dir, 'node.xz'), true, stripped);
    xz(dawn, join(dir, 'dawn.node.xz'), true);
    xz(loader, join(dir, 'libvulkan.so.1.xz'), true);
    writeRuntime(tmp, join(dir, 'runtime.tar.xz'));
    await bundle(join(dir, 'cli.mjs'));
    const wasmPackage = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'));
    for (const f of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm'])
      copyFileSync(join(wasmPackage, 'dist', f), join(dir, f));
    for (const f of [
      'tfjs-backend-wasm-threaded-simd.js',
      'tfjs-backend-wasm-threaded-simd.worker.js',
      'tfjs-backend-wasm-threaded-simd.wasm',
    ]) {
      copyFileSync(join(wasmPackage, 'wasm-out', f), join(dir, 'wasm-out', f));
    }
    // tfjs's wasm-out scripts are CommonJS; the repository's package.json (above the pack) says "module"
    writeFileSync(join(dir, 'wasm-out', 'package.json'), '{ "type": "commonjs" }\n');
    copyFileSync(join(HERE, 'run.sh'), join(dir, 'run.sh'));
    const manifest: PackManifest = {
      format: 'star-lab-gpu-pack/1', ...made, builtAt: new Date().toISOString(), node: process.version,
      needs: mergeNeeds([needs(process.execPath), needs(dawn)]), files: [], totalBytes: 0,
    };
    writeFileSync(join(dir, 'README.md'), packReadme(manifest));
    manifest.files = listFiles(dir).filter((p) => !p.endsWith('.source') && p !== 'manifest.json').map((p) => {
      const bytes = readFileSync(join(dir, p));
      return { path: p, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    });
    manifest.totalBytes = manifest.files.reduce((a, f) => a + f.bytes, 0);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
    const problems = packProblems(manifest);
    if (problems.length) throw new Error(`the pack in ${dir} is not fit to travel:\n  ${problems.join('\n  ')}`);
    console.log(
      `pack: ${manifest.files.length} files, ${mib(manifest.totalBytes)} MiB (limit ${mib(PACK_LIMIT_BYTES)}); binaries need ${Object.values(manifest.needs).join(', ')}`,
    );
    return manifest;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** glibc (ld.so, libc, libm, libdl, libpthread) under libc/ and libstdc++ with libgcc_s under cxx/ */
function writeRuntime(tmp: string, dest: string): void {
  const root = join(tmp, 'runtime');
  const groups: Record<string, string[]> = {
    libc: ['ld-linux-x86-64.so.2', 'libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0', 'librt.so.1'],
    cxx: ['libstdc++.so.6', 'libgcc_s.so.1'],
    // NVIDIA's Vulkan ICD is libGLX_nvidia.so.0, which will not load without libglvnd's dispatch library:
    // on the H200 machine (no libglvnd installed) the loader said "Found no drivers!" until these came along
    glvnd: [
      'libGLdispatch.so.0',
      'libGLX.so.0',
      'libX11.so.6',
      'libXext.so.6',
      'libxcb.so.1',
      'libXau.so.6',
      'libXdmcp.so.6',
      'libbsd.so.0',
      'libmd.so.0',
    ],
  };
  for (const [group, names] of Object.entries(groups)) {
    mkdirSync(join(root, group), { recursive: true });
    for (const name of names) {
      if (group === 'glvnd' && !hasSystemLibrary(name)) {
        console.log(
          `pack: ${name} is not on this machine; a GPU machine without libglvnd will need it (apt-get install libglvnd0 libglx0)`,
        );
        continue;
      }
      copyFileSync(systemLibrary(name), join(root, group, name));
    }
  }
  const tar = join(tmp, 'runtime.tar');
  run('tar', ['-cf', tar, '--mtime=@0', '--owner=0', '--group=0', '-C', root, 'libc', 'cxx', 'glvnd']);
  xz(tar, dest, true);
}

/** the CLI's gpu-check and run commands as one ES module for Node 20; `require` and `__dirname` are the
 *  bundle's own, so tfjs's wasm backend finds its .wasm files beside it */
async function bundle(outfile: string): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(HERE, 'packEntry.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    external: ['esbuild', 'webgpu'],
    logLevel: 'warning',
    legalComments: 'none',
    banner: {
      js:
        "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; import { dirname as __dn } from 'node:path';" +
        ' const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);',
    },
  });
}

function mergeNeeds(list: Record<string, string>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of list)
    for (const [k, v] of Object.entries(n))
      if (!out[k] || out[k].localeCompare(v, 'en', { numeric: true }) < 0) out[k] = v;
  return out;
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? listFiles(p, base) : [relative(base, p)];
  }).sort();
}

function packReadme(m: PackManifest): string {
  return `# The GPU check's pack

Built by \`npm run gpu-check -- --pack ${basename('DIR')}\` at commit ${m.commit} (${m.builtAt}) with Node ${m.node}.
On the GPU machine, from the repository root (the checkpoints come from public/checkpoints):

    sh PACK/run.sh OUT            # the check; figures in OUT/figures.json (docs/gpu-check.md)
    sh PACK/run.sh OUT --rehearse # tiny steps, SwiftShader allowed

Needs: x86-64 Linux, sh, xz or python3. Node and dawn.node want ${Object.entries(m.needs)
    .map(([k, v]) => `${k} ≥ ${v.replace(/^[A-Z]+_/, '')}`)
    .join(', ')};
an older system runs them on the pack's own glibc and libstdc++ (runtime.tar.xz, from Debian 12), which
run.sh picks by trying. The Vulkan driver is the machine's (NVIDIA: /usr/local/nvidia/share/vulkan/icd.d).
`;
}
