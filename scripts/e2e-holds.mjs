// The e2e group `holds` (E2E_ONLY=holds): the test holds other groups use to force a moment
// (src/worker/testHolds.ts). Served by the test server (its Server-Timing marker), `?holds=after-step:1`
// holds a tiny SFT run after step 1 — that step shown, the next not started — until the test releases it;
// the same link served without the marker, as a production host serves the page, is refused (said on
// <html data-test-holds="refused">, no `window.__testHolds`) and the run trains to its end untouched.
// A few seconds: two 3-step SFT runs of the smoke-test model on the cpu backend.

const SFT = 'stage=sft&steps=3&seed=5&scale=s&worldSize=tiny&trainSize=40';

export async function holdsTests({ page, context, base, productionBase, test, assert }) {
  /** starts the Lab's SFT run on `p` (opened at `url`, cpu forced) and returns once it runs */
  async function start(p, url) {
    await p.goto('about:blank');
    await p.goto(url);
    await p.waitForSelector('[data-testid=backend][data-backend="cpu"]', { timeout: 60_000 });
    await p.locator('[data-testid=start]').click();
  }
  const status = (p) => p.locator('[data-testid=run-status]').getAttribute('data-status');
  const points = async (p) => Number(await p.locator('[data-testid=loss-chart]').getAttribute('data-points'));
  // hang guards, not speed limits: a loaded machine takes minutes to boot a page and its worker
  const waitStatus = (p, want) =>
    p.waitForFunction((w) => document.querySelector('[data-testid=run-status]')?.dataset.status === w, want, {
      timeout: 600_000,
    });

  await test(
    'holds: the test server can hold a run after a step until it releases it; served without its marker, the page refuses the flag',
    async () => {
      await start(page, `${base}?backend=cpu&holds=after-step:1#${SFT}`);
      assert(
        (await page.evaluate(() => document.documentElement.dataset.testHolds)) === 'after-step:1',
        'the test server did not arm the holds',
      );
      // the run holds after step 1 whatever the machine's speed: nothing moves until the release
      await page.waitForFunction(() => window.__testHolds?.held.length === 1, null, { timeout: 600_000 });
      const held = await page.evaluate(() => window.__testHolds.held[0]);
      assert(held.step === 1, `held after step ${held.step}`);
      assert((await status(page)) === 'running', `a held run reads ${await status(page)}`);
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid=loss-chart]')?.dataset.points) === 1,
      );
      await page.evaluate(() => window.__testHolds.release());
      await waitStatus(page, 'completed');
      assert((await points(page)) === 3, `released, the run has ${await points(page)} of 3 points`);

      // a production host: no marker, so the flag is refused and the run is never held (nothing here releases it)
      const prod = await context.newPage();
      prod.setDefaultTimeout(120_000); // as the harness's page
      try {
        await start(prod, `${productionBase}?backend=cpu&holds=after-step:1#${SFT}`);
        const flag = await prod.evaluate(() => [document.documentElement.dataset.testHolds, typeof window.__testHolds]);
        assert(flag[0] === 'refused' && flag[1] === 'undefined', `served without the marker, holds read ${flag}`);
        await waitStatus(prod, 'completed');
        assert((await points(prod)) === 3, `the unheld run has ${await points(prod)} of 3 points`);
      } finally {
        await prod.close();
      }
    },
    'holds',
  );
}
