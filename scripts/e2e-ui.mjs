// The e2e group `ui` (E2E_ONLY=ui): what the page shows is what it does, for a newcomer.
// The Lab's heading describes what Start will run, not the stored run whose curves are shown, and the
// running run while one runs; a malformed link is replaced in the address bar by the setup it was
// read as, and Copy link copies that setup without the page's own `?backend=`; switching views adds
// history entries that Back and Forward move between, keeping the setup; and axe-core finds no serious
// or critical WCAG 2.1 A/AA violation in any view (Lab idle and mid-run, Runs with a run, a finding,
// the Sandbox with a scored plan). One short RL run on `wasm`, stopped once it runs. Screenshots at
// 1280 × 720 (a projector): test-results/view-*.png.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertAccessible } from './e2e-axe.mjs';
import { makeRunBundle } from './e2e-runBundle.mjs';

/** registers the group's tests with e2e.mjs' `test` */
export async function uiTests({ page, context, base, results, test, assert, attr, checkpointDir }) {
  const G = 'ui';
  const RUN_ID = 'e2e-ui-run'; // a finished ARPO run (Curriculum reward, scale s, 2 steps), imported as a bundle
  const heading = () => page.locator('[aria-label=Training] .head').first().innerText();
  const view = () => attr('nav [aria-current=page]', 'data-testid');
  const openLab = async (hash = 'view=lab') => {
    await page.goto('about:blank');
    await page.goto(`${base}?backend=wasm#${hash}`);
    await page.waitForSelector('[data-testid=backend][data-backend]:not([data-backend=""])', { timeout: 60_000 });
  };
  const shot = async (name) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(results, `view-${name}.png`) });
  };
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 1280, height: 720 });

  await test('ui: Runs lists an imported run; axe finds no serious violation there', async () => {
    const file = join(results, 'e2e-ui-bundle.json');
    writeFileSync(file, makeRunBundle(checkpointDir, RUN_ID));
    await openLab('view=runs');
    await page.locator('[data-testid=import-bundle]').setInputFiles(file);
    await page.waitForSelector(`[data-testid=runs-row][data-run-id^="${RUN_ID}"][data-results=read]`, {
      timeout: 20_000,
    });
    const id = await page
      .locator(`[data-testid=runs-row][data-run-id^="${RUN_ID}"]`)
      .first()
      .getAttribute('data-run-id');
    assert(
      (await page.getByRole('button', { name: `Delete run ${id}`, exact: true }).count()) === 1,
      `no Delete button named for run ${id}`,
    );
    await shot('runs');
    await assertAccessible(page, 'Runs');
  }, G);

  await test('ui: the Lab heading describes what Start will run, not the stored run shown', async () => {
    await openLab();
    await page.locator(`[data-testid=run-row][data-run-id^="${RUN_ID}"]`).first().click();
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid=rl-charts]')?.getAttribute('data-points')) > 0,
      null,
      { timeout: 10_000 },
    );
    await page.locator('[data-testid=choice-algorithm-dapo]').click();
    await page.locator('[data-testid=choice-scale-l]').click();
    const text = await heading();
    const start = await page.locator('[data-testid=start]').innerText();
    assert(/DAPO/.test(start), `the Start button reads ${start}`);
    // a knob DAPO does not read is disabled and says why (never dropped in silence); DAPO's own clip-high is live
    const klWhy = await page.locator('#off-klCoef').textContent();
    assert(
      (await page.locator('#setting-klCoef').isDisabled()) && /GRPO only/.test(klWhy ?? ''),
      `KL under DAPO: disabled ${await page.locator('#setting-klCoef').isDisabled()}, reason ${klWhy}`,
    );
    assert(!(await page.locator('#setting-clipHigh').isDisabled()), 'clip-high is disabled under DAPO');
    const title = await page.locator('[aria-label=Training] h2').first().innerText();
    assert(
      /DAPO/.test(title) && !/ARPO/.test(title),
      `the heading names another algorithm than Start's DAPO: ${title}`,
    );
    assert(
      /\bSum\b/.test(text) && !/Curriculum/.test(text),
      `the heading names another reward than the setup's Sum: ${text}`,
    );
    assert(
      /\b40\b\s*steps/.test(text) && /l-tiny|\bL\b/.test(text),
      `the heading lacks the setup's 40 steps or scale L: ${text}`,
    );
    const curves = await page.locator('[data-testid=shown-run]').innerText();
    assert(
      curves.includes(RUN_ID) && /ARPO/.test(curves),
      `the stored curves are not labelled with their own run: ${curves}`,
    );
    await page.waitForTimeout(300); // the charts' redraw
    await shot('lab-stored');
    await assertAccessible(page, 'Lab with a stored run shown');
  }, G);

  await test(
    'ui: a malformed link is corrected in the address bar; Copy link copies the setup, never ?backend=',
    async () => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
      await openLab('scale=xl&steps=-5&foo=bar&reward=macro');
      const notice = await page.locator('[data-testid=url-notice]').innerText();
      for (const key of ['scale', 'steps', 'foo'])
        assert(notice.includes(key), `the notice does not name ${key}: ${notice}`);
      const address = await page.evaluate(() => ({ hash: location.hash, search: location.search }));
      assert(
        address.hash === '#reward=macro',
        `the address still holds ${address.hash}, not the setup read from it (#reward=macro)`,
      );
      assert(
        address.search === '?backend=wasm',
        `the page's own ?backend= was dropped from its address: ${address.search}`,
      );
      await page.locator('[data-testid=copy-link]').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid=copy-link]')?.textContent.includes('Copied'),
        null,
        { timeout: 5_000 },
      );
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert(copied === `${base}#reward=macro`, `Copy link copied ${copied}, expected ${base}#reward=macro`);
    },
    G,
  );

  await test('ui: Back and Forward move between views and keep the setup', async () => {
    await openLab();
    await page.locator('[data-testid=choice-scale-l]').click();
    await page.locator('[data-testid=nav-runs]').click();
    await page.locator('[data-testid=nav-findings]').click();
    await page.locator('[data-testid=finding-tab-T3]').click();
    const url = () => page.evaluate(() => location.href);
    assert(
      /view=findings/.test(await url()) && /finding=T3/.test(await url()) && /scale=l/.test(await url()),
      `the address: ${await url()}`,
    );
    const back = async (want) => {
      await page.goBack();
      assert((await url()).startsWith(base), `Back left the lab for ${await url()}`);
      await page
        .waitForFunction(
          (w) => document.querySelector('nav [aria-current=page]')?.getAttribute('data-testid') === w,
          want,
          { timeout: 5_000 },
        )
        .catch(async () => {
          throw new Error(`after Back the view is ${await view()}, expected ${want} (${await url()})`);
        });
    };
    await back('nav-findings');
    await page.waitForSelector('[data-testid=finding][data-finding=T1]', { timeout: 5_000 }).catch(async () => {
      throw new Error(`Back from T3 shows finding ${await attr('[data-testid=finding]', 'data-finding')}, not T1`);
    });
    await back('nav-runs');
    await back('nav-lab');
    assert(
      (await attr('[data-testid=choice-scale-l]', 'aria-checked')) === 'true' && /scale=l/.test(await url()),
      'Back lost the setup (scale L)',
    );
    await page.goForward();
    await page
      .waitForFunction(
        () => document.querySelector('nav [aria-current=page]')?.getAttribute('data-testid') === 'nav-runs',
        null,
        { timeout: 5_000 },
      )
      .catch(async () => {
        throw new Error(`after Forward the view is ${await view()}, expected nav-runs`);
      });
  }, G);

  await test('ui: axe finds no serious violation in the Lab (idle and mid-run), a finding, the Sandbox', async () => {
    await openLab('finding=T7');
    await page.waitForSelector('[data-testid=finding][data-finding=T7]');
    await shot('findings');
    await assertAccessible(page, 'Findings (T7)');

    await openLab('view=sandbox');
    await page.waitForSelector('[data-testid=sandbox][data-ready=true]', { timeout: 60_000 });
    await page.locator('[data-testid=plan-teacher]').click();
    await page.locator('[data-testid=plan-score]').click();
    await page.waitForSelector('[data-testid=plan-result]');
    await shot('sandbox');
    await assertAccessible(page, 'Sandbox with a scored plan');

    await openLab('stage=rl&scale=s&steps=3&evalQueries=1&evalToolQa=1&groupSize=2&queriesPerStep=1');
    await page.waitForSelector('[data-testid=starting-point][data-state=ready]', { timeout: 60_000 });
    await shot('lab');
    await assertAccessible(page, 'Lab (idle)');
    await page.locator('[data-testid=start]').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid=run-status]')?.getAttribute('data-status') === 'running',
      null,
      { timeout: 60_000 },
    );
    // mid-run the heading says it describes the running run, and still does after the setup is changed
    await page.locator('[data-testid=choice-algorithm-arpo]').click();
    const text = await heading();
    const title = await page.locator('[aria-label=Training] h2').first().innerText();
    assert(
      /running/i.test(text) && /GRPO/.test(title) && /setup on the left differs/.test(text),
      `mid-run the heading does not describe the running GRPO run: ${text}`,
    );
    await assertAccessible(page, 'Lab (mid-run)');
    await shot('lab-running');
    await page.locator('[data-testid=stop]').click();
    await page.waitForFunction(
      () =>
        ['stopped', 'completed'].includes(
          document.querySelector('[data-testid=run-status]')?.getAttribute('data-status'),
        ),
      null,
      { timeout: 180_000 },
    );
  }, G);
  await page.setViewportSize(viewport);
}
