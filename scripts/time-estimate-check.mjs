#!/usr/bin/env node
// A measurement, not a test: how far the page's run estimate (src/lab/runEstimate.ts) is from the time a run takes,
// in headless Chromium. One fresh browser profile plays a list of short runs of different sizes and scales —
// lessons' arms at the smoke size (one arm, both arms) and Lab runs — and for each records the estimate the page
// shows BEFORE the run (the lesson's "Your machine…" line, the Lab's "About … on this machine") and the time from
// pressing Run / Start to the page saying it finished. The profile starts empty, so the first estimate comes from
// the backend's calibration alone and later ones from the runs before them, as a learner's would. Writes each
// run, the ratios taken / estimated (median, worst), the machine, its load (uptime before and after) and the
// commit to --out (default results/lessons/time-estimates.json).
//
//   npx vite build && node scripts/time-estimate-check.mjs [--out FILE] [--only N,N] [--allow-dirty]
//   npx vite build && node scripts/time-estimate-check.mjs --post-smoke dense-reward,tool-failures [--out FILE]
//       for each lesson, in a fresh profile: a smoke try of its first arm, then its first arm at the full size — how
//       far the full-size estimate a smoke try gives is from the full arm (default --out
//       results/lessons/estimate-check.json)
//   node scripts/time-estimate-check.mjs --resummarize [--out FILE]     the summary of a measurement again
//
// Served as `vite preview` serves dist/ (cross-origin isolated). No ?backend=: the page measures its backends, as a
// learner's does. On a shared machine the times count the neighbours' load: it is recorded beside them.
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { recordCommit } from './recordCommit.mjs';
import { storedRuns } from './e2e-store.mjs';

const root = resolve(new URL('..', import.meta.url).pathname);
const dist = resolve(process.env.E2E_DIST || join(root, 'dist'));
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const postSmoke = arg('--post-smoke')?.split(',');
// a lesson named wrong would wait half an hour for a page that never comes: refused before anything starts
const LESSON_IDS = [...readFileSync(join(root, 'src/lessons/lessons.ts'), 'utf8').matchAll(/^ {4}id: '([a-z-]+)',$/gm)].map((m) => m[1]);
for (const id of postSmoke ?? [])
  if (!LESSON_IDS.includes(id)) throw new Error(`--post-smoke: no lesson "${id}" (the lessons: ${LESSON_IDS.join(', ')})`);
const out = resolve(
  arg('--out') ?? join(root, 'results', 'lessons', postSmoke ? 'estimate-check.json' : 'time-estimates.json'),
);
const RUN_TIMEOUT_MS = 30 * 60_000; // a full-size arm on a loaded 2-core machine

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

// --resummarize: the summary of --out's runs again (after a change to how it is summed up), without measuring
if (process.argv.includes('--resummarize')) {
  const kept = JSON.parse(readFileSync(out, 'utf8'));
  const { runs, summary } = summarize(kept.runs);
  writeFileSync(out, JSON.stringify({ ...kept, summary, runs }, null, 1) + '\n');
  console.log(`rewrote the summary of ${out}: ${JSON.stringify(summary)}`);
  process.exit(0);
}

// Lab runs: small RL setups (hash settings over the defaults), of different steps, rollouts and evaluation sizes
const lab = (scale, steps, groupSize, queriesPerStep, evalQueries, evalEvery) =>
  `stage=rl&scale=${scale}&algorithm=grpo&reward=sum&steps=${steps}&groupSize=${groupSize}` +
  `&queriesPerStep=${queriesPerStep}` +
  `&evalQueries=${evalQueries}&evalToolQa=0&evalEvery=${evalEvery}&trainSize=20&seed=5`;
/** the runs, in order: each later estimate learns from the runs before it (a lesson's arm is at s or m) */
const PLAN = [
  { kind: 'lesson', id: 'dense-reward', which: 'first', what: 'lesson dense-reward (s), smoke, first arm' },
  { kind: 'lesson', id: 'dense-reward', which: 'both', what: 'lesson dense-reward (s), smoke, both arms' },
  { kind: 'lab', hash: lab('s', 4, 2, 2, 8, 4), what: 'Lab s: 4 steps × 2×2 rollouts, 8-query evaluations' },
  { kind: 'lab', hash: lab('s', 8, 4, 1, 4, 4), what: 'Lab s: 8 steps × 4×1 rollouts, 4-query evaluations' },
  { kind: 'lesson', id: 'tool-failures', which: 'first', what: 'lesson tool-failures (m), smoke, first arm' },
  { kind: 'lesson', id: 'tool-failures', which: 'both', what: 'lesson tool-failures (m), smoke, both arms' },
  { kind: 'lab', hash: lab('m', 4, 2, 1, 4, 2), what: 'Lab m: 4 steps × 2×1 rollouts, 4-query evaluations' },
  { kind: 'lab', hash: lab('m', 6, 2, 2, 8, 3), what: 'Lab m: 6 steps × 2×2 rollouts, 8-query evaluations' },
  { kind: 'lesson', id: 'hard-only', which: 'first', what: 'lesson hard-only (m), smoke, first arm' },
  { kind: 'lab', hash: lab('s', 12, 2, 1, 4, 6), what: 'Lab s: 12 steps × 2×1 rollouts, 4-query evaluations' },
  { kind: 'lesson', id: 'null-control', which: 'both', what: 'lesson null-control (m), smoke, both arms' },
];
/** --post-smoke: each lesson's smoke try, then its first arm at the full size, each lesson in a fresh profile */
const POST_SMOKE = (postSmoke ?? []).flatMap((id) => [
  { kind: 'lesson', id, which: 'first', fresh: true, what: `lesson ${id}, smoke, first arm (a fresh profile)` },
  { kind: 'lesson', id, which: 'first', full: true, what: `lesson ${id}, full size, first arm (after the smoke try)` },
]);
const only = arg('--only')?.split(',').map(Number);
const plan = (postSmoke ? POST_SMOKE : PLAN)
  .map((p, i) => ({ ...p, n: i + 1 }))
  .filter((p) => !only || only.includes(p.n));

if (!existsSync(join(dist, 'index.html'))) throw new Error(`no build at ${dist}: run npx vite build first`);
const made = recordCommit(root, process.argv.includes('--allow-dirty'));
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dist, path);
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html');
  res.writeHead(200, {
    'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp',
  });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;
let profile = null;
let context = null;
let page = null;
const errors = [];
/** a browser on an empty profile (the first, and each --post-smoke lesson's) */
async function freshBrowser() {
  if (context) await context.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  profile = mkdtempSync(join(tmpdir(), 'star-lab-time-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-gpu-sandbox', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(120_000);
  page.on('pageerror', (e) => errors.push(e.message));
}
await freshBrowser();

/** the estimate the page shows: its ms, and whether it is a first guess from the calibration (null: the page does not
 * say) */
const estimateOf = async (selector) => {
  const el = page.locator(selector);
  if (!(await el.count())) return { estimateMs: null, firstGuess: null };
  const v = await el.first().getAttribute('data-ms');
  const guess = await el.first().getAttribute('data-first-guess');
  return {
    estimateMs: v === null || v === '' ? null : Number(v),
    firstGuess: guess === null ? null : guess === 'true',
  };
};
/** the stored runs created since `before` (ids), with what each measured */
async function newRuns(before) {
  return (await storedRuns(page)).filter((r) => !before.has(r.id)).map((r) => ({
    id: r.id, scale: r.config.scale, status: r.status, backend: r.backend, steps: r.summary.steps,
    meanStepMs: r.summary.meanStepMs ?? null, meanEvalMs: r.summary.meanEvalMs ?? null,
    wallMs: r.summary.wallMs ?? null,
  }));
}

async function playLesson(p) {
  await page.goto('about:blank');
  await page.goto(`${base}${p.full ? '' : '?lessonSize=smoke'}#lesson=${p.id}`);
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 180_000 });
  const lesson = `[data-testid=lesson][data-lesson="${p.id}"]`;
  await page.waitForSelector(lesson);
  await page.waitForSelector(`${lesson}:not([data-state=loading])`);
  const state = await page.locator(lesson).getAttribute('data-state');
  if (state !== 'new') await page.locator('[data-testid=lesson-again]').click();
  await page.locator('[data-testid=lesson-predictions] input').first().check();
  await page.locator(`input[name="which-${p.id}"][value="${p.which}"]`).check();
  await page.waitForTimeout(500); // the estimate follows the choice
  const { estimateMs, firstGuess } = await estimateOf('[data-testid=lesson-estimate]');
  const t0 = Date.now();
  await page.locator('[data-testid=lesson-run]').click();
  // the lesson played before reads finished until this sitting has started
  await page.waitForSelector(`${lesson}[data-state=running]`, { timeout: 900_000 });
  await page.waitForSelector(`${lesson}[data-state=finished]`, { timeout: RUN_TIMEOUT_MS });
  return { estimateMs, firstGuess, takenMs: Date.now() - t0 };
}

async function playLab(p) {
  await page.goto('about:blank');
  await page.goto(`${base}#${p.hash}`);
  await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 180_000 });
  await page.waitForSelector('[data-testid=start]:not([disabled])');
  await page.waitForTimeout(500);
  const { estimateMs, firstGuess } = await estimateOf('[data-testid=run-estimate]');
  const t0 = Date.now();
  await page.locator('[data-testid=start]').click();
  await page.waitForSelector('[data-testid=run-status][data-status=running]', { timeout: 180_000 });
  await page.waitForSelector('[data-testid=run-status][data-status=completed]', { timeout: RUN_TIMEOUT_MS });
  return { estimateMs, firstGuess, takenMs: Date.now() - t0 };
}

const started = new Date().toISOString();
const uptimeBefore = uptime();
const runs = [];
/**
 * The ratios over all runs, and over those whose estimate came from runs here (not a first guess from the
 * calibration). A run the page did not mark (a build before data-first-guess) counts as a first guess when no
 * earlier run of its scale had finished: the rule the page applies (src/lab/runEstimate.ts isFirstGuess).
 */
function summarize(list) {
  const marked = list.map((r, i) => ({ ...r, firstGuess: r.firstGuess ?? !list.slice(0, i)
    .some((e) => e.stored.some((s) => s.status === 'completed' && r.stored.some((t) => t.scale === s.scale))) }));
  const stats = (rs) => {
    const rated = rs.filter((r) => r.ratio !== null);
    if (!rated.length)
      return { runs: 0, medianRatio: null, worstRatio: null, worstRun: null, lowest: null, highest: null };
    const worst = rated.reduce((w, r) => (Math.abs(Math.log(r.ratio)) > Math.abs(Math.log(w.ratio)) ? r : w));
    const ratios = rated.map((r) => r.ratio);
    return { runs: rated.length, medianRatio: round(median(ratios)), worstRatio: worst.ratio, worstRun: worst.n,
      lowest: Math.min(...ratios), highest: Math.max(...ratios) };
  };
  return { runs: marked, summary: { all: stats(marked), fromRunsHere: stats(marked.filter((r) => !r.firstGuess)),
    firstGuesses: stats(marked.filter((r) => r.firstGuess)) } };
}

function write(extra = {}) {
  const { runs: marked, summary } = summarize(runs);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    what: 'taken / estimated for runs played in headless Chromium: the estimate the page showed before each run, ' +
      'the time from Run/Start to finished',
    command: `npx vite build && node scripts/time-estimate-check.mjs${postSmoke ? ` --post-smoke ${postSmoke.join(',')}` : ''}`,
    date: started, ...made,
    machine: `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), headless Chromium`,
    uptimeBefore, uptimeAfter: uptime(), ...extra, summary, runs: marked,
  }, null, 1) + '\n');
}

try {
  for (const p of plan) {
    if (p.fresh && p !== plan[0]) await freshBrowser();
    const before = new Set((await storedRuns(page).catch(() => [])).map((r) => r.id));
    const load = loadavg()[0];
    const { estimateMs, firstGuess, takenMs } = p.kind === 'lesson' ? await playLesson(p) : await playLab(p);
    const ratio = estimateMs ? round(takenMs / estimateMs) : null;
    const backend = (await page.locator('[data-testid=backend]').innerText()).trim().replace(/\s+/g, ' ');
    const load1 = round((load + loadavg()[0]) / 2, 1);
    runs.push({
      n: p.n,
      what: p.what,
      estimateMs,
      firstGuess,
      takenMs,
      ratio,
      backend,
      load1,
      stored: await newRuns(before),
    });
    write(); // after each run: a measurement cut short keeps what it measured
    const say = (ms) => (ms === null ? 'none' : `${Math.round(ms / 1000)} s`);
    console.log(
      `time-estimate-check ${p.n}: ${p.what}: estimated ${say(estimateMs)}${firstGuess ? ' (first guess)' : ''}, ` +
        `took ${say(takenMs)}, ratio ${ratio ?? '–'} (load ${loadavg()[0].toFixed(1)})`,
    );
  }
  write();
  console.log(`wrote ${out}: ${JSON.stringify(JSON.parse(readFileSync(out, 'utf8')).summary)}`);
} finally {
  if (errors.length) console.log(`page errors: ${errors.join(' | ')}`);
  await context?.close();
  server.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
}
