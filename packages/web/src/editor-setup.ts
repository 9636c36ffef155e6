import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { hangingIndent } from './hanging-indent.js';

// Colours are CSS variables (styles.css), so light and dark follow the system on their own.
const theme = EditorView.theme({
  '&': { color: 'var(--fg)', backgroundColor: 'var(--editor-bg)', fontSize: '13px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.55' },
  '.cm-content': { caretColor: 'var(--accent)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--accent)' },
  '&.cm-focused': { outline: 'none' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--selection) !important',
  },
  '.cm-gutters': {
    backgroundColor: 'var(--editor-bg)',
    color: 'var(--gutter-fg)',
    border: 'none',
  },
  '.cm-lineNumbers .cm-gutterElement': { padding: '0 10px 0 14px' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)', color: 'var(--fg)' },
  '.cm-selectionMatch': { backgroundColor: 'var(--selection-match)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--selection-match)' },
  '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--fg)' },
  '.cm-panels-bottom': { borderTop: '1px solid var(--border)' },
  // The merge view's own marks.
  '&.cm-merge-a .cm-changedLine, .cm-deletedChunk': { backgroundColor: 'var(--removed-line)' },
  '&.cm-merge-b .cm-changedLine, .cm-inlineChangedLine': {
    backgroundColor: 'var(--added-line)',
  },
  '&.cm-merge-a .cm-changedText, .cm-deletedChunk .cm-deletedText': {
    background: 'var(--removed-text)',
    borderRadius: '2px',
  },
  '&.cm-merge-b .cm-changedText': { background: 'var(--added-text)', borderRadius: '2px' },
  '&.cm-merge-a .cm-changedLineGutter, .cm-deletedLineGutter': {
    background: 'var(--removed-mark)',
  },
  '&.cm-merge-b .cm-changedLineGutter': { background: 'var(--added-mark)' },
  '.cm-collapsedLines': {
    color: 'var(--muted)',
    background: 'var(--surface-2)',
    fontFamily: 'var(--sans)',
    fontSize: '12px',
    '&:before': { content: '"↕"' },
    '&:after': { content: 'none' },
  },
});

const highlightStyle = HighlightStyle.define([
  { tag: [tags.keyword, tags.modifier, tags.controlKeyword], color: 'var(--tok-keyword)' },
  { tag: [tags.operatorKeyword, tags.definitionKeyword], color: 'var(--tok-keyword)' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--tok-string)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--tok-number)' },
  { tag: tags.comment, color: 'var(--tok-comment)', fontStyle: 'italic' },
  {
    tag: [tags.function(tags.variableName), tags.function(tags.propertyName)],
    color: 'var(--tok-function)',
  },
  { tag: [tags.definition(tags.variableName)], color: 'var(--tok-definition)' },
  { tag: [tags.typeName, tags.className, tags.namespace], color: 'var(--tok-type)' },
  { tag: [tags.propertyName, tags.attributeName], color: 'var(--tok-property)' },
  { tag: [tags.tagName, tags.heading], color: 'var(--tok-tag)' },
  { tag: [tags.meta, tags.processingInstruction], color: 'var(--tok-meta)' },
  { tag: tags.heading, fontWeight: '600' },
  { tag: tags.strong, fontWeight: '600' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.link, textDecoration: 'underline' },
  { tag: tags.invalid, color: 'var(--tok-invalid)' },
]);

/** What both sides of a diff share. `nonce` lets the editor's style sheets pass the CSP. */
function common(nonce: string): Extension {
  return [
    EditorView.cspNonce.of(nonce),
    lineNumbers(),
    highlightSpecialChars(),
    drawSelection(),
    EditorView.lineWrapping,
    hangingIndent(),
    syntaxHighlighting(highlightStyle),
    highlightSelectionMatches(),
    keymap.of(searchKeymap),
    theme,
  ];
}

/** The file on disk: read-only. */
export function originalSide(nonce: string): Extension {
  return [common(nonce), EditorState.readOnly.of(true), EditorView.editable.of(false)];
}

/** The proposal: the user's to edit. */
export function proposedSide(nonce: string): Extension {
  return [
    common(nonce),
    history(),
    highlightActiveLine(),
    highlightActiveLineGutter(),
    bracketMatching(),
    indentOnInput(),
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
  ];
}
