// The e2e group `runs` (E2E_ONLY=runs), no training: the Runs view imports a run bundle, lists it,
// overlays two runs' curves, exports the table as CSV and a run as a bundle that imports again,
// refuses a corrupt bundle with its reason (the store unchanged), deletes a run after a confirmation,
// and the episode viewer opens a stored rollout; a shared run's link, made from a committed run's metrics, draws
// its curves. Screenshots: test-results/runs.png, episode.png, shared-run-1280.png, shared-run-390.png.
// The bundle is written by e2e-runBundle.mjs, independently of the page's reader.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { EXPECTED, makeRunBundle } from './e2e-runBundle.mjs';

/** registers the group's tests with e2e.mjs' `test` */
export async function runsTests({ page, base, results, test, assert, attr, storeCounts, checkpointDir }) {
  const G = 'runs';
  const bundlePath = join(results, 'e2e-run-bundle.json');
  const row = (id) => page.locator(`[data-testid=runs-row][data-run-id="${id}"]`);
  const count = async () => Number(await attr('[data-testid=runs-count]', 'data-count'));
  const message = async (kind) => {
    const box = page.locator('[data-testid=runs-message]');
    await page.waitForSelector(`[data-testid=runs-message][data-kind=${kind}]`, { timeout: 20_000 }).catch(async () => {
      throw new Error(`expected a ${kind} message, saw: ${(await box.count()) ? await box.innerText() : 'none'}`);
    });
    return box.innerText();
  };
  const importFile = async (file) => {
    // dismiss the previous import's message when there is one (a click on nothing would wait out the timeout)
    const dismiss = page.locator('[data-testid=runs-message] button');
    if (await dismiss.count()) await dismiss.click();
    await page.locator('[data-testid=import-bundle]').setInputFiles(file);
  };
  const download = async (click) => {
    const [file] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), click()]);
    return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
  };
  /** ids of the runs this group imported, to leave the other groups' runs alone */
  let first = null;
  let second = null;

  await test('runs: a bundle imports and is listed with its start and final results', async () => {
    writeFileSync(bundlePath, makeRunBundle(checkpointDir));
    await page.goto('about:blank');
    await page.goto(`${base}?backend=cpu#view=runs`);
    await page.waitForSelector('[data-testid=runs-count]', { timeout: 30_000 });
    const before = await count();
    await importFile(bundlePath);
    const text = await message('ok');
    first = /as run (\S+)\./.exec(text)?.[1];
    assert(first === 'e2e-run-1' || first?.startsWith('e2e-run-1-import'), `imported as: ${text}`);
    await row(first).waitFor({ timeout: 10_000 });
    assert((await count()) === before + 1, 'the run count did not grow by one');
    // the row is listed from the run record; its results follow a second read (its metric points)
    await page.waitForSelector(`[data-testid=runs-row][data-run-id="${first}"][data-results=read]`, {
      timeout: 15_000,
    });
    const cell = (name) => row(first).locator(`[data-testid=cell-${name}]`).innerText();
    const shown = [
      await cell('start-success'),
      await cell('start-ood'),
      await cell('final-success'),
      await cell('final-ood'),
    ];
    assert(
      JSON.stringify(shown) ===
        JSON.stringify([EXPECTED.startSuccess, EXPECTED.startOod, EXPECTED.finalSuccess, EXPECTED.finalOod]),
      `results shown: ${shown.join(', ')}`,
    );
    const rowText = await row(first).innerText();
    assert(
      /ARPO/.test(rowText) &&
        /Curriculum/.test(rowText) &&
        /webgpu · e2e fixture/.test(rowText) &&
        /45 s/.test(rowText),
      `the row lacks its setup, backend or duration: ${rowText}`,
    );
  }, G);

  await test('runs: the same bundle again is recognised, another run is added; two runs\' curves overlay', async () => {
    assert(first, 'no run from the previous test');
    const before = await count();
    await importFile(bundlePath);
    const again = await message('ok');
    assert(
      again.includes(`already stored as run ${first}`) && (await count()) === before,
      `the same bundle again: ${again}`,
    );
    const secondPath = join(results, 'e2e-run-bundle-2.json');
    writeFileSync(secondPath, makeRunBundle(checkpointDir, 'e2e-run-2'));
    await importFile(secondPath);
    second = /as run (\S+)\./.exec(await message('ok'))?.[1];
    assert(second && second !== first && second.startsWith('e2e-run-2'), `second import got id ${second}`);
    await row(second).waitFor({ timeout: 10_000 });
    for (const id of [first, second]) await row(id).locator('[data-testid=overlay-toggle]').check();
    await page.waitForSelector('[data-testid=run-overlay][data-runs="2"]', { timeout: 10_000 });
    const plot = page.locator('[data-testid=overlay-plot][data-metric="reward/mean"]');
    assert(
      (await plot.getAttribute('data-series')) === '2' && (await plot.getAttribute('data-measured')) === '2',
      'the reward chart does not overlay both runs',
    );
    assert(
      (await page.locator('[data-testid=overlay-plot][data-metric="eval/ood_accuracy"]').count()) === 1,
      'no OOD chart in the overlay',
    );
    await page.screenshot({ path: join(results, 'runs.png'), fullPage: true });
  }, G);

  await test('runs: the table exports as CSV and JSON with the runs\' results', async () => {
    const csv = await download(() => page.locator('[data-testid=export-csv]').click());
    assert(/^star-lab-runs-.*\.csv$/.test(csv.name), `csv file name: ${csv.name}`);
    const lines = csv.text.trim().split('\n');
    const header = lines[0].split(',');
    for (const col of [
      'id',
      'status',
      'duration_s',
      'backend',
      'start_success',
      'start_ood',
      'final_success',
      'final_ood',
      'reward',
      'algorithm',
      'scale',
    ]) {
      assert(header.includes(col), `CSV header lacks ${col}: ${lines[0]}`);
    }
    const record = (id) => {
      const line = lines.find((l) => l.startsWith(`${id},`));
      assert(line, `CSV has no row for ${id}`);
      return Object.fromEntries(line.split(',').map((v, i) => [header[i], v]));
    };
    for (const id of [first, second]) {
      const r = record(id);
      assert(
        r.start_success === '0.1' && r.start_ood === '0.5' && r.final_success === '0.25' && r.final_ood === '0.45',
        `CSV results of ${id}: ${JSON.stringify(r)}`,
      );
      assert(
        r.algorithm === 'arpo' && r.reward === 'curriculum' && r.duration_s === '45' && r.status === 'completed',
        `CSV setup of ${id}: ${JSON.stringify(r)}`,
      );
    }
    assert(lines.length - 1 === (await count()), `CSV has ${lines.length - 1} rows for ${await count()} runs`);
    const json = JSON.parse((await download(() => page.locator('[data-testid=export-json]').click())).text);
    assert(
      json.format === 'star-lab-runs/1' && json.runs.some((r) => r.id === first && r.results.final.ood === 0.45),
      'the JSON export lacks the run or its results',
    );
  }, G);

  await test('runs: a run exports as a bundle that imports again', async () => {
    const exported = await download(() => row(first).locator('[data-testid=export-bundle]').click());
    assert(exported.name === `star-lab-run-${first}.json`, `bundle file name: ${exported.name}`);
    const file = JSON.parse(exported.text);
    const original = JSON.parse(readFileSync(bundlePath, 'utf8'));
    assert(file.format === 'star-lab-run-bundle/1' && file.run.id === first, 'the exported bundle is not this run');
    assert(
      file.checkpoint.weights.sha256 === original.checkpoint.weights.sha256,
      'the exported weights differ from the imported ones',
    );
    assert(
      file.metrics.length === 3 && file.episodes.length === 1,
      `exported ${file.metrics.length} points and ${file.episodes.length} episodes`,
    );
    const path = join(results, 'e2e-run-bundle-exported.json');
    writeFileSync(path, exported.text);
    const before = await count();
    await importFile(path);
    // the run's own export is the same run: recognised, not stored twice
    const text = await message('ok');
    assert(text.includes(`already stored as run ${first}`), `re-import: ${text}`);
    assert((await count()) === before, 'the re-import added a run');
  }, G);

  await test('runs: a corrupt bundle is refused with its reason, and nothing is stored', async () => {
    const file = JSON.parse(readFileSync(bundlePath, 'utf8'));
    file.checkpoint.weights.sha256 = file.checkpoint.weights.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const before = await storeCounts();
    const runsBefore = await count();
    await importFile({
      name: 'corrupt-bundle.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(file)),
    });
    const text = await message('error');
    assert(
      /corrupt-bundle\.json was not imported, and nothing was stored: .*weights do not match their SHA-256/.test(text),
      `reason shown: ${text}`,
    );
    await importFile({
      name: 'not-a-bundle.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"format": "something-else"}'),
    });
    assert(/not a STAR Lab run bundle/.test(await message('error')), 'a foreign file is not named as such');
    assert((await count()) === runsBefore, 'the run count changed');
    assert(JSON.stringify(await storeCounts()) === JSON.stringify(before), 'the store changed');
    console.log(`      ${text.replace(/\s*×$/, '')}`);
  }, G);

  await test(
    'episode viewer: a stored ARPO rollout shows its calls, plan, verdicts, four rewards and tree',
    async () => {
      await page.locator('[data-testid=episode-run]').selectOption(first);
      await page.waitForSelector('[data-testid=episode-step] option[value="2"]', {
        state: 'attached',
        timeout: 10_000,
      });
      await page.locator('[data-testid=episode-item]').first().locator('[data-testid=open-episode]').click();
      const detail = page.locator('[data-testid=episode-detail]');
      await detail.waitFor({ timeout: 10_000 });
      for (const [kind, value] of Object.entries(EXPECTED.rewards)) {
        const shown = Number(await detail.locator(`[data-testid=reward-${kind}]`).getAttribute('data-value'));
        assert(Math.abs(shown - value) < 1e-9, `${kind} reward shown ${shown}, expected ${value}`);
      }
      assert(
        (await detail.locator('[data-testid=episode-plan] tbody tr').count()) === 3,
        'the plan is not a 3-day table',
      );
      assert((await detail.locator('[data-testid=episode-checks] tr').count()) === 13, 'not every verdict is listed');
      assert(
        /Cafe Uno' is in Dallas/.test(await detail.locator('[data-testid=episode-checks]').innerText()),
        "a failed check's reason is missing",
      );
      assert(
        (await detail.locator('[data-testid=call-failure]').innerText()) === 'injected failure',
        'the injected failure is not marked',
      );
      const tree = detail.locator('[data-testid=branch-tree]');
      assert(
        (await tree.getAttribute('data-nodes')) === '3' && (await tree.getAttribute('data-branches')) === '1',
        'the ARPO tree is not drawn with its branch',
      );
      await page.locator('[data-testid=episode-viewer]').screenshot({ path: join(results, 'episode.png') });
    },
    G,
  );

  await test('runs: delete asks first, then removes the run and its records', async () => {
    const before = await storeCounts();
    const runsBefore = await count();
    await row(second).locator('[data-testid=delete-run]').click();
    await page.locator('[data-testid=runs-row] button', { hasText: 'Cancel' }).click();
    assert((await row(second).count()) === 1 && (await count()) === runsBefore, 'cancel deleted the run');
    await row(second).locator('[data-testid=delete-run]').click();
    await row(second).locator('[data-testid=confirm-delete]').click();
    await row(second).waitFor({ state: 'detached', timeout: 10_000 });
    const after = await storeCounts();
    assert((await count()) === runsBefore - 1, 'the run count did not fall by one');
    assert(
      after.runs === before.runs - 1 &&
        after.metrics === before.metrics - 3 &&
        after.episodes === before.episodes - 1 &&
        after.checkpoints === before.checkpoints - 1,
      `the store did not drop the run's records: ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
    );
    assert(
      (await page.locator('[data-testid=run-overlay][data-runs="1"]').count()) === 1,
      'the deleted run is still overlaid',
    );
  }, G);

  await test('runs: a shared run\'s link draws its curves with the Lab\'s charts; an older link says it has none', async () => {
    // the link is made by the page's own encoder (loaded through tsx) from a committed 40-step run
    const { runLink, runResultOf } = await tsImport('../src/lessons/runResultCode.ts', import.meta.url);
    const dir = 'results/rl-recipe/m-seed1-real';
    const points = readFileSync(`${dir}/metrics.jsonl`, 'utf8').trim().split('\n').map((l) => {
      const values = JSON.parse(l);
      return { step: values.step, values };
    });
    const result = runResultOf({
      setting: 'worldSize=tiny&evalQueries=300', seed: 1, kind: 'rl', status: 'completed', backend: 'wasm',
      build: 'e2e', steps: 40, totalSteps: 40, last: {}, points,
    });
    await page.goto('about:blank');
    await page.goto(runLink(`${base}`, result));
    const card = page.locator('[data-testid=shared-run][data-ok=true]');
    await card.waitFor({ timeout: 30_000 });
    const plots = card.locator('[data-testid=shared-run-curves] [data-testid=metric-plot]');
    await plots.nth(3).waitFor({ timeout: 10_000 });
    const drawn = await plots.evaluateAll((figs) => figs.map((f) => [f.dataset.metric, Number(f.dataset.count)]));
    for (const [key, n] of [['reward/mean', 40], ['charts/success', 40], ['eval/success', 5], ['losses/kl', 40]])
      assert(drawn.some(([k, c]) => k === key && c === n), `${key} is not drawn with ${n} points: ${JSON.stringify(drawn)}`);
    assert((await card.locator('canvas').count()) >= 4, 'the charts have no canvas');
    await card.screenshot({ path: join(results, 'shared-run-1280.png') });
    const size = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await card.screenshot({ path: join(results, 'shared-run-390.png') });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert(overflow <= 0, `the shared run is ${overflow} px wider than a phone`);
    } finally {
      await page.setViewportSize(size);
    }
    // a version-1 link (written before the curves rode along) still opens, and says it has no curves
    const v1 = 'r1.WzEsInN0ZXBzPTYiLDMsInNmdCIsImNvbXBsZXRlZCIsIndhc20iLCJhYmMxMjM0IiwyLDIsW1swLDMsMzAsMC41XSxbMiwxMiwzMCxudWxsXV0sbnVsbCwwLjUxXQ.7b8051ce';
    await page.evaluate((code) => (location.hash = `#run=${code}`), v1); // the page follows the address
    await page
      .locator('[data-testid=shared-run-curves-note]', { hasText: 'no training curves' })
      .waitFor({ timeout: 10_000 })
      .catch(() => assert(false, 'a version-1 link does not open saying it carries no curves'));
    assert((await plots.count()) === 2, 'a version-1 link does not draw its two evaluation charts');
  }, G);
}
