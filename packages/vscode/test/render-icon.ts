/**
 * Renders images/icon.svg to images/icon.png (128×128, the size the Marketplace and Open VSX
 * show) with the tests' Chromium (`@tandem/testkit`), which is why it lives with the tests: the
 * extension's sources never import the testkit. Run after changing the SVG, and commit both:
 * `node --import tsx packages/vscode/test/render-icon.ts`
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@tandem/testkit';

const images = fileURLToPath(new URL('../images/', import.meta.url));
const svg = await readFile(path.join(images, 'icon.svg'), 'utf8');
const profile = await mkdtemp(path.join(tmpdir(), 'tandem-icon-'));
const browser = await launchChromium(profile);
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.setViewportSize({ width: 128, height: 128 });
  await page.setContent(`<body style="margin:0;background:transparent">${svg}</body>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  await writeFile(path.join(images, 'icon.png'), png);
} finally {
  await browser.close();
  await rm(profile, { recursive: true, force: true });
}
