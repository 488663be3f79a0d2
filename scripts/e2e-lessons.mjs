// The e2e group `lessons` (E2E_ONLY=lessons): every lesson opens from its link (`#lesson=<id>`) with its
// question, its reference bands labelled with their seed count (and "incomplete" below 8) and no page
// error, and the list links them all; then one lesson (dense reward, scale s) plays at the smoke size
// (`?lessonSize=smoke`, 6 steps) on wasm, in a browser context of its own: a prediction is picked, both arms
// run side by side (the page is told it has 4 cores, so the second arm trains in a worker of its own), both
// are held after step 2 (the test holds, src/worker/testHolds.ts: the moment is made, not hoped for), the
// tab is reloaded and the lesson resumes into itself — prediction kept, curves kept, both arms continued
// from their checkpoints, held again after step 4 to be seen running — and runs to a takeaway computed from
// the runs, with the prediction stored with each run.
// Then a class, built by its own test: three learners, each in a browser context of its own (no shared
// IndexedDB), play the same smoke lesson side by side — two both arms, the third the first arm alone, the
// fewest runs that give Welch's test two ends an arm — and a teacher's class view, in a fourth context,
// accepts the three learners' five links as three learners, refuses a tampered, a relabelled and a
// repeated link with their reasons, and draws the class's pooled test.
// No wait here is a speed limit: a sitting's wait fails only when nothing on its arms moved for minutes.
// axe finds no serious or critical violation in the list, any lesson, or a lesson with its takeaway.
// Screenshots: test-results/lesson-<id>.png, lesson-smoke.png, lesson-class.png.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storedPoints, storedRuns } from './e2e-store.mjs';
import { assertAccessible } from './e2e-axe.mjs';
import { checkClassView } from './e2e-lessons-class.mjs';

const IDS = ['null-control', 'dense-reward', 'tool-failures', 'hard-only', 'seeds'];

export async function lessonsTests({ page, base, results, test, assert, join, consoleErrors }) {
  const G = 'lessons';
  const reference = JSON.parse(readFileSync(new URL('../results/lessons/reference.json', import.meta.url), 'utf8'));
  const seedCounts = new Set(Object.values(reference.settings).map((s) => s.seeds.length));

  await test(
    'lessons: every lesson opens from its link, with its bands and their seed counts, and no page error',
    async () => {
      const before = consoleErrors.length;
      await page.goto('about:blank');
      await page.goto(`${base}#view=lessons`);
      await page.waitForSelector('[data-testid=lesson-list]');
      const links = await page
        .locator('[data-testid=lesson-list] a[data-testid^=lesson-link-]')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      assert(
        JSON.stringify(links) === JSON.stringify(IDS.map((id) => `#lesson=${id}`)),
        `the list links ${links.join(', ')}`,
      );
      // a teacher finds each lesson's two sizes and its class view from the list
      const teacher = await page
        .locator('[data-testid=lesson-list] [data-testid=teacher-tools] a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      const wanted = IDS.flatMap((id) => [
        `/#lesson=${id}`,
        `/?lessonSize=smoke#lesson=${id}`,
        `/#lesson=${id}&class`,
        `/?sheet#lesson=${id}`,
      ]);
      assert(JSON.stringify(teacher) === JSON.stringify(wanted), `the teacher's links ${teacher.join(', ')}`);
      assert(
        !(await page.locator('[data-testid=lesson-list]').innerText()).includes('docs/lessons.md'),
        'the list points at a file a teacher cannot open',
      );
      await assertAccessible(page, 'Lessons (the list)');
      // a lesson's printable sheet: the learners' link as text and as a QR code, the sizes, the plan; printed, only the
      // sheet
      await page.goto(`${base}?sheet&lessonSize=smoke#lesson=tool-failures`);
      await page.waitForSelector('[data-testid=lesson-sheet][data-size=smoke] [data-testid=sheet-qr]');
      const sheetLink = await page.locator('[data-testid=sheet-link]').innerText();
      assert(sheetLink === `${base}?lessonSize=smoke#lesson=tool-failures`, `the sheet's link ${sheetLink}`);
      assert(
        Number(await page.locator('[data-testid=sheet-qr]').getAttribute('data-modules')) >= 21,
        'the sheet has no QR code',
      );
      assert(
        (await page.locator('[data-testid=sheet-sizes] tr[data-size]').count()) === 2,
        'the sheet lists two sizes',
      );
      assert(
        (await page.locator('[data-testid=lesson-sheet] [data-testid=lesson-plan] li').count()) === 5,
        'the sheet has no plan of a period',
      );
      await page.emulateMedia({ media: 'print' });
      assert(!(await page.locator('[data-testid=sheet-print]').isVisible()), 'the Print button is printed');
      await page.screenshot({ path: join(results, 'lesson-sheet-print.png'), fullPage: true });
      await page.emulateMedia({ media: 'screen' });
      for (const id of IDS) {
        await page.goto('about:blank');
        await page.goto(`${base}#lesson=${id}`);
        await page.waitForSelector(`[data-testid=lesson][data-lesson="${id}"]`, { timeout: 30_000 });
        assert(
          (await page.locator('[data-testid=nav-lessons][aria-current=page]').count()) === 1,
          `${id}: the Lessons tab is not the current one`,
        );
        const question = await page.locator('[data-testid=lesson-question]').innerText();
        assert(question.endsWith('?'), `${id}: question "${question}"`);
        assert(
          (await page.locator('[data-testid=lesson-predictions] input').count()) === 3,
          `${id}: three predictions`,
        );
        assert(
          await page.locator('[data-testid=lesson-run]').isDisabled(),
          `${id}: Run is enabled before a prediction`,
        );
        const plots = await page
          .locator('[data-testid=lesson-plot]')
          .evaluateAll((ps) => ps.map((p) => Number(p.dataset.refs)));
        assert(
          plots.length >= 3 && plots.every((n) => n >= 1),
          `${id}: plots with their references ${plots.join(', ')}`,
        );
        const seeds = await page.locator('[data-testid=band-seeds]').allInnerTexts();
        assert(
          seeds.length >= 1 && seeds.every((s) => /^\d+ seeds?$/.test(s)),
          `${id}: seed counts ${seeds.join(', ')}`,
        );
        // each arm's band names its seed count, one the committed reference holds; below 8 the lesson says incomplete
        const counts = seeds.map((s) => Number.parseInt(s, 10));
        assert(
          counts.every((n) => seedCounts.has(n)),
          `${id}: seed counts ${counts.join(', ')} are not the reference's (${[...seedCounts].join(', ')})`,
        );
        const incomplete = await page.locator('[data-testid=reference-incomplete]').count();
        assert(
          incomplete === (Math.min(...counts) < 8 ? 1 : 0),
          `${id}: bands of ${counts.join(' and ')} seeds, yet ${incomplete ? '' : 'not '}called incomplete`,
        );
        // the agent at work: each arm's trip before and after training, one at a time behind the switch
        const trips = page.locator('[data-testid=lesson-episode]');
        const arms = await trips.count();
        assert(arms === (id === 'seeds' ? 1 : 2), `${id}: ${arms} arms' trips`);
        for (let i = 0; i < arms; i++) {
          const trip = trips.nth(i);
          const summary = (await trip.locator(':scope > summary').textContent()).replace(/\s+/g, ' ');
          assert(/before training, .*after training, /.test(summary), `${id}: the trip's line "${summary}"`);
        }
        const first = trips.first();
        await first.locator(':scope > summary').click();
        assert(/^After training/.test(await first.locator('[data-testid=lesson-episode-shown]').innerText()), `${id}: the trip first shown is not after training`);
        const afterPrompt = await first.locator('[data-testid=sample-episode]').innerText();
        await first.locator('[data-testid=lesson-episode-before]').click();
        assert((await first.locator('[data-testid=lesson-episode-before]').getAttribute('aria-pressed')) === 'true', `${id}: Before training is not pressed`);
        assert(/^Before training/.test(await first.locator('[data-testid=lesson-episode-shown]').innerText()), `${id}: the switch does not show the trip before training`);
        assert((await first.locator('[data-testid=sample-episode]').innerText()) !== afterPrompt, `${id}: before and after show the same trip`);
        if (id === 'tool-failures') {
          const failures = await page.locator('[data-testid=lesson-episode][data-arm=failures] [data-testid=lesson-episode-failure]').allTextContents();
          assert(
            failures.length === 2 && failures.every((f) => /failed.*; next the agent (called|tried|wrote)/.test(f.replace(/\s+/g, ' '))),
            `tool-failures: the failed calls and what came next: ${failures.join(' | ')}`,
          );
        }
        await page.screenshot({ path: join(results, `lesson-${id}.png`) });
        await assertAccessible(page, `lesson ${id}`);
      }
      await page.goto(`${base}#lesson=nope`);
      await page.waitForSelector('text=is not a lesson');
      assert(consoleErrors.length === before, `page errors: ${consoleErrors.slice(before).join(' | ')}`);
    },
    G,
  );

  await test(
    'lessons: a smoke-size lesson runs both arms side by side, survives a reload mid-run and ends in a computed takeaway',
    async () => {
      // a learner of its own (no run or init script of an earlier test), told it has 4 cores: the second arm gets a
      // worker of its own (each worker still sees the real cores)
      const learnerContext = await page.context().browser().newContext({ viewport: { width: 1360, height: 900 } });
      try {
        await learnerContext.addInitScript(() =>
          Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 4, configurable: true }),
        );
        await playReloadedLesson(await learnerContext.newPage(), { base, results, assert });
      } finally {
        await learnerContext.close();
      }
    },
    G,
  );

  await test(
    'lessons: three learners, each in a browser context of its own, play the smoke lesson side by side; the class view counts the three learners once each and pools their test, refusing a tampered, a relabelled and a repeated link',
    async () => {
      const started = Date.now();
      const browser = page.context().browser();
      // the cheapest class with a test: Welch's needs two ends an arm, so two learners run both arms and the third
      // the first arm alone (5 arms); side by side, each context its own IndexedDB and workers. The class is built
      // here, not taken from another test's learner
      const [first, second, third] = await Promise.all([
        playLearner(browser, base, 'both', assert),
        playLearner(browser, base, 'both', assert),
        playLearner(browser, base, 'first', assert),
      ]);
      console.log(
        `      three learners (both arms, both arms, the first arm) played side by side in ${((Date.now() - started) / 1000).toFixed(1)} s (${first.took}, ${second.took} and ${third.took}; ${first.timing}; ${second.timing}; ${third.timing})`,
      );
      const links = first.links;
      assert(
        links.length === 2 && links.every((l) => /#lesson=dense-reward&result=v1\.[\w-]+\.[0-9a-f]{8}$/.test(l)),
        `result links: ${links.join(' ')}`,
      );
      assert(first.qrCodes === 2, 'no QR code beside each link');
      assert(
        second.links.length === 2 && third.links.length === 1,
        `the learners' links: ${second.links.length} and ${third.links.length}`,
      );
      const seeds = [links[0], second.links[0], third.links[0]].map(seedOf);
      assert(new Set(seeds).size === 3, `the three learners drew seeds ${seeds.join(', ')}: not three`);
      console.log(`      links: ${[...links, ...second.links, ...third.links].join(' ')}`);
      await checkClassView({ browser, base, results, assert, links, second: second.links, third: third.links });
      console.log(`      three learners and the class view in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
    G,
  );
}

/** the seed a result link carries (its payload's fifth field) */
function seedOf(link) {
  const code = new URLSearchParams(link.slice(link.indexOf('#') + 1)).get('result');
  const payload = code.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
  return JSON.parse(Buffer.from(payload, 'base64').toString('utf8'))[4];
}

/**
 * A learner in a browser context of its own (its own IndexedDB, workers and page) plays the smoke-size
 * dense-reward lesson on wasm — `both` arms side by side (the page is told it has 4 cores) or the `first`
 * alone — to its takeaway, and hands back its result links.
 */
async function playLearner(browser, base, which, assert) {
  const t0 = Date.now();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  try {
    await context.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 4, configurable: true }),
    );
    const learner = await context.newPage();
    learner.setDefaultTimeout(120_000);
    const errors = [];
    learner.on('pageerror', (e) => errors.push(e.message));
    await learner.goto(`${base}?backend=wasm&lessonSize=smoke#lesson=dense-reward`);
    await learner.waitForSelector('[data-testid=backend][data-backend="wasm"]', { timeout: 60_000 });
    await learner.locator('[data-testid=predict-success]').check();
    await learner.locator(`input[name=which-dense-reward][value=${which}]`).check();
    await learner.locator('[data-testid=lesson-run]').click();
    await waitForLessonEnd(learner, `learner (${which})`);
    await learner.waitForSelector('[data-testid=lesson-takeaway][data-ready=true]', { timeout: 30_000 });
    const links = await learner.locator('[data-testid=lesson-result-link]').evaluateAll((as) => as.map((a) => a.href));
    const qrCodes = await learner.locator('[data-testid=lesson-result-qr]').count();
    const runs = (await storedRuns(learner)).filter((r) => r.lesson?.id === 'dense-reward');
    assert(
      runs.length === (which === 'both' ? 2 : 1) && runs.every((r) => r.status === 'completed'),
      `learner (${which}): stored runs ${JSON.stringify(runs.map((r) => [r.lesson.arm, r.status]))}`,
    );
    assert(!errors.length, `learner (${which}): page errors ${errors.join(' | ')}`);
    const ms = (x) => (Number.isFinite(x) ? `${(x / 1000).toFixed(1)} s` : '?');
    const timing = `${which}: ${runs.map((r) => `${r.lesson.arm} ${ms(r.summary.meanStepMs)}/step, ${ms(r.summary.meanEvalMs)}/evaluation`).join(', ')}`;
    return { links, qrCodes, took: `${((Date.now() - t0) / 1000).toFixed(0)} s`, timing };
  } finally {
    await context.close();
  }
}

/** a lesson's sitting moves (a step, a phase, a state) at least this often, on the slowest machine we run on: a hang
 * guard, not a speed limit */
const STALL_MS = 240_000;

/** Waits for the sitting on `p` to finish. It fails only when nothing on the arms (step, phase, state, points) moved
 * for STALL_MS: a loaded machine takes longer, but it does not stop. */
async function waitForLessonEnd(p, what) {
  let last = '';
  let movedAt = Date.now();
  for (;;) {
    const now = await p.evaluate(() => {
      const lesson = document.querySelector('[data-testid=lesson]')?.dataset.state ?? '';
      const arms = [...document.querySelectorAll('[data-testid=lesson-arm]')].map(
        (e) => `${e.dataset.state}:${e.dataset.points}:${e.textContent}`,
      );
      return { lesson, key: `${lesson} | ${arms.join(' | ')}` };
    });
    if (now.lesson === 'finished') return;
    if (now.key !== last) {
      last = now.key;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > STALL_MS)
      throw new Error(`${what}: nothing moved for ${STALL_MS / 1000} s (${now.key.replace(/\s+/g, ' ')})`);
    await p.waitForTimeout(500);
  }
}

/**
 * One learner (its page `page`, told it has 4 cores) plays the smoke-size dense-reward lesson: both arms side by side,
 * held after step 2 (`?holds=after-step:2,…`, src/worker/testHolds.ts) so that the reload surely comes with both arms
 * mid-run and past their first checkpoint — on a fast machine one arm used to finish before the other was seen
 * running. The reload ends those workers; the page resumes both arms from step 2 and they hold again after step 4,
 * where the test looks at the resumed sitting, then releases them to the takeaway.
 */
async function playReloadedLesson(page, { base, results, assert }) {
  page.setDefaultTimeout(120_000); // as the harness's page: a loaded machine draws slowly
  const attr = (selector, name) => page.locator(selector).first().getAttribute(name);
  await page.goto(`${base}?backend=wasm&lessonSize=smoke&holds=after-step:2,after-step:4#lesson=dense-reward`);
  await page.waitForSelector('[data-testid=backend][data-backend="wasm"]', { timeout: 60_000 });
  assert(
    (await page.evaluate(() => document.documentElement.dataset.testHolds)) === 'after-step:2,after-step:4',
    'the test server did not arm the holds',
  );
  await page.waitForSelector('[data-testid=lesson-smoke]');
  await page.locator('[data-testid=lesson-run]').waitFor();
  await page.locator('[data-testid=predict-delivery]').check();
  const t0 = Date.now();
  const at = () => `${Math.round((Date.now() - t0) / 1000)} s`;
  await page.locator('[data-testid=lesson-run]').click();
  // both arms hold after step 2 (its evaluation and checkpoint stored), whichever gets there first: the moment is made,
  // not waited for
  const arms = '[data-testid=lesson-arm]';
  await page.waitForFunction(() => new Set(window.__testHolds?.held.map((h) => h.runId)).size === 2, null, {
    timeout: 600_000,
  });
  const states = await page
    .locator(arms)
    .evaluateAll((els) => els.map((e) => ({ state: e.dataset.state, checkpoint: Number(e.dataset.checkpoint) })));
  assert(
    states.length === 2 && states.every((s) => s.state === 'live' && s.checkpoint === 2),
    `held after step 2, the arms show ${JSON.stringify(states)}`,
  );
  console.log(`      both arms held after step 2 (checkpoint stored) at ${at()}: reload`);
  // every state the sitting and its arms show from the reload on, and whether "Resume the lesson" ever shows
  await page.addInitScript(() => {
    const seen = (window.__lessonSeen = new Set());
    const look = () => {
      for (const el of document.querySelectorAll('[data-testid=lesson], [data-testid=lesson-arm]'))
        seen.add(`${el.dataset.testid}:${el.dataset.state}`);
      if (document.querySelector('[data-testid=lesson-continue]')) seen.add('resume-button');
    };
    new MutationObserver(look).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
  });
  await page.reload();
  // the page resumes both arms from step 2 by itself; they hold again after step 4, so the resumed sitting is surely
  // seen running
  await page.waitForFunction(() => new Set(window.__testHolds?.held.map((h) => h.runId)).size === 2, null, {
    timeout: 600_000,
  });
  await page.waitForSelector('[data-testid=lesson][data-state=running]');
  // the page resumed the sitting by itself: never "stopped", "Resume the lesson" nor a fresh sitting on the way
  const seen = await page.evaluate(() => [...window.__lessonSeen]);
  assert(
    !seen.some((s) => s.endsWith(':halted') || s === 'lesson:new' || s === 'resume-button'),
    `the resuming sitting showed itself stopped: ${seen.join(', ')}`,
  );
  assert(
    await page.locator('[data-testid=predict-delivery]').isChecked(),
    'the prediction was not kept across the reload',
  );
  assert(
    Number(await attr('[data-testid=lesson-plot][data-metric="eval/success"]', 'data-live-points')) >= 2,
    'the curves were not kept across the reload',
  );
  await page.evaluate(() => window.__testHolds.release());
  await waitForLessonEnd(page, 'the reloaded sitting');
  console.log(`      both arms finished at ${at()}`);
  await page.waitForSelector('[data-testid=lesson-takeaway][data-ready=true]', { timeout: 30_000 });
  const shown = await page
    .locator(arms)
    .evaluateAll((els) =>
      els.map((e) => `${e.dataset.arm}: ${e.dataset.points} points to step ${e.dataset.lastStep}`),
    );
  const stored = await Promise.all(
    (await page.locator(arms).evaluateAll((els) => els.map((e) => e.dataset.runId))).map(async (id) =>
      (await storedPoints(page, id)).map((p) => p.step).join(','),
    ),
  );
  console.log(`      arms shown: ${shown.join('; ')}; stored steps: ${stored.join(' | ')}`);
  // a smoke run's verdict says first that it cannot tell, and quotes no full-size misleading rate; the charts'
  // figures say they are smoothed
  assert(
    (await page.locator('[data-testid=lesson-misleading]').count()) === 0,
    "a smoke run quotes the full size's misleading rate",
  );
  assert(
    /^A run this small cannot tell/.test(await page.locator('[data-testid=lesson-verdict]').innerText()),
    'the smoke verdict does not say first that it cannot tell',
  );
  assert(
    /smoothed \(EMA 0\.75\)/.test((await page.locator('[data-testid=lesson-plot-note]').allInnerTexts()).join(' ')),
    'the charts do not say their figures are smoothed',
  );
  const kinds = await page
    .locator('[data-testid=lesson-takeaway] li')
    .evaluateAll((ls) => ls.map((l) => l.dataset.kind));
  for (const k of ['result', 'band', 'mechanism', 'test', 'paper', 'prediction', 'note'])
    assert(kinds.includes(k), `the takeaway has no ${k} line (${kinds.join(', ')})`);
  const judged = await attr('[data-testid=lesson-takeaway]', 'data-judged');
  assert(judged === 'too-small', `a smoke run judged ${judged}`);
  assert(
    (await attr('[data-testid=lesson-takeaway]', 'data-matched')) === 'false',
    'a smoke run bears out a prediction',
  );
  const text = await page.locator('[data-testid=lesson-takeaway]').innerText();
  assert(
    /not at the reference setting \(steps=6/.test(text),
    'the takeaway does not say the smoke run is off the reference setting',
  );
  const evals = await page
    .locator('[data-testid=lesson-plot][data-metric="eval/success"]')
    .getAttribute('data-live-points');
  assert(
    Number(evals) === 8,
    `the validation plot holds ${evals} of the two arms' 8 evaluations (steps 0, 2, 4, 6)`,
  );
  const tagged = (await storedRuns(page)).filter((r) => r.lesson?.id === 'dense-reward');
  assert(
    tagged.length === 2 && tagged.every((r) => r.lesson.prediction === 'delivery' && r.status === 'completed'),
    `stored lesson runs: ${JSON.stringify(tagged.map((r) => [r.status, r.lesson]))}`,
  );
  assert(new Set(tagged.map((r) => r.lesson.session)).size === 1, 'the two arms are not one sitting');
  assert(
    new Set(tagged.map((r) => r.config.seed)).size === 1 && tagged[0].config.seed >= 100,
    `the arms' seeds: ${tagged.map((r) => r.config.seed)}`,
  );
  await page.screenshot({ path: join(results, 'lesson-smoke.png'), fullPage: true });
  await assertAccessible(page, 'a lesson with its takeaway');
}
