// `npm run cli -- ARGS` as its own process, the way a user runs it (tsx is what `npm run cli` starts).
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export function cliProcess(args: string[], timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(join('node_modules', '.bin', 'tsx'), ['src/cli/main.ts', ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}
