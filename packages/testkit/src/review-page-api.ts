/**
 * The review page's side of its API (what the page sends when the user clicks), signed in once
 * with a printed URL's secret: for tests of whatever serves the page (`tandem serve`, `tandem
 * lsp`'s fallback).
 */
import assert from 'node:assert/strict';
import { waitFor } from './wait.js';

/** A diff as the page lists it. */
export interface PageReview {
  id: string;
  filePath: string;
  proposal: string;
  draft: string;
  openedAt: number;
}

export class ReviewPage {
  private constructor(
    private readonly origin: string,
    private readonly token: string,
  ) {}

  static async open(url: string): Promise<ReviewPage> {
    const origin = new URL(url).origin;
    const reply = await fetch(`${origin}/api/session`, {
      method: 'POST',
      headers: { origin, 'x-tandem-secret': new URL(url).hash.slice(1) },
    });
    assert.equal(reply.status, 200, await reply.clone().text());
    return new ReviewPage(origin, ((await reply.json()) as { token: string }).token);
  }

  /** The diffs the page lists now. */
  async reviews(): Promise<PageReview[]> {
    const reply = await fetch(`${this.origin}/api/state`, {
      headers: { 'x-tandem-token': this.token },
    });
    return ((await reply.json()) as { reviews: PageReview[] }).reviews;
  }

  /** The diff opened last, once the page lists it. */
  newest(): Promise<PageReview> {
    return waitFor('a diff on the review page', async () =>
      (await this.reviews()).sort((a, b) => a.openedAt - b.openedAt).at(-1),
    );
  }

  /** Sends the user's draft, accept or reject of a diff; resolves with the HTTP status. */
  async act(id: string, action: 'draft' | 'accept' | 'reject', content?: string) {
    const reply = await fetch(`${this.origin}/api/reviews/${encodeURIComponent(id)}/${action}`, {
      method: action === 'draft' ? 'PUT' : 'POST',
      headers: {
        origin: this.origin,
        'x-tandem-token': this.token,
        'content-type': 'application/json',
      },
      body: JSON.stringify(content === undefined ? {} : { content }),
    });
    return reply.status;
  }
}
