/** Test-only: what the review page says once a CLI approved in its terminal wrote the file. */
import type { Locator, Page } from 'playwright-core';
import type { ClientKind } from '@tandem/testkit';

/**
 * Waits until the page says how `cli` wrote `fileName` (Gemini CLI with the page's edits, in a
 * notice of its own; Qwen Code its own proposal, beside the edits the page keeps), and returns
 * that notice.
 */
export async function writtenNotice(
  page: Page,
  cli: ClientKind,
  fileName: string,
): Promise<Locator> {
  const notice = page.locator(cli === 'qwen' ? '.kept-edits' : '.outcome');
  await notice
    .locator('.diff-outcome', {
      hasText:
        cli === 'gemini'
          ? `Gemini CLI wrote ${fileName} with your edits (approved in its terminal).`
          : `Qwen Code wrote its own proposal to ${fileName}, not your edits`,
    })
    .waitFor({ timeout: 60_000 });
  return notice;
}
