#!/usr/bin/env node
// A measurement, not a test: how long the welcome's "Watch it learn" takes in the page, and whether its success rose.
// For each try, a fresh browser profile (as a first visit: the page measures its backends first) opens the built
// page's welcome at `/`, waits for the backend, clicks Watch it learn and times it from the click to its last
// point (the run's status completed), then reads the run's stored evaluations: validation success before training
// and at the end. Writes every try, the machine, its load (uptime before and after each) and the commit to --out
// (default results/watch-it-learn/page-timing.json). Served as `vite preview` serves dist/ (cross-origin isolated).
// No ?backend=: the page picks, as a learner's does. On a shared machine the times count the neighbours' load.
//
//   npx vite build && node scripts/time-watch-it-learn.mjs [--tries N] [--out FILE] [--allow-dirty]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { storedPoints, storedRuns } from './e2e-store.mjs';
import { recordCommit } from './recordCommit.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const out = resolve(arg('--out') ?? join(root, 'results', 'watch-it-learn', 'page-timing.json'));
const tries = Number(arg('--tries') ?? 1);
if (!(Number.isInteger(tries) && tries >= 1)) throw new Error(`--tries takes a whole number ≥ 1, got ${arg('--tries')}`);
const RUN_TIMEOUT_MS = 30 * 60_000; // generous: a loaded machine
const made = recordCommit(root, process.argv.includes('--allow-dirty'));
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

const server = await preview({ root, logLevel: 'silent', preview: { port: 0, host: '127.0.0.1', strictPort: false } });
const base = server.resolvedUrls.local[0];
const started = new Date().toISOString();
const results = [];

function write() {
  const timed = results.filter((r) => r.finalMs !== null);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        what: "the welcome's Watch it learn in headless Chromium: wall time from the click to its last point, and " +
          'validation success before and after',
        command: 'npx vite build && node scripts/time-watch-it-learn.mjs' + (tries > 1 ? ` --tries ${tries}` : ''),
        date: started,
        ...made,
        machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null },
        summary: {
          tries: results.length,
          finished: timed.length,
          rose: timed.filter((r) => r.rose).length,
          finalSeconds: timed.map((r) => Math.round(r.finalMs / 100) / 10),
        },
        tries: results,
      },
      null,
      1,
    )}\n`,
  );
}

try {
  for (let n = 1; n <= tries; n++) {
    const profile = mkdtempSync(join(tmpdir(), 'star-lab-watch-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--no-first-run', '--disable-background-networking'],
    });
    const errors = [];
    const uptimeBefore = uptime();
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(180_000);
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(base);
      await page.waitForSelector('[data-testid=welcome]');
      const b0 = Date.now();
      await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])');
      const backendMs = Date.now() - b0;
      await page.waitForSelector('[data-testid=watch-start]:not([disabled])');
      const t0 = Date.now();
      await page.locator('[data-testid=watch-start]').click();
      console.log(`try ${n}: the backend chosen in ${(backendMs / 1000).toFixed(1)} s; Watch it learn clicked`);
      const watch = page.locator('[data-testid=watch-it-learn]');
      let status = '';
      for (;;) {
        status = (await watch.getAttribute('data-status')) ?? '';
        if (['completed', 'failed', 'stopped'].includes(status)) break;
        if (Date.now() - t0 > RUN_TIMEOUT_MS) break;
        await page.waitForTimeout(250);
      }
      const finalMs = status === 'completed' ? Date.now() - t0 : null;
      const run = (await storedRuns(page)).at(-1);
      const points = run ? await storedPoints(page, run.id) : [];
      const success = points.filter((p) => p.values?.['eval/success'] !== undefined).map((p) => ({ step: p.step, success: p.values['eval/success'] }));
      const before = success[0]?.success ?? null;
      const after = success.length > 1 ? success.at(-1).success : null;
      results.push({
        n,
        status,
        backend: await page.locator('[data-testid=backend]').getAttribute('data-backend'),
        backendChoiceMs: backendMs,
        finalMs,
        evaluations: success,
        successBefore: before,
        successAfter: after,
        rose: before !== null && after !== null ? after > before : null,
        steps: run?.summary?.steps ?? null,
        pageErrors: errors,
        uptimeBefore,
        uptimeAfter: uptime(),
      });
      console.log(
        `try ${n}: ${status}${finalMs !== null ? ` in ${(finalMs / 1000).toFixed(1)} s` : ''}, success ${before} → ${after} (backend ${results.at(-1).backend})`,
      );
      write();
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }
} finally {
  await server.close();
}
console.log(`wrote ${out}`);
