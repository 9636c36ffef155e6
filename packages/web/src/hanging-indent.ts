import { countColumn, RangeSetBuilder, type Extension } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  ViewPlugin,
  type DecorationSet,
  type ViewUpdate,
} from '@codemirror/view';

/** Deeper indentation is hung as if it were this deep. */
const maxColumns = 40;
/** How much further than its line's code a wrapped continuation starts, in columns. */
const continuation = 2;

const lineClasses = Array.from({ length: maxColumns + 1 }, (_, columns) =>
  Decoration.line({ class: `cm-hang-${columns}` }),
);

// A class per depth, not a style attribute per line: the page's CSP allows no inline styles.
const theme = EditorView.theme(
  Object.fromEntries(
    lineClasses.map((_, columns) => [
      `.cm-line.cm-hang-${columns}`,
      {
        paddingLeft: `calc(${columns + continuation}ch + 6px)`,
        textIndent: `-${columns + continuation}ch`,
      },
    ]),
  ),
);

function decorate(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const { doc, tabSize } = view.state;
  for (const { from, to } of view.visibleRanges) {
    for (let position = from; position <= to;) {
      const line = doc.lineAt(position);
      const indent = /^[ \t]*/.exec(line.text)![0];
      builder.add(
        line.from,
        line.from,
        lineClasses[Math.min(countColumn(indent, tabSize), maxColumns)]!,
      );
      position = line.to + 1;
    }
  }
  return builder.finish();
}

/**
 * Wrapped lines continue under their own code, a little further in, instead of at the left
 * edge: long lines stay readable in a half-width diff.
 */
export function hangingIndent(): Extension {
  const plugin = ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = decorate(view);
      }
      update(update: ViewUpdate) {
        if (update.docChanged || update.viewportChanged) this.decorations = decorate(update.view);
      }
    },
    { decorations: (value) => value.decorations },
  );
  return [plugin, theme];
}
