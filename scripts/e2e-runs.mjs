// The e2e group `runs` (E2E_ONLY=runs), no training: the Runs view imports a run bundle, lists it,
// overlays two runs' curves, exports the table as CSV and a run as a bundle that imports again,
// refuses a corrupt bundle with its reason (the store unchanged), deletes a run after a confirmation,
// and the episode viewer opens a stored rollout. Screenshots: test-results/runs.png, episode.png.
//
// The bundle (`star-lab-run-bundle/1`) is written here in plain JS from the format's description
// rather than by src/store/runBundle.ts, so the page's reader is checked against an independent
// writer: a finished ARPO run with the shipped s-tiny weights as its checkpoint, a few metric points
// (evaluations at steps 0 and 2) and one stored training rollout at step 2.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** the numbers the page should show for the bundle's run */
export const EXPECTED = {
  startSuccess: '10.0%',
  startOod: '50.0%',
  finalSuccess: '25.0%',
  finalOod: '45.0%',
  rewards: { sum: 0.9375, macro: 0.5, success: 0, curriculum: 0.9375 },
};

const COMMONSENSE = [
  'is_reasonable_visiting_city',
  'is_valid_restaurants',
  'is_valid_attractions',
  'is_valid_accommodation',
  'is_valid_transportation',
  'is_valid_information_in_current_city',
  'is_valid_information_in_sandbox',
  'is_not_absent',
];
const HARD = ['valid_cost', 'valid_room_rule', 'valid_cuisine', 'valid_room_type', 'valid_transportation'];

const encoded = (bytes) => ({
  base64: Buffer.from(bytes).toString('base64'),
  bytes: bytes.length,
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

/** the bundle's JSON text; `checkpointDir` holds model.json and weights.bin */
export function makeRunBundle(checkpointDir, id = 'e2e-run-1') {
  const model = JSON.parse(readFileSync(join(checkpointDir, 'model.json'), 'utf8'));
  const weights = readFileSync(join(checkpointDir, 'weights.bin'));
  const created = Date.UTC(2025, 5, 1, 9, 0, 0);
  const config = {
    stage: 'rl',
    scale: 's',
    reward: 'curriculum',
    algorithm: 'arpo',
    steps: 2,
    trainSize: 20,
    mix: [4, 3, 3],
    toolFailureRate: 0.1,
    seed: 6,
  };
  const metrics = [
    { runId: id, step: 0, t: 1_000, values: { 'eval/success': 0.1, 'eval/ood_accuracy': 0.5, 'eval/seconds': 1 } },
    { runId: id, step: 1, t: 20_000, values: { 'reward/mean': 0.4, success: 0, kl: 0.001 } },
    {
      runId: id,
      step: 2,
      t: 45_000,
      values: {
        'reward/mean': 0.6,
        success: 0.5,
        kl: 0.002,
        'eval/success': 0.25,
        'eval/ood_accuracy': 0.45,
        'eval/seconds': 1,
      },
    },
  ];
  const checks = [
    ...COMMONSENSE.map((key) => ({
      key,
      kind: 'commonsense',
      pass: key !== 'is_valid_restaurants',
      reason:
        key === 'is_valid_restaurants' ? "Day 2 lunch 'Cafe Uno' is in Dallas, but the day is spent in Austin" : 'ok',
    })),
    ...HARD.map((key) => ({
      key,
      kind: 'hard',
      pass: key === 'valid_cost' || key === 'valid_transportation' ? true : null,
      reason:
        key === 'valid_cost'
          ? 'total $1,240 within the $1,800 budget'
          : key === 'valid_transportation'
            ? 'ok'
            : 'the query sets no such constraint',
    })),
  ];
  const day = (days, current_city, transportation, breakfast, attraction, lunch, dinner, accommodation) => ({
    days,
    current_city,
    transportation,
    breakfast,
    attraction,
    lunch,
    dinner,
    accommodation,
  });
  const trajectory = {
    kind: 'travel',
    prompt: 'Plan a 3-day trip from Dallas to Austin for 1 person, March 4 to March 6, 2022, with a budget of $1,800.',
    level: 'easy',
    calls: [
      {
        call: 'SearchFlight(Dallas, Austin, 2022-03-04)',
        observation: 'SearchFlight is temporarily unavailable (503). Try again.',
        error: true,
        injected: true,
      },
      {
        call: 'SearchFlight(Dallas, Austin, 2022-03-04)',
        observation: 'F0123 Dallas→Austin 08:10-09:05 $120',
        error: false,
        injected: false,
      },
      { call: 'SearchRestaurant(Austin)', observation: 'Cafe Uno (Italian, $25) ...', error: false, injected: false },
    ],
    callErrors: [],
    finish: 'plan',
    tokens: 212,
    plan: [
      day(
        1,
        'from Dallas to Austin',
        'Flight Number: F0123, from Dallas to Austin',
        '-',
        'Zilker Park, Austin',
        'Taco Joint, Austin',
        'BBQ Hall, Austin',
        'River Inn, Austin',
      ),
      day(
        2,
        'Austin',
        '-',
        'Bean Bar, Austin',
        'Capitol, Austin',
        'Cafe Uno, Dallas',
        'Noodle Shop, Austin',
        'River Inn, Austin',
      ),
      day(
        3,
        'from Austin to Dallas',
        'Flight Number: F0456, from Austin to Dallas',
        'Bean Bar, Austin',
        '-',
        '-',
        '-',
        '-',
      ),
    ],
    planError: null,
    checks,
    success: false,
    rl: {
      algorithm: 'arpo',
      rewardStage: 'sum',
      group: 0,
      index: 0,
      reward: 0.9375,
      advantage: 0.71,
      promptTokens: 60,
      tree: [
        {
          parent: null,
          forkAt: 60,
          fill: false,
          tokens: 212,
          reward: 0.9375,
          advantage: 0.71,
          delivered: true,
          success: false,
        },
        {
          parent: 0,
          forkAt: 140,
          fill: false,
          tokens: 230,
          reward: 0.5,
          advantage: -0.1,
          delivered: true,
          success: false,
        },
        {
          parent: null,
          forkAt: 60,
          fill: true,
          tokens: 90,
          reward: 0,
          advantage: -0.61,
          delivered: false,
          success: false,
        },
      ],
    },
  };
  return JSON.stringify({
    format: 'star-lab-run-bundle/1',
    exportedAt: created + 60_000,
    run: {
      id,
      kind: 'rl',
      config,
      status: 'completed',
      createdAt: created,
      updatedAt: created + 45_000,
      backend: 'webgpu · e2e fixture',
      summary: {
        steps: 2,
        totalSteps: 2,
        last: { 'reward/mean': 0.6, 'eval/success': 0.25, 'eval/ood_accuracy': 0.45 },
      },
      startingPoint: { kind: 'shipped', scale: 's' },
    },
    metrics,
    episodes: [{ runId: id, step: 2, index: 0, createdAt: created + 44_000, trajectory, reward: 0.9375 }],
    checkpoint: {
      runId: id,
      step: 2,
      createdAt: created + 44_500,
      weights: encoded(weights),
      weightSpecs: model.weightsManifest.flatMap((g) => g.weights),
      optimizer: encoded(Buffer.alloc(0)),
      optimizerSpecs: [],
      rngState: [1, 2, 3, 4],
    },
  });
}

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
}
