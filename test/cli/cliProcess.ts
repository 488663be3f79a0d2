// `npm run cli -- ARGS` as its own process, the way a user runs it (`node --import tsx src/cli/main.ts` is what
// `npm run cli` starts).
import { execFile } from 'node:child_process';

export function cliProcess(args: string[], timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}
