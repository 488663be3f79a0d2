// The e2e group `phone` (E2E_ONLY=phone): the page on a phone held upright, 390 × 844. No
// training: one imported run bundle gives the Lab its stored curves and the Runs view its episode viewer.
// Every view — the Lab, Runs with an open episode, the Findings list and every finding, the Lessons list,
// every lesson and its class view, the Sandbox with a query, a tool call and a scored plan — must
//   - not scroll sideways: document.documentElement.scrollWidth ≤ 390 (a wide table scrolls inside its
//     card); a failure names the elements that stick out past the right edge;
//   - raise no page error;
//   - pass axe-core's WCAG 2.1 A/AA rules and WCAG 2.2's target size (2.5.8, axe's `target-size`: each
//     control at least 24 × 24 CSS px or spaced so a 24 px circle round it touches no other) with no
//     serious or critical violation; axe runs on one page of each kind (findings and lessons share their
//     layout), the overflow check on all;
//   - explain its words: every acronym-like word it shows (GRPO, KL, OOD, TOST…) has a glossary entry
//     (src/lab/glossary.ts) or is an everyday one (PLAIN_ACRONYMS), and each of the study's jargon terms it shows
//     is marked up somewhere in the view (Term.svelte, [data-term]), so a tap explains it;
//   - (the Lab, findings and lessons) hide no chart: nothing scrolls sideways inside itself, no input or button
//     under 24 px (its label counted), no SVG text under 11 px on screen; a tap on a finding's table cell
//     shows its run, as hovering does on a desktop.
// One page, navigated by clicking the tabs and by the hash, as a user would. Screenshots:
// test-results/phone-<view>.png; E2E_PHONE_DOCS=1 also writes them to docs/img/ (docs/views.md shows them).
import { copyFileSync, writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';
import { join } from 'node:path';
import { axeViolations, WCAG21_AA } from './e2e-axe.mjs';
import { makeRunBundle } from './e2e-runBundle.mjs';

export const PHONE = { width: 390, height: 844 };
const FINDINGS = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7'];
const LESSONS = ['null-control', 'dense-reward', 'tool-failures', 'hard-only', 'seeds'];

/** the page's width and, when it is wider than the screen, the outermost elements that stick out (not those inside a
 * scroller) */
function overflow(page) {
  return page.evaluate(() => {
    window.scrollTo(0, 0); // a click or scrollIntoView may have scrolled the page sideways, shifting every box
    const edge = window.innerWidth + 0.5;
    const clipped = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const x = getComputedStyle(a).overflowX;
        if (x !== 'visible' && a.getBoundingClientRect().right <= edge) return true;
      }
      return false;
    };
    const name = (el) => {
      const id = el.getAttribute('data-testid') ?? el.getAttribute('aria-label');
      const cls =
        typeof el.className === 'string' ? el.className.split(/\s+/).find((c) => c && !c.startsWith('svelte-')) : null;
      return `${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''}${id ? `[${id}]` : ''}`;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const right = el.getBoundingClientRect().right;
      if (right <= edge || el.parentElement.getBoundingClientRect().right > edge || clipped(el)) continue;
      out.push(`${name(el)} → ${Math.round(right)} px`);
    }
    return { width: document.documentElement.scrollWidth, offenders: out.slice(0, 6) };
  });
}

/**
 * controls smaller than 24 × 24 CSS px that the spacing exception of WCAG 2.2's 2.5.8 does not save: a 24 px
 * circle centred on the control touches another control, or another small one's circle. axe's target-size
 * checks the same on its widgets; this also covers what it leaves out (range sliders, text inputs). Exempt as
 * 2.5.8 allows: links inline in text and checkboxes and radios at the browser's own size.
 */
function smallTargets(page) {
  return page.evaluate(() => {
    const targets = [
      ...document.querySelectorAll(
        'a[href], button, select, input:not([type=hidden]), textarea, summary, [role=tab], [tabindex="0"]',
      ),
    ]
      .filter((el) => {
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || el.closest('[hidden], [inert]')) return false;
        if (el.tagName === 'A' && style.display === 'inline') return false; // inline in text
        if (el.classList.contains('term-button')) return false; // a glossary term: inline in its text
        if (el.type === 'checkbox' || el.type === 'radio') return style.appearance === 'none'; // the browser's own size
        return el.getClientRects().length > 0;
      })
      .map((el) => ({ el, box: el.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && box.height > 0);
    const small = targets.filter(({ box }) => box.width < 23.5 || box.height < 23.5);
    const centre = (b) => [b.left + b.width / 2, b.top + b.height / 2];
    const toBox = ([x, y], b) => Math.hypot(Math.max(b.left - x, 0, x - b.right), Math.max(b.top - y, 0, y - b.bottom));
    return small
      .filter((a) =>
        targets.some(
          (b) =>
            b.el !== a.el &&
            !a.el.contains(b.el) &&
            !b.el.contains(a.el) &&
            (toBox(centre(a.box), b.box) < 12 ||
              (small.includes(b) &&
                Math.hypot(centre(a.box)[0] - centre(b.box)[0], centre(a.box)[1] - centre(b.box)[1]) < 24)),
        ),
      )
      .map(
        ({ el, box }) =>
          `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 24)}" ${Math.round(box.width)}×${Math.round(box.height)}`,
      )
      .slice(0, 6);
  });
}

/**
 * what a phone hides or shrinks in a chart: an element that scrolls sideways inside itself (content off-screen
 * with no cue — a wide table's [role=region] scroller is allowed, a chart's is not), an input or button under
 * 24 × 24 px (its label counts when it wraps the input: the label is the hit area), SVG text drawn under 11 px
 * (font-size times the SVG's scale, since a viewBox shrinks its text with the drawing).
 */
export function phoneChartProblems(page) {
  return page.evaluate(() => {
    const out = [];
    const name = (el) => {
      const id = el.getAttribute('data-testid') ?? el.getAttribute('aria-label');
      const cls =
        typeof el.className === 'string' ? el.className.split(/\s+/).find((c) => c && !c.startsWith('svelte-')) : null;
      return `${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''}${id ? `[${id}]` : ''}`;
    };
    const shown = (el) => el.getClientRects().length > 0 && !el.closest('[hidden], [inert]');
    for (const el of document.body.querySelectorAll('*')) {
      if (!shown(el) || el.clientWidth <= 1 || el.scrollWidth <= el.clientWidth + 1) continue; // 1 px: a screen-reader-only span
      if (getComputedStyle(el).overflowX === 'visible') continue;
      // a wide table scrolls inside its named region (ScrollRegion) by design; a chart must not
      const region = el.closest('[role=region]');
      if (region?.querySelector('table') && !region.querySelector('svg')) continue; // (and a cell's own ellipsis in it)
      out.push(
        `${name(el)}${el.parentElement ? ` in ${name(el.parentElement)}` : ''} scrolls sideways: ${el.scrollWidth} in ${el.clientWidth} px`,
      );
    }
    for (const el of document.body.querySelectorAll('input:not([type=hidden]), button')) {
      if (!shown(el) || el.classList.contains('term-button')) continue; // a glossary term is inline in its text
      const own = el.getBoundingClientRect();
      const label = el.closest('label') ?? el.labels?.[0];
      const box = label && label.getBoundingClientRect().height < 80 ? label.getBoundingClientRect() : own;
      const w = Math.max(own.width, box.width), h = Math.max(own.height, box.height);
      if (w < 23.5 || h < 23.5)
        out.push(`${name(el)}${el.type ? `[type=${el.type}]` : ''} target ${Math.round(w)}×${Math.round(h)} px`);
    }
    const small = new Map();
    for (const t of document.body.querySelectorAll('svg text')) {
      if (!shown(t) || !t.textContent.trim()) continue;
      const svg = t.ownerSVGElement;
      const vb = svg.viewBox?.baseVal;
      const scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < 10.95) {
        const key = `${name(svg)} text ${px.toFixed(1)} px`;
        small.set(key, (small.get(key) ?? 0) + 1);
      }
    }
    for (const [k, n] of small) out.push(`${k} (${n}×)`);
    return out.slice(0, 20);
  });
}

/** the study's jargon: a view that shows one of these words must mark it up at least once, so a tap explains it */
const JARGON = [
  'grpo', 'dapo', 'arpo', 'kl', 'ood', 'sft', 'tost', 'welch', 'holm', 'rl', 'null-control', 'advantage', 'rollout',
  'entropy', 'tool-qa',
];

/** the words a view shows that the glossary does not explain: acronyms with no entry, and jargon never marked up */
export async function glossaryProblems(page, glossary) {
  const { all, prose, marked, missing } = await page.evaluate(() => {
    // every text the view shows, as written (not as a style upper-cases it); prose: the view's own running text,
    // headings and labels (in <main>, below the header) — not a link's, a button's, a menu's or a chart drawing's,
    // which cannot hold a term's button
    // (a data table's cells are its runs' settings and figures, which the controls and headings explain)
    const skip = 'a, button:not(.term-button), select, option, nav, svg, [role=tab], table';
    const main = document.querySelector('main');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const all = [];
    const prose = [];
    const name = (el) => {
      const id = el.getAttribute('data-testid');
      const cls = typeof el.className === 'string' ? el.className.split(/\s+/).find((c) => c && !c.startsWith('svelte-')) : null;
      return `${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''}${id ? `[${id}]` : ''}`;
    };
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || !el.getClientRects().length || el.closest('[hidden], script, style')) continue;
      // an episode is the agent's own words and the world's data (state codes, tool replies), not the page's
      if (el.closest('[data-testid=lesson-episode], [data-testid=sample-episode]')) continue;
      all.push(n.textContent);
      if (main?.contains(el) && !el.closest(skip)) prose.push({ text: n.textContent, where: name(el) });
    }
    return {
      all: all.join(' '),
      prose,
      marked: [...document.querySelectorAll('[data-term]')].map((el) => el.getAttribute('data-term')),
      missing: [...document.querySelectorAll('[data-term-missing]')].map((el) => el.getAttribute('data-term-missing')),
    };
  });
  const out = glossary.unexplainedAcronyms(all).map((a) => `shows "${a}", which has no glossary entry`);
  for (const id of new Set(missing)) out.push(`marks up the term "${id}", which has no glossary entry`);
  for (const id of glossary.termsIn(prose.map((p) => p.text).join(' ')))
    if (JARGON.includes(id) && !marked.includes(id)) {
      const at = prose.find((p) => glossary.termsIn(p.text).includes(id));
      out.push(`shows "${glossary.GLOSSARY[id].term}" and nowhere marks it up (Term.svelte)${at ? `, e.g. in ${at.where}: "${at.text.trim().slice(0, 60)}"` : ''}`);
    }
  return out;
}

/** registers the group's tests with e2e.mjs' `test` */
export async function phoneTests({ page, base, results, test, assert, checkpointDir, consoleErrors }) {
  const G = 'phone';
  const RUN_ID = 'e2e-phone-run';
  const docs = process.env.E2E_PHONE_DOCS === '1';
  const widths = {}; // view → the page's width, printed at the end
  const viewport = page.viewportSize();
  const glossary = await tsImport('../src/lab/glossary.ts', import.meta.url);

  /**
   * the view as it is now: fits the screen, no small control crowded, no new page error, and (axe) axe-clean.
   * Pictured when it is one of the docs' (`doc`, scrolled to `show`) or has a problem.
   */
  async function check(view, { axe = false, show = null, doc = false, charts = false } = {}) {
    const errors = consoleErrors.length;
    const { width, offenders } = await overflow(page);
    widths[view] = width;
    const problems = [];
    if (width > PHONE.width) problems.push(`${view} scrolls sideways: ${width} px wide (${offenders.join(', ')})`);
    const tooSmall = await smallTargets(page);
    if (tooSmall.length)
      problems.push(`${view}: controls under 24 × 24 px and too close to another: ${tooSmall.join(', ')}`);
    if (charts) for (const p of await phoneChartProblems(page)) problems.push(`${view}: ${p}`);
    for (const p of await glossaryProblems(page, glossary)) problems.push(`${view}: ${p}`);
    if (axe) {
      const found = await axeViolations(page, { tags: [...WCAG21_AA, 'wcag22aa'] });
      for (const v of found)
        problems.push(`${view}: axe ${v.id} (${v.impact}, ${v.count}): ${v.nodes.slice(0, 3).join(' | ')}`);
    }
    const newErrors = consoleErrors.slice(errors).filter((e) => e.startsWith('pageerror'));
    if (newErrors.length) problems.push(`${view}: ${newErrors.join('; ')}`);
    if (doc || problems.length) await picture(view, show, doc && docs);
    return problems;
  }
  /** test-results/phone-<view>.png (and docs/img/ when asked), as a newcomer sees the view: tables scrolled to
      their start, without the notice that ?backend=wasm (forced here, for time) puts under the header */
  async function picture(view, show, toDocs) {
    const notice = (hidden) => page.evaluate((h) => {
      const forced = document.querySelector('[data-testid=backend-fallback]');
      if (forced) forced.hidden = h;
    }, hidden);
    await page.evaluate(() => { for (const el of document.querySelectorAll('[role=region]')) el.scrollLeft = 0; });
    await notice(true);
    if (show) await page.locator(show).first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
    else await page.evaluate(() => window.scrollTo(0, 0));
    const shot = join(results, `phone-${view}.png`);
    await page.screenshot({ path: shot });
    await notice(false);
    if (toDocs) copyFileSync(shot, join(results, '..', 'docs', 'img', `phone-${view}.png`));
  }
  /** prints the widths measured since the last report, then fails with every problem found */
  const report = (problems) => {
    console.log(
      `      page widths at ${PHONE.width} px: ${Object.entries(widths)
        .map(([v, w]) => `${v} ${w}`)
        .join(', ')}`,
    );
    for (const v of Object.keys(widths)) delete widths[v];
    assert(!problems.length, problems.join('\n'));
  };
  const hash = async (h, ready) => {
    await page.evaluate((x) => { location.hash = x; }, h);
    await page.waitForSelector(ready, { timeout: 20_000 });
  };
  const tab = async (view, ready) => {
    await page.locator(`[data-testid=nav-${view}]`).click();
    await page.waitForSelector(ready, { timeout: 20_000 });
  };

  await test(
    'phone: at 390 × 844 the Lab and Runs (an episode open) fit the screen, axe-clean, no page error',
    async () => {
      await page.setViewportSize(PHONE);
      const file = join(results, 'e2e-phone-bundle.json');
      writeFileSync(file, makeRunBundle(checkpointDir, RUN_ID));
      await page.goto('about:blank');
      // forced: with no ?backend= the page would measure its backends in the background for half a minute
      await page.goto(`${base}?backend=wasm#view=runs`);
      await page.waitForSelector('[data-testid=runs-count]', { timeout: 30_000 });
      await page.locator('[data-testid=import-bundle]').setInputFiles(file);
      const row = page.locator(`[data-testid=runs-row][data-run-id^="${RUN_ID}"][data-results=read]`).first();
      await row.waitFor({ timeout: 20_000 });
      const id = await row.getAttribute('data-run-id');
      await page.locator('[data-testid=episode-run]').selectOption(id);
      await page.waitForSelector('[data-testid=episode-step] option[value="2"]', {
        state: 'attached',
        timeout: 10_000,
      });
      await page.locator('[data-testid=open-episode]').first().click();
      await page.waitForSelector('[data-testid=episode-detail]', { timeout: 10_000 });
      const problems = await check('runs', { axe: true, doc: true });
      if (docs) await picture('runs-episode', '[data-testid=episode-viewer]', true);

      await tab('lab', '[data-testid=backend][data-backend]:not([data-backend=""])');
      await page.locator(`[data-testid=run-row][data-run-id="${id}"]`).click();
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid=rl-charts]')?.getAttribute('data-points')) > 0,
        null,
        { timeout: 10_000 },
      );
      problems.push(...(await check('lab', { axe: true, doc: true, charts: true })));
      if (docs) await picture('lab-training', '[aria-label=Training]', true);
      // the welcome, where a first visit opens (e2e-welcome.mjs checks the first visit itself)
      await hash('#view=welcome', '[data-testid=welcome]');
      problems.push(...(await check('welcome', { axe: true, doc: true })));
      // a malformed link's notice names each bad key, however long
      await hash('#scale=xl&steps=-5&a_setting_this_lab_has_never_had_with_a_long_name=1', '[data-testid=url-notice]');
      problems.push(...(await check('lab-notice')));
      report(problems);
    },
    G,
  );

  await test('phone: at 390 × 844 the Findings, every finding, fit the screen, axe-clean, no page error', async () => {
    await page.setViewportSize(PHONE);
    await tab('findings', '[data-testid=finding]');
    const problems = [];
    for (const f of FINDINGS) {
      await hash(`#finding=${f}`, `[data-testid=finding][data-finding=${f}]`);
      problems.push(...(await check(`finding-${f}`, { axe: f === 'T7' || f === 'T1', doc: f === 'T7', charts: true })));
      // T1 holds leads of the confirmatory plan: their answer beside the exploratory one, and how far the plan is
      if (f === 'T1') {
        const status = await page.locator('[data-testid=confirmatory-status]').innerText().catch(() => '');
        if (!/\d+ of \d+ planned runs finished|complete/.test(status)) problems.push(`T1: the confirmatory status reads “${status}”`);
      }
    }
    // every finding's page ends with Beyond the paper: T8 and T9, each with its progress and the note's question
    for (const t of ['T8', 'T9']) {
      const text = await page.locator(`[data-testid=beyond-${t}-status]`).innerText().catch(() => '');
      if (!/\d+ of \d+ planned runs finished/.test(text)) problems.push(`${t}: its status reads “${text}”`);
    }
    // a phone has no hover: a tap on a table's cell writes out the run behind it
    await page.locator('[data-testid=finding-cell][title*="success"]').first().click();
    if (!(await page.locator('[data-testid=finding-cell-detail]').count()))
      problems.push("T7: tapping a table's cell shows no run");
    report(problems);
  }, G);

  await test(
    'phone: at 390 × 844 the Lessons, every lesson and its class view, fit the screen, axe-clean, no page error',
    async () => {
      await page.setViewportSize(PHONE);
      await tab('lessons', '[data-testid=lesson-list]');
      const problems = await check('lessons', { axe: true, doc: true });
      for (const id of LESSONS) {
        await hash(`#lesson=${id}`, `[data-testid=lesson][data-lesson="${id}"]`);
        problems.push(
          ...(await check(`lesson-${id}`, { axe: id === 'dense-reward', doc: id === 'dense-reward', charts: true })),
        );
        await hash(`#lesson=${id}&class`, `[data-testid=lesson-class][data-lesson="${id}"]`);
        problems.push(
          ...(await check(`lesson-${id}-class`, {
            axe: id === 'dense-reward',
            doc: id === 'dense-reward',
            charts: true,
          })),
        );
      }
      report(problems);
    },
    G,
  );

  await test(
    'phone: at 390 × 844 the Sandbox (a query, a tool call, a scored plan) fits the screen, axe-clean, no page error',
    async () => {
      await page.setViewportSize(PHONE);
      await tab('sandbox', '[data-testid=sandbox][data-ready=true]');
      await page.locator('[data-testid=world-tab-flights]').click();
      await page.locator('[data-testid=query-item][data-index="1"]').click();
      await page.locator('[data-testid=console-call]').click();
      await page.waitForSelector('[data-testid=console-observation]');
      await page.locator('[data-testid=plan-teacher]').click();
      await page.locator('[data-testid=plan-score]').click();
      await page.waitForSelector('[data-testid=plan-result]');
      const problems = await check('sandbox', { axe: true, doc: true });
      if (docs) {
        await picture('sandbox-query', '[data-testid=query-list]', true);
        await picture('sandbox-plan', '[data-testid=plan-result]', true);
      }
      report(problems);
    },
    G,
  );
  await page.setViewportSize(viewport);
}
