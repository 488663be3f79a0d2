#!/usr/bin/env node
// A measurement, not a test: each lesson played in full (both arms at the findings' standard size, as a
// class would) in headless Chromium, from pressing Run to its takeaway. Serves a built dist/ with the
// cross-origin isolation headers a real host sends (so wasm gets threads where there are 4+ cores),
// records each lesson's wall time with the backend, the cores, how the arms ran, the load average and
// the CPU time the browser spent (Linux: its process tree's, from /proc — on a shared machine the wall
// time counts the neighbours, the CPU time much less) to results/lessons/timings.json (which the page
// shows as "measured here"), and screenshots each finished lesson at 1280 wide to docs/img/lesson-<id>.png.
//
//   npx vite build && node scripts/measure-lessons.mjs [--only ID,ID] [--backend wasm|webgpu|cpu]
//       [--profile DIR] [--port N] [--out FILE] [--screens DIR] [--screens-only]
//
// --profile keeps the browser profile (its IndexedDB holds the runs) and --port fixes the origin, so a
// later --screens-only pass over the same profile and port retakes the pictures without training again.
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { recordCommit } from './recordCommit.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const dist = resolve(process.env.E2E_DIST || join(root, 'dist'));
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const IDS = ['null-control', 'dense-reward', 'tool-failures', 'hard-only', 'seeds'];
const only = arg('--only')?.split(',') ?? IDS;
const backend = arg('--backend') ?? 'wasm';
const out = resolve(arg('--out') ?? join(root, 'results', 'lessons', 'timings.json'));
const screens = resolve(arg('--screens') ?? join(root, 'docs', 'img'));
const screensOnly = process.argv.includes('--screens-only');
const profile = resolve(arg('--profile') ?? mkdtempSync(join(tmpdir(), 'star-lab-lessons-')));
const port = Number(arg('--port') ?? 0);
const LESSON_TIMEOUT_MS = 90 * 60_000;

if (!existsSync(join(dist, 'index.html'))) throw new Error(`no build at ${dist}: run npx vite build first`);
for (const id of only) if (!IDS.includes(id)) throw new Error(`--only: unknown lesson ${id} (${IDS.join(', ')})`);
mkdirSync(screens, { recursive: true });

const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dist, path);
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html');
  const type = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
  }[extname(file)];
  res.writeHead(200, {
    'content-type': type ?? 'application/octet-stream', 'cache-control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp',
  });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 720 },
  args: [
    '--headless',
    '--no-sandbox',
    '--enable-unsafe-webgpu',
    '--disable-gpu-sandbox',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(180_000);
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
/** CPU seconds (user + system) of the browser's live process tree: the processes whose command line names this profile,
 * and their children */
function browserCpuSeconds() {
  if (!existsSync('/proc/self/stat')) return NaN;
  const procs = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.push({
        pid: Number(pid),
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8'),
      });
    } catch { /* gone meanwhile */ }
  }
  const tree = new Set(procs.filter((p) => p.cmd.includes(profile)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) { tree.add(p.pid); grew = true; }
  }
  return procs.filter((p) => tree.has(p.pid)).reduce((a, p) => a + p.ticks, 0) / 100; // USER_HZ
}
const query = backend === 'webgpu' ? '' : `?backend=${backend}`;
const lesson = '[data-testid=lesson]';

/** results/lessons/timings.json: the lessons measured now, over those measured before */
function writeTimings() {
  const lessons = [...previous.lessons.filter((l) => !measured.some((m) => m.lesson === l.lesson)), ...measured]
    .sort((a, b) => IDS.indexOf(a.lesson) - IDS.indexOf(b.lesson));
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), headless Chromium`;
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), ...made, machine, lessons }, null, 1) + '\n');
  console.log(`wrote ${out}`);
}

// refused here, before measuring, where the record could not be checked out
const made = recordCommit(root, process.argv.includes('--allow-dirty'));
const previous = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : { lessons: [] };
const measured = [];

try {
  for (const id of only) {
    await page.goto('about:blank');
    await page.goto(`${base}${query}#lesson=${id}`);
    await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 120_000 });
    const label = (await page.locator('[data-testid=backend]').innerText()).trim().replace(/\s+/g, ' ');
    await page.waitForSelector(`${lesson}[data-lesson="${id}"]`);
    if (!screensOnly) {
      if ((await page.locator(lesson).getAttribute('data-state')) !== 'new')
        await page.locator('[data-testid=lesson-again]').click();
      await page.locator('[data-testid=lesson-predictions] input').first().check();
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const load = loadavg()[0];
      const cpu0 = browserCpuSeconds();
      const t0 = Date.now();
      await page.locator('[data-testid=lesson-run]').click();
      await page.waitForSelector(`${lesson}[data-state=running]`, { timeout: 120_000 });
      const mode =
        (await page.locator('[data-testid=lesson-arm]').count()) === 2 && cores >= 4 ? 'parallel' : 'sequential';
      await page.waitForSelector(`${lesson}[data-state=finished]`, { timeout: LESSON_TIMEOUT_MS });
      const wallSeconds = Math.round((Date.now() - t0) / 1000);
      const cpuSeconds = Math.round(browserCpuSeconds() - cpu0);
      const entry = {
        lesson: id,
        wallSeconds,
        cpuSeconds,
        mode,
        backend: label,
        cores,
        load: Math.round(((load + loadavg()[0]) / 2) * 10) / 10,
      };
      measured.push(entry);
      writeTimings(); // after each lesson: a measurement cut short keeps what it measured
      console.log(
        `measure-lessons: ${id} ${Math.round(wallSeconds / 6) / 10} min wall, ${Math.round(cpuSeconds / 6) / 10} CPU-min (${mode}, ${label}, ${cores} cores, load ${entry.load})`,
      );
    }
    await page.waitForSelector('[data-testid=lesson-takeaway][data-ready=true]', { timeout: 60_000 });
    await page.waitForTimeout(1500); // the charts' last setData
    await page.screenshot({ path: join(screens, `lesson-${id}.png`), fullPage: true });
    console.log(`  screenshot ${join(screens, `lesson-${id}.png`)}`);
  }
} finally {
  if (errors.length) console.log(`page errors: ${errors.join(' | ')}`);
  await context.close();
  server.close();
}
