import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

/** WCAG 2.0/2.1/2.2 A and AA (JIS X 8341-3:2016 AA is WCAG 2.0 AA) plus axe's best practices. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

const COVERAGE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../.artifacts/axe-coverage.jsonl');

/**
 * Nothing may widen the page beyond the screen (wide tables scroll inside their own box). Checked
 * once the layout has settled: right after a viewport change a chart still has the width it was
 * drawn at until its ResizeObserver fires (seen once in CI on a busy machine: 569 px for one
 * frame on the admin dashboard, whose screenshot a moment later fits). An overflow that stays fails.
 */
export async function expectNoHorizontalScroll(page: Page) {
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { timeout: 3_000 }).toBeLessThanOrEqual(0);
}

/**
 * Runs axe on the page as it is (an open dialog included) and expects no violation. Every scan
 * is listed — what, where, at which width, how many rules passed — in the test's annotations and
 * in e2e/.artifacts/axe-coverage.jsonl, so a run shows what it covered.
 */
export async function expectAxeClean(page: Page, what?: string) {
  expect(await axeViolations(page, what)).toEqual([]);
}

/**
 * Resolves once what is entering or leaving (a toast sliding in, fading out) has come to rest:
 * mid-way its colours are blended with the page and its box is scaled (a toast's 44 px button
 * measured 43.9999 px while it bounced in). A toast's countdown bar runs for as long as the toast
 * shows, and spinners never end: both are left out.
 */
export async function animationsSettled(page: Page) {
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity || /progress/i.test((a as CSSAnimation).animationName ?? ''),
        ),
    undefined,
    { timeout: 5_000 },
  );
}

/** The scan of expectAxeClean, answering the violations (for loops that report every screen at once). */
export async function axeViolations(page: Page, what?: string): Promise<string[]> {
  // Screens load lazily: scan once the screen is there (every screen has its h1), not its fallback.
  await page.locator('h1').first().waitFor({ state: 'attached', timeout: 10_000 });
  // And once what is entering or leaving (a toast sliding in, fading out) has come to rest: mid-way
  // its colours are blended with the page (axe measured a toast's text at 1.9:1 while it faded in).
  await animationsSettled(page);
  // axe.run in the page itself (legacy mode): the default runs axe per frame and then finishes
  // in a new blank page, a renderer process and a second copy of axe for every scan, which made
  // the accessibility spec cost 216 CPU-s instead of 150. Legacy mode still scans same-origin
  // frames (the console has none); only cross-origin ones would be left out. Only the violations'
  // nodes are collected: passes are still listed once per rule. a11y.spec plants violations to
  // show the scan still reports them.
  const builder = new AxeBuilder({ page }).withTags(AXE_TAGS).setLegacyMode(true).options({ resultTypes: ['violations'] });
  const result = await builder.analyze();
  const viewport = page.viewportSize();
  const openDialog = await page.evaluate(() => {
    const open = Array.from(document.querySelectorAll('dialog[open]'));
    const top = open.at(-1);
    return top ? (top.getAttribute('aria-label') ?? document.getElementById(top.getAttribute('aria-labelledby') ?? '')?.textContent ?? 'dialog') : null;
  });
  const entry = {
    what: what ?? new URL(page.url()).pathname,
    path: new URL(page.url()).pathname + new URL(page.url()).search,
    width: viewport?.width ?? null,
    dialog: openDialog,
    passed_rules: result.passes.length,
    violations: result.violations.length,
  };
  fs.mkdirSync(path.dirname(COVERAGE), { recursive: true });
  fs.appendFileSync(COVERAGE, `${JSON.stringify(entry)}\n`);
  test.info().annotations.push({ type: 'axe', description: `${entry.what} @${entry.width}px${openDialog ? ` [dialog: ${openDialog}]` : ''}: ${entry.passed_rules} rules passed` });
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export interface TargetProblem {
  what: string;
  width: number;
  height: number;
  need: number;
}

/**
 * Measures every visible interactive element (WCAG 2.5.8): each box at least 24×24 px, and the
 * primary actions (primary/danger buttons, submit buttons) at least 44 px high. Links inside a
 * sentence are exempt, as WCAG exempts inline targets. Answers what is too small.
 */
export async function tapTargetProblems(page: Page): Promise<TargetProblem[]> {
  return page.evaluate(() => {
    const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=tab], [role=menuitem], [tabindex]:not([tabindex="-1"])';
    const scope = Array.from(document.querySelectorAll('dialog[open]')).at(-1) ?? document;
    const problems: Array<{ what: string; width: number; height: number; need: number }> = [];
    for (const el of Array.from(scope.querySelectorAll<HTMLElement>(selector))) {
      if (el.tagName === 'MAIN' || el.closest('[inert], [hidden], [aria-hidden=true]')) continue;
      // A toast leaving the screen (its exit animation, then its height collapsing) is no longer a target.
      if (el.closest('.Toastify__toast[class*="exit"]')) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      let box = el.getBoundingClientRect();
      // A radio or checkbox is operated through its label too: the label's box is its target.
      const label = el instanceof HTMLInputElement && (el.type === 'radio' || el.type === 'checkbox') ? (el.labels?.[0] ?? null) : null;
      if (label) {
        const labelBox = label.getBoundingClientRect();
        if (labelBox.width * labelBox.height > box.width * box.height) box = labelBox;
      }
      if (box.width === 0 && box.height === 0) continue;
      if (box.width <= 1 || box.height <= 1) continue; // sr-only content that is not a target on screen
      const inline = style.display === 'inline' && el.tagName === 'A' && (el.parentElement?.textContent?.trim().length ?? 0) > (el.textContent?.trim().length ?? 0);
      if (inline) continue;
      const primary = el.matches('button[data-variant=primary], button[data-variant=danger], button[type=submit]');
      const need = primary ? 44 : 24;
      const name = (el.getAttribute('aria-label') ?? el.textContent ?? el.getAttribute('name') ?? el.tagName).trim().slice(0, 40);
      if (box.height < need - 0.5 || box.width < 24 - 0.5) problems.push({ what: `${el.tagName.toLowerCase()} ${name}`, width: Math.round(box.width), height: Math.round(box.height), need });
    }
    return problems;
  });
}

/** Where focus is: whether it is visible (a 2 px outline or a focus ring) and inside the topmost open dialog. */
export async function focusState(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const dialogs = Array.from(document.querySelectorAll('dialog[open]'));
    const top = dialogs.at(-1) ?? null;
    if (!el || el === document.body) return { tag: 'body', name: '', visible: false, inDialog: top ? false : null };
    const target = el.getBoundingClientRect().width <= 1 && el.closest('label') ? el.closest('label')! : el;
    const style = getComputedStyle(el);
    const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    // A focus ring (box-shadow) on :focus counts too: date inputs hold focus in inner fields, where :focus-visible does not reach the host.
    const ringed = getComputedStyle(target).boxShadow !== 'none';
    return {
      tag: el.tagName.toLowerCase(),
      name: (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40),
      visible: outlined || ringed,
      inDialog: top ? top.contains(el) : null,
    };
  });
}

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../.artifacts/screens');

/** Axe, then screenshots at 1280 and 390 px (e2e/.artifacts/screens), with no sideways scroll on the phone. */
export async function scanAndShoot(page: Page, name: string) {
  // A toast fading in or out fails contrast mid-animation: scan once they are gone.
  await expect(page.locator('.Toastify__toast')).toHaveCount(0, { timeout: 15_000 });
  await expectAxeClean(page, name);
  await page.screenshot({ path: path.join(SCREENS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoHorizontalScroll(page);
  await page.screenshot({ path: path.join(SCREENS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}
