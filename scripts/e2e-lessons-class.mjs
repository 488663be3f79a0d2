// The lessons group's class view: what a teacher sees when pasting learners' result links (split from
// e2e-lessons.mjs, which plays the learners whose links it reads).
import { join } from 'node:path';

/**
 * The teacher, in a browser context of its own (no shared storage with the learners), pastes the three
 * learners' links — the first learner's two, the second's two, the third's one — with a tampered, a
 * relabelled and a repeated one: three learners (distinct seeds) and five runs are accepted, the three
 * refused with their reasons, and the class's pooled test is drawn. Exported so it can be run alone on
 * links kept from a run (a mutated class view must fail it).
 */
/**
 * A new class is of the size its teacher picks (the page's, full, until then), and its name says it: a smoke link
 * pasted into a full-size class is refused with its reason, nothing else changed; picking the smoke size renames it.
 */
async function checkClassSizeChoice(teacher, assert, smokeLink) {
  const name = () => teacher.locator('[data-testid=class-name]').inputValue();
  assert(/· full size ·/.test(await name()), `a new full-size class is named ${await name()}`);
  await teacher.fill('[data-testid=class-input]', smokeLink);
  await teacher.click('[data-testid=class-add]');
  await teacher.waitForSelector('[data-testid=class-rejected] li[data-reason=size]', { timeout: 10_000 });
  assert(
    (await teacher.locator('[data-testid=class-size]').getAttribute('data-size')) === 'full' &&
      /· full size ·/.test(await name()),
    'a smoke link turned a full-size class into a smoke one',
  );
  await teacher.check('[data-testid=class-size-smoke]');
  assert(/· smoke size ·/.test(await name()), `the class picked at the smoke size is named ${await name()}`);
  await teacher.fill('[data-testid=class-input]', '');
}

export async function checkClassView({ browser, base, results, assert, links, second, third }) {
  const teacherContext = await browser.newContext();
  try {
    const teacher = await teacherContext.newPage();
    await teacher.goto(`${base}#lesson=dense-reward&class`);
    await teacher.waitForSelector('[data-testid=class-input]');
    await checkClassSizeChoice(teacher, assert, links[0]);
    const at = links[0].length - 14; // a payload character, before the checksum
    const tampered = links[0].slice(0, at) + (links[0][at] === 'A' ? 'B' : 'A') + links[0].slice(at + 1);
    const relabelled = links[1].replace('#lesson=dense-reward', '#lesson=hard-only');
    // the second learner's first arm pasted again: its seed is in the class already
    const repeated = second[0];
    const pasted = [...links, ...second, ...third, tampered, relabelled, repeated];
    await teacher.fill('[data-testid=class-input]', pasted.join('\n'));
    await teacher.click('[data-testid=class-add]');
    await teacher.waitForSelector('[data-testid=class-runs][data-count]:not([data-count="0"])', { timeout: 10_000 });
    // three learners (distinct seeds), five runs: a learner's two arms are one learner, a repeated link none
    const count = await teacher.locator('[data-testid=class-runs]').getAttribute('data-count');
    const counted = await teacher.locator('[data-testid=class-runs]').innerText();
    assert(
      count === '3' && /\b5 runs\b/.test(counted),
      `the class counts ${count} learners (${counted}); three learners, five runs were pasted`,
    );
    // a class is of one size: the first (smoke) link set it, and no full-size band is drawn behind its ends
    assert(
      (await teacher.locator('[data-testid=class-size]').getAttribute('data-size')) === 'smoke',
      'the class of smoke links does not say it is of the smoke size',
    );
    assert(
      (await teacher.locator('[data-testid=class-plot] rect').count()) === 0,
      'a smoke class is drawn against the full-size band',
    );
    const reasons = await teacher
      .locator('[data-testid=class-rejected] li')
      .evaluateAll((ls) => ls.map((l) => l.dataset.reason));
    assert(
      JSON.stringify(reasons) === JSON.stringify(['tampered', 'lesson', 'seed']),
      `refused: ${reasons.join(', ')}`,
    );
    // the pooled test (Welch's, three ends against two), not the "two learners or more" message
    const testText = await teacher.locator('[data-testid=class-test]').innerText();
    const p = await teacher.locator('[data-testid=class-test]').getAttribute('data-p');
    // smoke ends often all equal: then the class says it cannot test, never "+0.0 points, p = 1"
    const noSpread = /no spread: cannot test/.test(testText) && p === '' && !/p = 1\b/.test(testText);
    assert(
      !/Two learners or more/.test(testText) &&
        (noSpread || (/Welch's test/.test(testText) && p !== '' && Number(p) >= 0 && Number(p) <= 1)),
      `no pooled class test: p "${p}", ${testText}`,
    );
    assert(
      (await teacher.locator('[data-testid=class-plot] circle').count()) === 5,
      'the class plot does not draw one dot a run',
    );
    await teacher.screenshot({ path: join(results, 'lesson-class.png'), fullPage: true });
    // the class's own link reproduces it
    const again = await teacherContext.newPage();
    await again.goto(teacher.url());
    await again.waitForSelector('[data-testid=class-runs][data-count="3"]', { timeout: 10_000 });
    // a result link opened shows the result: a smoke run is not placed against the full-size band
    await again.goto(links[0]);
    await again.waitForSelector('[data-testid=lesson-shared-result][data-ok=true][data-verdict=off-setting]', {
      timeout: 10_000,
    });
    assert(
      /Seed\s*\d+/.test(await again.locator('[data-testid=lesson-shared-result]').innerText()),
      'the shared result does not show its seed',
    );
  } finally {
    await teacherContext.close();
  }
}
