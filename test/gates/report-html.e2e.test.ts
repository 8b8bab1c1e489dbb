import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { loadInputs } from '../../src/gates/setup.js';
import { runAb } from '../../src/gates/ab/run.js';
import { needsTitle } from '../helpers/needs.js';
import { depsWithFakeGpu, fakeRepo } from './fake.js';
import { VERDICT_COLOURS } from '../../src/report/html.js';

// report.html opened by a real browser (Debian's chromium, headless): the verdict and every plot must render,
// the page must not be blank, and it must ask for nothing beyond its own file (self-contained).
const CHROMIUM = process.env.NH_GATE_CHROMIUM ?? '/usr/bin/chromium';
const ready = existsSync(CHROMIUM);
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Mean and variance of the luminance of a PNG, decoded by the browser itself (a canvas), so no PNG library is needed.
async function pixelStats(page: Page, png: Buffer): Promise<{ mean: number; variance: number; inked: number; rgb: [number, number, number] }> {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let sum = 0, sq = 0, r = 0, g = 0, b = 0, inked = 0;
    const n = d.length / 4;
    for (let i = 0; i < d.length; i += 4) {
      const y = 0.2126 * d[i]! + 0.7152 * d[i + 1]! + 0.0722 * d[i + 2]!;
      sum += y; sq += y * y; r += d[i]!; g += d[i + 1]!; b += d[i + 2]!;
      if (y < 160) inked += 1;
    }
    const mean = sum / n;
    return { mean, variance: sq / n - mean * mean, inked: inked / n, rgb: [r / n, g / n, b / n] as [number, number, number] };
  }, png.toString('base64'));
}

describe.skipIf(!ready)(needsTitle('report.html rendered by headless Chromium', { what: 'chromium', ready, build: 'apt-get install chromium (or node scripts/prereq.mjs chromium)' }), () => {
  it('shows the verdict and both kinds of plot, is not blank, and requests nothing outside itself', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.3' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, flag: 'FLAG' }, repo.root);
    const out = await runAb({ argv: [], inputs, arch: '90', repeats: 1, seed: 1, mode: 'decode', jobs: 1, resultsBase: mkdtempSync(join(tmpdir(), 'nh-html-')), order: 'abba' }, await depsWithFakeGpu());
    const file = join(out.result.runDir, 'report.html');
    expect(readFileSync(file, 'utf8')).toContain(`>${out.result.verdict.word}</div>`);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const foreign: string[] = [];
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url !== pathToFileURL(file).href) foreign.push(url);
        return url.startsWith('file:') ? route.continue() : route.abort();
      });
      await page.goto(pathToFileURL(file).href);
      const verdict = page.locator('#verdict');
      expect((await verdict.innerText()).trim()).toBe(out.result.verdict.word);
      const box = await verdict.boundingBox();
      expect(box!.width).toBeGreaterThan(40);
      expect(box!.height).toBeGreaterThan(20);
      const plots = page.locator('figure.plot svg');
      expect(await plots.count()).toBe(3);
      for (let i = 0; i < 3; i++) {
        const b = await plots.nth(i).boundingBox();
        expect(b!.width).toBeGreaterThan(200);
        expect(b!.height).toBeGreaterThan(150);
        // A rendered plot has drawn marks, not an empty frame.
        expect(await plots.nth(i).locator('path, line, rect').count()).toBeGreaterThan(5);
      }
      expect(await page.locator('#legs td[title^="per output token "]').count()).toBe(2);
      expect(foreign).toEqual([]);

      const shot = await page.screenshot({ fullPage: true });
      const whole = await pixelStats(page, shot);
      // A blank or single-colour page has no inked pixels and no luminance variance; text, tables and plots do
      // (this page: about 2% of its pixels dark, variance about 750, against 0 for a blank one).
      expect(whole.inked).toBeGreaterThan(0.005);
      expect(whole.variance).toBeGreaterThan(100);
      for (let i = 0; i < 3; i++) expect((await pixelStats(page, await plots.nth(i).screenshot())).inked).toBeGreaterThan(0.01);
      // The verdict badge is painted in its class's colour (whatever this run's verdict is), not left unstyled:
      // its mean colour is nearest to that class's, of the three.
      const badge = (await pixelStats(page, await verdict.screenshot())).rgb;
      const cls = out.result.verdict.exitClass === 'passed' ? 'passed' : out.result.verdict.exitClass === 'failed' ? 'failed' : 'void';
      const dist = (hex: string): number => [1, 3, 5].reduce((s, at, k) => s + (parseInt(hex.slice(at, at + 2), 16) - badge[k]!) ** 2, 0);
      const nearest = (Object.keys(VERDICT_COLOURS) as Array<keyof typeof VERDICT_COLOURS>).sort((a, b) => dist(VERDICT_COLOURS[a]) - dist(VERDICT_COLOURS[b]))[0];
      expect(nearest).toBe(cls);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
