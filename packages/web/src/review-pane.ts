import { getChunks, goToNextChunk, goToPreviousChunk, MergeView } from '@codemirror/merge';
import { Compartment, Prec } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { DraftSync, type DraftState } from './draft-sync.js';
import { h, icon } from './dom.js';
import { originalSide, proposedSide } from './editor-setup.js';
import { languageOf } from './language.js';
import { displayPath, visibleText } from './paths.js';
import type { Review } from './review-protocol.js';
import type { AnswerResult } from './review-api.js';
import { shortcutKeys, type Shortcut } from './shortcuts.js';

const revertIcon = 'M6.5 3 2.5 7l4 4v-2.6h3A2.5 2.5 0 0 1 12 10.9V13h1.5v-2.1a4 4 0 0 0-4-4h-3V3Z';

export interface PaneContext {
  workspaceFolders: string[];
  /** The style nonce of the page's response. */
  nonce: string;
  answer(pane: ReviewPane, shortcut: Shortcut): void;
  saveDraft(id: string, content: string): Promise<AnswerResult>;
}

/** One pending diff: its header and actions, and an editable side-by-side view. */
export class ReviewPane {
  readonly element: HTMLElement;
  private readonly merge: MergeView;
  private readonly drafts: DraftSync;
  private readonly changeCount = h('span', { class: 'changes' });
  private readonly draftState = h('span', { class: 'draft-state', 'aria-live': 'polite' });
  private readonly resetButton = h(
    'button',
    { class: 'link', type: 'button' },
    'Reset to proposal',
  );
  private readonly buttons: HTMLButtonElement[];

  constructor(
    readonly review: Review,
    private readonly context: PaneContext,
  ) {
    const { directory, name } = displayPath(review.filePath, context.workspaceFolders);
    const language = languageOf(review.filePath);
    const isNew = review.oldContent === null;
    this.buttons = [this.actionButton('reject', 'Reject'), this.actionButton('accept', 'Accept')];

    const header = h(
      'header',
      { class: 'review-head' },
      h(
        'div',
        { class: 'review-title' },
        h(
          'h2',
          { class: 'path', title: visibleText(review.filePath) },
          h('span', { class: 'dir' }, ...breakableAfterSlashes(directory)),
          h('span', { class: 'name' }, name),
        ),
        h(
          'div',
          { class: 'meta' },
          h('span', { class: 'client' }, `${review.client.name} ${review.client.version}`.trim()),
          isNew && h('span', { class: 'tag tag-new' }, 'New file'),
          language && h('span', { class: 'tag' }, language.name),
          this.changeCount,
          this.draftState,
          this.resetButton,
        ),
      ),
      h('div', { class: 'actions' }, ...this.buttons),
    );

    const languageSlot = new Compartment();
    this.merge = new MergeView({
      a: {
        doc: review.oldContent ?? '',
        extensions: [originalSide(context.nonce), languageSlot.of([])],
      },
      b: {
        doc: review.draft,
        extensions: [
          proposedSide(context.nonce),
          languageSlot.of([]),
          Prec.high(
            keymap.of([
              { key: 'F7', run: goToNextChunk },
              { key: 'Shift-F7', run: goToPreviousChunk },
            ]),
          ),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) this.edited();
          }),
        ],
      },
      revertControls: 'a-to-b',
      renderRevertControl: () =>
        h(
          'button',
          {
            class: 'revert',
            type: 'button',
            title: 'Restore the original of this change',
            'aria-label': 'Restore the original of this change',
          },
          icon(revertIcon),
        ),
      collapseUnchanged: { margin: 3, minSize: 6 },
      diffConfig: { scanLimit: 5000 },
    });
    this.merge.dom.prepend(
      h(
        'div',
        { class: 'sides' },
        h('div', { class: 'side' }, isNew ? 'New file — nothing on disk yet' : 'On disk'),
        h('div', { class: 'side-gap' }),
        h('div', { class: 'side side-proposed' }, `Proposed by ${review.client.name} — editable`),
      ),
    );

    this.drafts = new DraftSync(
      () => this.content(),
      (content) => context.saveDraft(review.id, content),
      (state) => this.showDraftState(state),
    );
    this.resetButton.addEventListener('click', () => this.resetToProposal());
    this.element = h(
      'section',
      { class: 'review', 'data-review-id': review.id },
      header,
      h('div', { class: 'merge-host' }, this.merge.dom),
    );
    this.showChangeCount();
    this.showDraftState('saved');

    if (language) {
      void language.load().then((support) => {
        for (const view of [this.merge.a, this.merge.b]) {
          view.dispatch({ effects: languageSlot.reconfigure(support) });
        }
      });
    }
  }

  /** The proposed side as it is now. */
  content(): string {
    return this.merge.b.state.doc.toString();
  }

  focus(): void {
    this.merge.b.focus();
  }

  /** While an answer is on its way, the buttons rest. */
  setBusy(busy: boolean): void {
    for (const button of this.buttons) button.disabled = busy;
  }

  /** Sends the latest draft now (e.g. as the tab closes). */
  flushDraft(): Promise<void> {
    return this.drafts.flush();
  }

  destroy(): void {
    this.drafts.stop();
    this.merge.destroy();
    this.element.remove();
  }

  private actionButton(shortcut: Shortcut, label: string): HTMLButtonElement {
    const button = h(
      'button',
      { class: `action action-${shortcut}`, type: 'button' },
      label,
      h('span', { class: 'keys' }, ...shortcutKeys[shortcut].map((key) => h('kbd', {}, key))),
    );
    button.addEventListener('click', () => this.context.answer(this, shortcut));
    return button;
  }

  private edited(): void {
    this.drafts.changed();
    this.showChangeCount();
  }

  private resetToProposal(): void {
    const doc = this.merge.b.state.doc;
    this.merge.b.dispatch({
      changes: { from: 0, to: doc.length, insert: this.review.proposal },
      userEvent: 'input.reset',
    });
  }

  private showChangeCount(): void {
    const count = getChunks(this.merge.b.state)?.chunks.length ?? this.merge.chunks.length;
    this.changeCount.textContent =
      count === 0 ? 'No changes' : count === 1 ? '1 change' : `${count} changes`;
  }

  private showDraftState(state: DraftState): void {
    const edited = this.content() !== this.review.proposal;
    this.resetButton.hidden = !edited;
    const labels: Record<DraftState, string> = {
      editing: 'Edited',
      saving: 'Edited · saving…',
      saved: 'Edited · saved',
      failed: 'Edited · not saved yet',
    };
    this.draftState.textContent = edited ? labels[state] : '';
    this.draftState.classList.toggle('warning', state === 'failed');
  }
}

/** The path's text, allowed to wrap after each slash rather than inside a name. */
function breakableAfterSlashes(path: string): (string | HTMLElement)[] {
  return path.split(/(?<=[\\/])/).flatMap((part) => [part, h('wbr')]);
}
