// The e2e group `startingPoint`, called from e2e.mjs: the RL starting point (a shipped SFT checkpoint)
// is loaded and checked by the worker and its card shown; a truncated weights file, a card whose
// SHA-256 does not match, and a missing model.json are each refused with their reason, and the store
// gains nothing. Screenshots: 5-starting-point*.png, 6-starting-point-error.png.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeCounts } from './e2e-store.mjs';

/** registers the group's tests; `checkpointDir` is served as s-tiny (routed when it is not `shippedCheckpoint`) */
export async function startingPointTests({
  page,
  context,
  base,
  results,
  test,
  assert,
  attr,
  checkpointDir,
  shippedCheckpoint,
}) {
  const SP_FILES = ['model.json', 'weights.bin', 'card.json'];
  const checkpointFile = (f) => readFileSync(join(checkpointDir, f));
  /** serves the s-tiny files through the browser context (the worker's fetches included), `change` altering one */
  async function routeCheckpoint(change = {}) {
    await context.unroute('**/checkpoints/s-tiny/*');
    await context.route('**/checkpoints/s-tiny/*', (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop();
      if (change[file]) return route.fulfill(change[file]);
      if (!SP_FILES.includes(file)) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({
        status: 200,
        contentType: file.endsWith('.json') ? 'application/json' : 'application/octet-stream',
        body: checkpointFile(file),
      });
    });
  }
  async function openStartingPoint(wanted) {
    await page.goto('about:blank');
    await page.goto(`${base}?backend=cpu#scale=s&worldSize=tiny`);
    const card = page.locator('[data-testid=starting-point]');
    await page
      .waitForFunction(
        (w) => document.querySelector('[data-testid=starting-point]')?.getAttribute('data-state') === w,
        wanted,
        { timeout: 60_000 },
      )
      .catch(async () => {
        throw new Error(
          `starting point is ${await card.getAttribute('data-state')}, expected ${wanted}: ${await card.innerText()}`,
        );
      });
    return card;
  }

  await test(
    'starting point: the shipped s checkpoint is loaded, checked and its card shown',
    async () => {
      assert(
        existsSync(join(checkpointDir, 'card.json')),
        `no checkpoint at ${checkpointDir} (the shipped public/checkpoints/s-tiny, or set E2E_CHECKPOINT)`,
      );
      const card = JSON.parse(checkpointFile('card.json'));
      // the shipped folder is served by the lab itself; another folder is routed in its place
      if (checkpointDir !== shippedCheckpoint) await routeCheckpoint();
      try {
        await openStartingPoint('ready');
      } finally {
        await context.unroute('**/checkpoints/s-tiny/*');
      }
      const label = await page.locator('[data-testid=starting-point-label]').innerText();
      assert(label.includes('s-tiny'), `label: ${label}`);
      for (const key of ['delivery', 'success', 'oodAccuracy']) {
        const shown = Number(await attr(`[data-testid=starting-${key}]`, 'data-value'));
        assert(shown === card.evaluation.free[key], `${key} shown ${shown}, card ${card.evaluation.free[key]}`);
      }
      const text = await page.locator('[data-testid=starting-point-summary]').innerText();
      assert(
        text.includes(`${card.sft.steps.toLocaleString('en-US')} steps`) && text.includes('tiny'),
        `summary lacks how it was made: ${text}`,
      );
      assert(
        (await page.locator('[data-testid=starting-point-command]').textContent()) === card.command,
        "the card's command is not shown",
      );
      console.log(
        `      ${label}: ${(await page.locator('[data-testid=starting-point] .figures').innerText()).replace(/\s+/g, ' ')}`,
      );
      await page.locator('[data-testid=starting-point]').screenshot({ path: join(results, '5-starting-point.png') });
      await page.screenshot({ path: join(results, '5-starting-point-page.png') });
    },
    'startingPoint',
  );

  const corrupt = [
    [
      'a truncated weights.bin',
      () => ({
        'weights.bin': {
          status: 200,
          contentType: 'application/octet-stream',
          body: checkpointFile('weights.bin').subarray(0, 4096),
        },
      }),
      /^The shipped checkpoint s-tiny is damaged or mismatched: weights\.bin has 4096 bytes, model\.json describes \d+ \(truncated\?\)/,
    ],
    [
      'a card whose SHA-256 does not match',
      () => {
        const card = JSON.parse(checkpointFile('card.json'));
        card.weights.sha256 = card.weights.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
        return { 'card.json': { status: 200, contentType: 'application/json', body: JSON.stringify(card) } };
      },
      /^The shipped checkpoint s-tiny is damaged or mismatched: weights\.bin does not match its card \(SHA-256 [0-9a-f]{12}…, card [0-9a-f]{12}…\)/,
    ],
    [
      'a missing model.json (404)',
      () => ({ 'model.json': { status: 404, body: 'not found' } }),
      /^The shipped checkpoint s-tiny is missing \(\/checkpoints\/s-tiny\/model\.json: 404\)/,
    ],
  ];
  for (const [name, change, reason] of corrupt) {
    await test(
      `starting point: ${name} is refused with its reason, and nothing is stored`,
      async () => {
        assert(existsSync(join(checkpointDir, 'card.json')), `no checkpoint at ${checkpointDir}`);
        await page.goto(`${base}?backend=cpu#scale=s&worldSize=tiny`);
        const before = await storeCounts(page);
        await routeCheckpoint(change());
        try {
          await openStartingPoint('error');
          const shown = await page.locator('[data-testid=starting-point-reason]').innerText();
          assert(reason.test(shown), `reason shown: ${shown}`);
          assert(
            (await page.locator('[data-testid=starting-point-error]').innerText()).includes('Nothing was stored'),
            'the error box does not say nothing was stored',
          );
          // asking again gives the same answer and still stores nothing
          await page.locator('[data-testid=starting-point] button', { hasText: 'Check again' }).click();
          await page.waitForFunction(
            () => document.querySelector('[data-testid=starting-point]')?.getAttribute('data-state') === 'error',
            null,
            { timeout: 60_000 },
          );
          const after = await storeCounts(page);
          assert(
            JSON.stringify(after) === JSON.stringify(before),
            `the store changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
          );
          console.log(`      ${shown}`);
          if (name.startsWith('a truncated'))
            await page
              .locator('[data-testid=starting-point]')
              .screenshot({ path: join(results, '6-starting-point-error.png') });
        } finally {
          await context.unroute('**/checkpoints/s-tiny/*');
        }
      },
      'startingPoint',
    );
  }
}
