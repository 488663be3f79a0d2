import type { Command } from '../command.ts';
import { parseFlags } from '../command.ts';
import { flagOptionalText, rejectUnknownFlags } from '../envFlags.ts';
import { checkOutFile, makeOutFileParent } from '../outDir.ts';
import { suites } from '../../../bench/suites.ts';
import { flagChoice } from '../envFlags.ts';
import { useNodeBackend } from '../../node/nodeBackend.ts';
import { writeAtomic } from '../../node/atomicWrite.ts';

export const benchCommand: Command = {
  name: 'bench',
  summary: 'run the benchmarks and print every figure (optionally as flat JSON)',
  help: `usage: npm run bench -- [--json FILE] [--only NAME[,NAME]] [--quick] [--backend webgpu]

  --json FILE   also write every figure to FILE as one flat JSON object ({"evaluator.plans_per_s": …})
  --only NAMES  run only these suites (comma-separated): ${suites.map((s) => s.name).join(', ')}
  --quick       shorter measurements (for smoke tests)
  --backend webgpu  instead of the suites, the model suite's figures (matmul, decode, training step per
                preset; keys suffixed .node_webgpu, wall time) on Dawn's WebGPU in this Node process: a GPU
                if its Vulkan driver is found, else SwiftShader (slow; docs/performance.md)`,
  async run(args) {
    const { flags, positional } = parseFlags(args);
    rejectUnknownFlags(flags, positional, ['json', 'only', 'quick', 'backend'], ['quick']);
    const names = suites.map((s) => s.name);
    const onlyText = flagOptionalText(flags, 'only');
    const only = onlyText === undefined ? null : onlyText.split(',');
    const unknown = (only ?? []).filter((n) => !names.includes(n));
    if (unknown.length > 0)
      throw new Error(
        `--only: no suite ${unknown.map((n) => `"${n}"`).join(', ')} (suites: ${names.join(', ')}); nothing was run`,
      );
    const out = flagOptionalText(flags, 'json');
    if (out !== undefined) checkOutFile(out, '--json'); // before the measurements: a bad path must cost nothing
    const quick = flags.has('quick');
    const figures: Record<string, number> = {};
    const report = (key: string, value: number, unit: string, note?: string) => {
      figures[key] = value;
      const shown = Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
      console.log(`  ${key.padEnd(36)} ${shown.padStart(12)} ${unit}${note ? `  (${note})` : ''}`);
    };
    // the suites pick their own backends (cpu, wasm, Chromium's webgpu); only webgpu-in-Node is asked for
    if (flags.has('backend') && flagChoice(flags, 'backend', ['webgpu'] as const, 'webgpu') === 'webgpu') {
      if (only) throw new Error('--backend webgpu runs the model figures alone; drop --only');
      await useNodeBackend('webgpu');
      const { measureBackend } = await import('../../../bench/model.ts');
      console.log('\n== model on webgpu (Node, Dawn)');
      await measureBackend(report, quick, '.node_webgpu', { sftMix: false });
    } else {
      console.log(`suites: ${suites.map((s) => s.name).join(', ')}`);
      for (const suite of suites) {
        if (only && !only.includes(suite.name)) continue;
        console.log(`\n== ${suite.name}`);
        await suite.run(report, { quick });
      }
    }
    if (out !== undefined) {
      makeOutFileParent(out, '--json');
      writeAtomic(out, JSON.stringify(figures, null, 2) + '\n');
      console.log(`\nwrote ${Object.keys(figures).length} figures to ${out}`);
    }
    return 0;
  },
};
