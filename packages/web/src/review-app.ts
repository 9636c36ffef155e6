import { h } from './dom.js';
import { displayPath, visibleText } from './paths.js';
import type {
  ClosedNotice,
  OutcomeNotice,
  Review,
  ReviewClient,
  ReviewEvent,
  ReviewOutcome,
  ReviewWarning,
} from './review-protocol.js';
import type { ConnectionState, ReviewApi } from './review-api.js';
import { ReviewPane } from './review-pane.js';
import { shortcutKeys, shortcutOf, type Shortcut } from './shortcuts.js';

const connectionLabels: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  'signed-out': 'Signed out',
  stopped: 'Server stopped',
};

/**
 * The whole page: the connected CLIs, the queue of pending diffs, and the diff under review.
 * It draws what the server's events say; each diff's editor lives as long as the diff.
 */
export class ReviewApp {
  private workspaceFolders: string[] = [];
  private clients: ReviewClient[] = [];
  /** How the user starts the server again, when the server said. */
  private restartCommand: string | undefined;
  /** The server has gone: only a live stream (the same server, back) undoes it. */
  private stopped = false;
  /** In the order they arrived: the queue. */
  private readonly reviews = new Map<string, Review>();
  private readonly panes = new Map<string, ReviewPane>();
  private selectedId: string | undefined;
  /** Diffs whose answer is on its way: their own request, not the event stream, ends them. */
  private readonly answering = new Set<string>();
  /** The notices that keep the edits of diffs the CLI closed, until dismissed. */
  private readonly keptEdits = new Map<string, HTMLElement>();

  private readonly workspaceLabel = h('span', { class: 'workspace' });
  private readonly clientList = h('div', { class: 'clients', 'aria-label': 'Connected CLIs' });
  private readonly connection = h('span', { class: 'connection', role: 'status' });
  private readonly queueCount = h('span', { class: 'count' });
  private readonly queueList = h('ol', { class: 'queue-list' });
  private readonly main = h('main', { class: 'main' });
  private readonly emptyState = h('div', { class: 'empty' });
  private readonly toasts = h('div', { class: 'toasts', 'aria-live': 'polite' });
  /** What stays until the user acts: the server's end, the warnings, edits the CLI did not take. */
  private readonly notices = h('div', { class: 'notices', 'aria-live': 'polite' });
  private readonly stoppedBanner = h('div', { class: 'notice notice-error', role: 'alert' });
  private readonly warningList = h('div', { class: 'warnings' });

  /** `api`: the signed-in page's requests; none when the page is signed out. */
  constructor(
    root: HTMLElement,
    private readonly nonce: string,
    private readonly api: ReviewApi | undefined,
  ) {
    root.append(
      h(
        'header',
        { class: 'topbar' },
        h(
          'div',
          { class: 'brand' },
          h('img', { src: 'assets/icon.svg', alt: '', width: '22', height: '22' }),
          'Tandem',
        ),
        this.workspaceLabel,
        h('div', { class: 'spacer' }),
        this.clientList,
        this.connection,
      ),
      this.notices,
      h(
        'div',
        { class: 'body' },
        h(
          'nav',
          { class: 'queue', 'aria-label': 'Pending diffs' },
          h('div', { class: 'queue-head' }, 'Pending review', this.queueCount),
          this.queueList,
          h(
            'div',
            { class: 'legend' },
            legendRow('Accept', shortcutKeys.accept),
            legendRow('Reject', shortcutKeys.reject),
            legendRow('Next change', ['F7']),
          ),
        ),
        this.main,
      ),
      this.toasts,
    );
    this.main.append(this.emptyState);
    this.stoppedBanner.hidden = true;
    this.notices.append(this.stoppedBanner, this.warningList);
    window.addEventListener('keydown', (event) => this.onKey(event), { capture: true });
    // A draft typed just before the tab closes still reaches the server.
    window.addEventListener('pagehide', () => {
      for (const pane of this.panes.values()) void pane.flushDraft();
    });
    this.setConnection('connecting');
    this.render();
  }

  handle(event: ReviewEvent): void {
    switch (event.type) {
      case 'snapshot': {
        this.workspaceFolders = event.snapshot.workspaceFolders;
        this.clients = event.snapshot.clients;
        this.showWarnings(event.snapshot.warnings);
        this.restartCommand = event.snapshot.restartCommand;
        const pending = new Set(event.snapshot.reviews.map((review) => review.id));
        for (const id of this.reviews.keys()) if (!pending.has(id)) this.remove(id);
        // Reviews already on the page keep their editors, with whatever the user typed.
        for (const review of event.snapshot.reviews) {
          if (!this.reviews.has(review.id)) this.reviews.set(review.id, review);
        }
        break;
      }
      case 'opened':
        this.reviews.set(event.review.id, event.review);
        break;
      case 'closed':
        this.closedElsewhere(event.id, event.outcome, event.notice);
        break;
      case 'outcome':
        this.showOutcome(event.id, event.outcome);
        break;
      case 'clients':
        this.clients = event.clients;
        break;
      case 'warnings':
        this.showWarnings(event.warnings);
        break;
      case 'stopped':
        break;
    }
    this.render();
  }

  setConnection(state: ConnectionState): void {
    if (state === 'stopped') this.showStopped();
    if (state === 'live') this.stoppedBanner.hidden = !(this.stopped = false);
    // Retries go on quietly: the page says the server stopped until it is live again.
    if (this.stopped) state = 'stopped';
    this.connection.textContent = connectionLabels[state];
    this.connection.dataset.state = state;
    this.connection.title =
      state === 'signed-out'
        ? 'Open a new URL from Tandem (tandem serve prints one in its terminal, tandem lsp ' +
          'shows one in your editor): each opens one page.'
        : state === 'reconnecting'
          ? 'Is tandem serve (or tandem lsp) still running?'
          : '';
  }

  /**
   * The server is gone: no CLI is connected through it any more, and a new `tandem serve` has a
   * new address and secret, so this page cannot follow it.
   */
  private showStopped(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.clients = [];
    this.stoppedBanner.replaceChildren(
      h('strong', {}, 'tandem serve has stopped. '),
      'No CLI is connected through this page, and what is still listed here can no longer be ' +
        'answered. Start it again (',
      h('code', {}, this.restartCommand ?? `tandem serve ${this.workspaceFolders[0] ?? 'DIR'}`),
      ') and open the new URL it prints: every start has a new address and secret.',
    );
    this.stoppedBanner.hidden = false;
    this.render();
  }

  private render(): void {
    this.workspaceLabel.textContent = this.workspaceFolders.join(', ');
    this.clientList.replaceChildren(
      ...(this.clients.length > 0
        ? this.clients.map((client) =>
            h('span', { class: 'chip' }, h('span', { class: 'dot' }), clientLabel(client)),
          )
        : [h('span', { class: 'chip chip-idle' }, 'No CLI connected')]),
    );

    if (!this.selectedId || !this.reviews.has(this.selectedId)) {
      this.selectedId = this.reviews.keys().next().value;
    }
    this.queueCount.textContent = String(this.reviews.size);
    this.queueList.replaceChildren(...[...this.reviews.values()].map((r) => this.queueItem(r)));
    document.title = this.reviews.size > 0 ? `(${this.reviews.size}) Tandem review` : 'Tandem';

    for (const [id, pane] of this.panes) pane.element.hidden = id !== this.selectedId;
    const selected = this.selectedId ? this.reviews.get(this.selectedId) : undefined;
    this.emptyState.hidden = selected !== undefined;
    if (selected && !this.panes.has(selected.id)) {
      const pane = new ReviewPane(selected, {
        workspaceFolders: this.workspaceFolders,
        nonce: this.nonce,
        answer: (target, shortcut) => void this.answer(target, shortcut),
        saveDraft: (id, content) => this.api?.saveDraft(id, content) ?? Promise.resolve('failed'),
      });
      this.panes.set(selected.id, pane);
      this.main.append(pane.element);
    }
    if (!selected) this.renderEmptyState();
  }

  /**
   * One line a warning, its fix on demand; a warning whose cause has gone (the server no longer
   * lists it) goes with it, and one the user opened stays open.
   */
  private showWarnings(warnings: ReviewWarning[]): void {
    const open = new Set(
      [...this.warningList.querySelectorAll('details[open] > summary')].map((s) => s.textContent),
    );
    this.warningList.replaceChildren(
      ...warnings.map((warning) => {
        const notice = h(
          'details',
          { class: 'notice notice-warning' },
          h('summary', { title: warning.message }, warning.message),
          h('span', { class: 'notice-fix' }, warning.fix),
        );
        notice.open = open.has(warning.message);
        return notice;
      }),
    );
  }

  private queueItem(review: Review): HTMLLIElement {
    const { directory, name } = displayPath(review.filePath, this.workspaceFolders);
    const button = h(
      'button',
      { type: 'button', class: 'queue-item', title: visibleText(review.filePath) },
      h(
        'span',
        { class: 'queue-file' },
        name,
        review.oldContent === null && h('span', { class: 'tag tag-new' }, 'New'),
      ),
      // Right-aligned overflow keeps the end of a long directory in view; the isolated text
      // keeps its slashes in place.
      directory && h('span', { class: 'queue-dir' }, h('bdi', { dir: 'ltr' }, directory)),
      h('span', { class: 'queue-client' }, review.client.name),
    );
    if (review.id === this.selectedId) button.setAttribute('aria-current', 'true');
    button.addEventListener('click', () => {
      this.selectedId = review.id;
      this.render();
      this.panes.get(review.id)?.focus();
    });
    return h('li', {}, button);
  }

  private renderEmptyState(): void {
    const folder = this.workspaceFolders[0] ?? 'this folder';
    this.emptyState.replaceChildren(
      h('div', { class: 'empty-mark' }, '✓'),
      h('h2', {}, 'Nothing to review'),
      h(
        'p',
        {},
        'Edits that Gemini CLI or Qwen Code propose appear here as they arrive. ' +
          'You can edit them before you accept.',
      ),
      this.clients.length > 0
        ? h('p', { class: 'hint' }, `Connected: ${this.clients.map(clientLabel).join(', ')}.`)
        : h(
            'p',
            { class: 'hint' },
            'In another terminal, run ',
            h('code', {}, 'gemini'),
            ' or ',
            h('code', {}, 'qwen'),
            ' in ',
            h('code', {}, folder),
            '.',
          ),
    );
  }

  private async answer(pane: ReviewPane, shortcut: Shortcut): Promise<void> {
    const { id, client } = pane.review;
    const { name } = displayPath(pane.review.filePath, this.workspaceFolders);
    const api = this.api;
    if (!api || this.answering.has(id)) return;
    this.answering.add(id);
    pane.setBusy(true);
    // A draft still on its way would arrive after the answer, at a diff no longer pending.
    await pane.flushDraft();
    const result =
      shortcut === 'accept' ? await api.accept(id, pane.content()) : await api.reject(id);
    this.answering.delete(id);
    if (result === 'failed' || typeof result === 'object') {
      pane.setBusy(false);
      const why = typeof result === 'object' ? result.refused : undefined;
      this.toast(why ?? 'Could not reach tandem serve. Nothing was lost; try again.', 'error');
      return;
    }
    const moveOn = this.selectedId === id;
    this.remove(id);
    this.render();
    if (moveOn && this.selectedId) this.panes.get(this.selectedId)?.focus();
    if (result === 'gone') this.toast(`${name} was already closed by ${client.name}.`);
    else if (shortcut === 'accept') this.toast(`Accepted ${name}: ${client.name} writes it.`);
    else this.toast(`Rejected ${name}.`);
  }

  private closedElsewhere(id: string, outcome: ReviewOutcome, notice?: ClosedNotice): void {
    const review = this.reviews.get(id);
    if (!review || this.answering.has(id)) return;
    const { name } = displayPath(review.filePath, this.workspaceFolders);
    this.remove(id);
    if (notice?.editedText !== undefined) {
      this.keepEdits(id, name, notice.message, notice.editedText);
    } else if (outcome !== 'closed') this.toast(`${name} was ${outcome} in another window.`);
    else if (notice) this.toast(`${name}: ${notice.message}`);
    else this.toast(`${review.client.name} closed the diff of ${name}.`);
  }

  /** The CLI closed a diff the user had edited: say what becomes of it, and keep the text. */
  private keepEdits(id: string, name: string, message: string, text: string): void {
    const copy = h('button', { type: 'button', class: 'action' }, 'Copy your text');
    const dismiss = h('button', { type: 'button', class: 'action' }, 'Dismiss');
    const area = h('textarea', {
      class: 'kept-text',
      readonly: '',
      rows: '8',
      'aria-label': `Your edited text of ${name}`,
    });
    area.value = text;
    const notice = h(
      'div',
      { class: 'notice notice-warning kept-edits' },
      h('strong', {}, `${name}: `),
      message,
      area,
      h('div', { class: 'notice-actions' }, copy, dismiss),
    );
    copy.addEventListener('click', () => {
      area.select();
      void navigator.clipboard.writeText(text).then(
        () => (copy.textContent = 'Copied'),
        () => (copy.textContent = 'Selected: press Ctrl+C'),
      );
    });
    dismiss.addEventListener('click', () => {
      notice.remove();
      this.keptEdits.delete(id);
    });
    this.keptEdits.set(id, notice);
    this.notices.append(notice);
  }

  /**
   * What became of a diff answered in the CLI's terminal: said in the notice that keeps the
   * user's edits of it, or in a notice of its own, which stays until dismissed.
   */
  private showOutcome(id: string, { kind, message }: OutcomeNotice): void {
    const line = h('p', { class: 'diff-outcome', 'data-kind': kind }, message);
    const kept = this.keptEdits.get(id);
    if (kept) {
      kept.querySelector('.notice-actions')?.before(line);
      return;
    }
    const dismiss = h('button', { type: 'button', class: 'action' }, 'Dismiss');
    const notice = h(
      'div',
      { class: `notice ${kind === 'changed' ? 'notice-warning' : 'notice-info'} outcome` },
      line,
      h('div', { class: 'notice-actions' }, dismiss),
    );
    dismiss.addEventListener('click', () => notice.remove());
    this.notices.append(notice);
  }

  /** Forgets a diff, selecting the one after it when it was the selected one. */
  private remove(id: string): void {
    if (this.selectedId === id) {
      const ids = [...this.reviews.keys()];
      const index = ids.indexOf(id);
      this.selectedId = ids[index + 1] ?? ids[index - 1];
    }
    this.reviews.delete(id);
    this.panes.get(id)?.destroy();
    this.panes.delete(id);
  }

  private onKey(event: KeyboardEvent): void {
    const shortcut = shortcutOf(event);
    const pane = this.selectedId ? this.panes.get(this.selectedId) : undefined;
    if (!shortcut || !pane) return;
    event.preventDefault();
    event.stopPropagation();
    // A held key answers one diff, not the whole queue.
    if (!event.repeat) void this.answer(pane, shortcut);
  }

  private toast(message: string, kind: 'info' | 'error' = 'info'): void {
    const toast = h('div', { class: `toast toast-${kind}` }, message);
    this.toasts.append(toast);
    setTimeout(() => toast.remove(), 5000);
  }
}

function clientLabel(client: ReviewClient): string {
  return `${client.name} ${client.version}`.trim();
}

function legendRow(label: string, keys: string[]): HTMLElement {
  return h(
    'div',
    { class: 'legend-row' },
    h('span', {}, label),
    h('span', { class: 'keys' }, ...keys.map((key) => h('kbd', {}, key))),
  );
}
