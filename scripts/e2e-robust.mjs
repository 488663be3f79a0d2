// The e2e group `robust` (E2E_ONLY=robust node scripts/e2e.mjs), called from e2e.mjs: the page
// requests nothing beyond its origin and passes its Content-Security-Policy (the page's <meta>, and
// the same policy sent as a header so the worker runs under it too: webgpu, wasm and cpu backends);
// a reload mid-run resumes the run by itself from its checkpoint, keeping the curve up to it and saying so
// from the first paint (never "Ready" meanwhile); a
// crashed worker is replaced and its run resumes; full storage shows its message and pruning old
// checkpoints frees it; a corrupt stored run is skipped with a notice.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointKeys as storedCheckpointKeys, storedPoints } from './e2e-store.mjs';

/** SFT on the cpu backend, long enough to stay running through the group (stopped at the end) */
const LONG_SFT = 'stage=sft&steps=3000&seed=5&scale=s&worldSize=tiny&trainSize=40';

export async function robustTests({ page, context, base, dist, results, test, assert, attr, consoleErrors }) {
  const group = 'robust';
  const origin = new URL(base).origin;
  const policy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(
    readFileSync(join(dist, 'index.html'), 'utf8'),
  )?.[1];
  const offOrigin = [];
  const onRequest = (request) => {
    const url = request.url();
    if (!url.startsWith(origin + '/') && !url.startsWith('data:') && !url.startsWith('blob:')) offOrigin.push(url);
  };
  /** console errors before this index are not this group's (or were provoked on purpose) */
  let consoleFrom = consoleErrors.length;

  const status = () => attr('[data-testid=run-status]', 'data-status');
  const chartPoints = async () => Number(await attr('[data-testid=loss-chart]', 'data-points'));
  // cpu steps take seconds on a loaded 2-core machine
  const waitPoints = (n, timeout = 480_000) =>
    page.waitForFunction(
      (want) => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points')) >= want,
      n,
      { timeout },
    );
  const violations = async () => [
    ...(await page.evaluate(() => window.__cspViolations ?? []).catch(() => [])),
    ...consoleErrors.slice(consoleFrom).filter((e) => /Content Security Policy/i.test(e)),
  ];
  /** the newest training worker (after a restart the old one is gone) */
  const trainingWorker = () => page.workers().filter((w) => w.url().includes('trainingWorker')).at(-1);
  const storedSteps = async (id) => (await storedPoints(page, id)).map((p) => p.step);
  const checkpointKeys = () => storedCheckpointKeys(page);
  const contiguous = (steps) => steps.every((s, i) => s === i + 1);
  /** a fresh SFT run on cpu, live past its first checkpoint (every 25 steps): each test below trains its own */
  const liveRunPastCheckpoint = async () => {
    await page.goto('about:blank');
    await page.goto(`${base}?backend=cpu#${LONG_SFT}`);
    await page.waitForSelector('[data-testid=backend][data-backend="cpu"]', { timeout: 60_000 });
    await page.locator('[data-testid=start]').click();
    await waitPoints(28);
    return page.locator('[data-testid=run-row][data-status=running]').first().getAttribute('data-run-id');
  };
  /** stops the live run, so that no later page resumes it by itself (a test's run ends with the test) */
  const stopRun = async () => {
    if ((await status()) !== 'running') return;
    await page.locator('[data-testid=stop]').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'stopped',
      null,
      { timeout: 60_000 },
    );
  };

  await test(
    'robust: the page requests nothing beyond its origin and passes its CSP in every view and backend',
    async () => {
      assert(
        policy && /default-src 'self'/.test(policy) && /object-src 'none'/.test(policy),
        `index.html has no strict CSP: ${policy}`,
      );
      context.on('request', onRequest);
      // the same policy as a header on every response, so the worker (which has no <meta>) is held to it too
      await context.route(`${origin}/**`, async (route) => {
        try {
          const response = await route.fetch();
          await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': policy } });
        } catch {
          await route.abort().catch(() => {}); // the page went away mid-request
        }
      });
      await page.addInitScript(() => {
        window.__cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) =>
          window.__cspViolations.push(
            `${e.effectiveDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
          ),
        );
      });
      await page.goto('about:blank');
      await page.goto(`${base}?backend=webgpu#scale=s&worldSize=tiny`);
      await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 60_000 });
      // the worker fetched and checked the shipped checkpoint under connect-src 'self'
      await page.waitForFunction(
        () => document.querySelector('[data-testid=starting-point]')?.getAttribute('data-state') === 'ready',
        null,
        { timeout: 90_000 },
      );
      const backend = await attr('[data-testid=backend]', 'data-backend');
      for (const view of ['runs', 'findings', 'sandbox', 'lab']) {
        await page.locator(`[data-testid=nav-${view}]`).click({ timeout: 90_000 }); // a busy machine: the views build on the main thread
        await page.waitForTimeout(view === 'sandbox' ? 4000 : 1500);
        await page.screenshot({ path: join(results, `robust-view-${view}.png`), fullPage: true });
      }
      // the listener works: an injected inline script is refused and reported
      const ran = await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__inlineRan = true';
        document.head.append(script);
        return window.__inlineRan === true;
      });
      // the event comes a moment later (on a loaded machine, seconds): waited for, not timed
      await page
        .waitForFunction(() => window.__cspViolations.some((v) => v.startsWith('script-src')), null, {
          timeout: 60_000,
        })
        .catch(() => {});
      // and its console line, before the count restarts (a late one would read as a violation of the wasm page)
      for (const t0 = Date.now(); Date.now() - t0 < 60_000; await page.waitForTimeout(100))
        if (consoleErrors.slice(consoleFrom).some((e) => /Content Security Policy/i.test(e))) break;
      const seen = await violations();
      assert(
        !ran && seen.some((v) => v.startsWith('script-src')),
        `an inline script was not refused (ran: ${ran}; violations: ${seen.join('; ')})`,
      );
      await page.evaluate(() => (window.__cspViolations = []));
      consoleFrom = consoleErrors.length;
      // the wasm backend compiles its binary under 'wasm-unsafe-eval' in the worker
      await page.goto(`${base}?backend=wasm#scale=s&worldSize=tiny`);
      await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 60_000 });
      const wasm = await attr('[data-testid=backend]', 'data-backend');
      assert(
        wasm === 'wasm',
        `?backend=wasm ran on ${wasm}: ${await page
          .locator('[data-testid=backend-fallback]')
          .innerText()
          .catch(() => '')}`,
      );
      assert(offOrigin.length === 0, `requests left the origin: ${offOrigin.join(', ')}`);
      const after = await violations();
      assert(after.length === 0, `CSP violations: ${after.join('; ')}`);
      console.log(`      ${backend} and wasm backends under the CSP; no request left ${origin}`);
    },
    group,
  );

  await test(
    'robust: a reload mid-run resumes the run by itself from its checkpoint, keeping the curve up to it',
    async () => {
      const runId = await liveRunPastCheckpoint();
      const rowsBefore = await page.locator('[data-testid=run-row]').count();
      const before = await chartPoints();
      // every text the run's status line shows from the reload's first paint on (the init script stays with the page)
      await page.addInitScript(() => {
        const seen = (window.__runStatus = []);
        new MutationObserver(() => {
          const text = document.querySelector('[data-testid=run-status]')?.textContent?.trim().replace(/\s+/g, ' ');
          if (text && seen.at(-1) !== text) seen.push(text);
        }).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await page.reload();
      const notice = page.locator('[data-testid=recovery-notice]');
      await page.waitForFunction(
        () => /resumed by itself/.test(document.querySelector('[data-testid=recovery-notice]')?.textContent ?? ''),
        null,
        { timeout: 300_000 },
      );
      const text = await notice.innerText();
      const from = Number(/(?:checkpoint at step|resumed by itself from step) (\d+)/.exec(text)?.[1]);
      assert(
        from >= 25 && from % 25 === 0 && from <= before,
        `resumed from step ${from} (the page had ${before} points): ${text}`,
      );
      // it says what the page does in plain words, never the run's internal id
      assert(!text.includes(runId), `the notice names the internal id ${runId}: ${text}`);
      assert((await status()) === 'running', `status after the reload: ${await status()}`);
      // from the first paint the panel says the run is resuming, never "Ready" while it is live
      const shown = await page.evaluate(() => window.__runStatus);
      assert(
        !shown.some((t) => /^Ready/.test(t)) && shown.some((t) => t.startsWith(`Resuming run ${runId} at step `)),
        `the status line after the reload read: ${shown.join(' → ')}`,
      );
      // the curve up to the checkpoint is kept (read back from the store), and training goes on from there
      assert(
        (await chartPoints()) >= from,
        `the chart restarted with ${await chartPoints()} points, below the checkpoint's ${from}`,
      );
      const row = page.locator(`[data-testid=run-row][data-run-id="${runId}"]`);
      await waitPoints(from + 3, 240_000);
      assert((await page.locator('[data-testid=run-row]').count()) === rowsBefore, 'the resume made a new run');
      assert(
        (await row.getAttribute('data-status')) === 'running',
        `the run row says ${await row.getAttribute('data-status')}`,
      );
      const steps = await storedSteps(runId);
      assert(
        contiguous(steps) && steps.length >= from + 3,
        `stored steps are not 1..n: ${steps.slice(0, 5).join(',')}…${steps.slice(-5).join(',')} (${steps.length})`,
      );
      console.log(
        `      ${before} points before the reload; resumed from step ${from}; ${steps.length} stored steps, contiguous; the status line read: ${shown.map((t) => t.slice(0, 48)).join(' → ')}`,
      );
      await page.screenshot({ path: join(results, 'robust-resumed.png'), fullPage: true });
      await stopRun();
    },
    group,
  );

  await test('robust: a crashed worker is replaced and its run resumes by itself', async () => {
    const runId = await liveRunPastCheckpoint();
    const rowsBefore = await page.locator('[data-testid=run-row]').count();
    const worker = trainingWorker();
    assert(worker, 'no training worker found');
    const before = await chartPoints();
    // an uncaught error in the worker reaches the page as the worker's `error` event
    await worker.evaluate(() => setTimeout(() => {
      throw new Error('simulated worker crash');
    }));
    await page.waitForFunction(
      () =>
        /crashed.*resumed by itself/s.test(document.querySelector('[data-testid=recovery-notice]')?.textContent ?? ''),
      null,
      { timeout: 300_000 },
    );
    const text = await page.locator('[data-testid=recovery-notice]').innerText();
    const from = Number(/(?:checkpoint at step|resumed by itself from step) (\d+)/.exec(text)?.[1]);
    assert(text.includes('simulated worker crash') && from >= 25, `notice: ${text}`);
    await waitPoints(Math.max(before, from) + 2, 240_000);
    assert((await status()) === 'running', `status after the restart: ${await status()}`);
    assert((await page.locator('[data-testid=run-row]').count()) === rowsBefore, 'the restart made a new run');
    const steps = await storedSteps(runId);
    assert(contiguous(steps), `stored steps have gaps after the restart (${steps.length})`);
    console.log(`      ${text.replace(/\s+/g, ' ').slice(0, 160)}`);
    await stopRun();
  }, group);

  await test(
    "robust: full storage shows its message; pruning keeps each run's newest checkpoint and the run saves what it owed",
    async () => {
      const runId = await liveRunPastCheckpoint();
      const worker = trainingWorker();
      assert(worker, 'no training worker found');
      // the worker's metric and checkpoint writes fail as on a full disk
      await worker.evaluate(() => {
        const put = IDBObjectStore.prototype.put;
        self.__storageFull = true;
        IDBObjectStore.prototype.put = function (...args) {
          if (self.__storageFull && (this.name === 'metrics' || this.name === 'checkpoints'))
            throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
          return put.apply(this, args);
        };
      });
      const alert = page.locator('[data-testid=storage-full]');
      await alert.waitFor({ timeout: 30_000 });
      const message = await alert.innerText();
      assert(/storage is full/i.test(message) && /Delete old checkpoints/.test(message), `storage message: ${message}`);
      assert((await status()) === 'running', 'a full store stopped the run');
      await alert.screenshot({ path: join(results, 'robust-storage-full.png') });
      await page.locator('[data-testid=prune-checkpoints]').click();
      await page.waitForFunction(
        () =>
          /Deleted \d+ old checkpoint/.test(document.querySelector('[data-testid=recovery-notice]')?.textContent ?? ''),
        null,
        { timeout: 30_000 },
      );
      const keys = await checkpointKeys();
      const perRun = new Map();
      for (const [id] of keys) perRun.set(id, (perRun.get(id) ?? 0) + 1);
      assert(
        [...perRun.values()].every((n) => n === 1) && perRun.has(runId),
        `checkpoints after pruning: ${JSON.stringify(keys)}`,
      );
      // space again: the alert goes, and the points made meanwhile reach the store
      await worker.evaluate(() => (self.__storageFull = false));
      await alert.waitFor({ state: 'detached', timeout: 30_000 });
      const shown = await chartPoints();
      await page.waitForFunction(
        ([id, n]) =>
          new Promise((ok) => {
            const open = indexedDB.open('star-lab');
            open.onsuccess = () => {
              const count = open.result
                .transaction('metrics')
                .objectStore('metrics')
                .count(IDBKeyRange.bound([id], [id, []]));
              count.onsuccess = () => (open.result.close(), ok(count.result >= n));
            };
          }),
        [runId, shown],
        { timeout: 30_000, polling: 500 },
      );
      await page.locator('[data-testid=stop]').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'stopped',
        null,
        { timeout: 60_000 },
      );
      const steps = await storedSteps(runId);
      assert(
        contiguous(steps) && steps.length >= shown,
        `stored steps after the full spell: ${steps.length} (chart had ${shown}), contiguous: ${contiguous(steps)}`,
      );
      console.log(`      ${perRun.size} run(s) keep one checkpoint each; ${steps.length} stored steps, contiguous`);
    },
    group,
  );

  await test('robust: a corrupt stored run is skipped with a notice and the rest still loads', async () => {
    // a readable run of its own, stopped after its first point
    await page.goto('about:blank');
    await page.goto(`${base}?backend=cpu#${LONG_SFT}`);
    await page.waitForSelector('[data-testid=backend][data-backend="cpu"]', { timeout: 60_000 });
    await page.locator('[data-testid=start]').click();
    await waitPoints(1);
    const runId = await page.locator('[data-testid=run-row][data-status=running]').first().getAttribute('data-run-id');
    await stopRun();
    await page.evaluate(
      () =>
        new Promise((ok, fail) => {
          const open = indexedDB.open('star-lab');
          open.onerror = () => fail(open.error);
          open.onsuccess = () => {
            const tx = open.result.transaction('runs', 'readwrite');
            tx.objectStore('runs').put({ id: 'corrupt-e2e', status: 'exploded', config: 7 });
            tx.oncomplete = () => (open.result.close(), ok());
          };
        }),
    );
    await page.reload();
    const notice = page.locator('[data-testid=skipped-records]');
    await notice.waitFor({ timeout: 30_000 });
    const text = await notice.innerText();
    assert(text.includes('corrupt-e2e'), `skipped-records notice: ${text}`);
    assert(
      runId && (await page.locator(`[data-testid=run-row][data-run-id="${runId}"]`).count()) === 1,
      'the readable run is not listed',
    );
    await page.waitForTimeout(500); // the run list settles after the reload
    await page.locator('[aria-label="Stored runs"]').screenshot({ path: join(results, 'robust-skipped.png') });
    await page.evaluate(
      () =>
        new Promise((ok) => {
          const open = indexedDB.open('star-lab');
          open.onsuccess = () => {
            const tx = open.result.transaction('runs', 'readwrite');
            tx.objectStore('runs').delete('corrupt-e2e');
            tx.oncomplete = () => (open.result.close(), ok());
          };
        }),
    );
  }, group);

  await test('robust: across the group, no request left the origin and nothing broke the CSP', async () => {
    const seen = await violations();
    context.off('request', onRequest);
    await context.unroute(`${origin}/**`);
    assert(offOrigin.length === 0, `requests left the origin: ${offOrigin.join(', ')}`);
    assert(seen.length === 0, `CSP violations: ${seen.join('; ')}`);
  }, group);
}
