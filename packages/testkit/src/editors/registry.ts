/**
 * The editor versions Tandem is tested on, and where each comes from: the system's package
 * (Debian 12), or a root file system built from Debian 13 (trixie) or unstable (sid) by
 * `scripts/editor-roots.sh`. Labels are what tests and `TANDEM_NVIM`/`TANDEM_VIM`/
 * `TANDEM_EMACS`/`TANDEM_HELIX` name; `newest` is whatever Debian unstable carries today.
 */
export type EditorName = 'nvim' | 'vim' | 'emacs' | 'helix';
export type Suite = 'trixie' | 'sid';

export interface VersionSource {
  label: string;
  from: 'system' | Suite;
}

export interface EditorFamily {
  /** How people call it. */
  title: string;
  /** The program whose `--version` tells the version. */
  program: string;
  /** Reads the version from the first lines of `program --version`. */
  versionPattern: RegExp;
  /** The variable that narrows a run to some of the versions. */
  variable: string;
  /** Oldest first: the first is the version of tests that choose none. */
  versions: VersionSource[];
}

/** The usual three: Debian 12's package, Debian 13's, and unstable's as `newest`. */
function fromDebian(system: string, trixie: string): VersionSource[] {
  return [
    { label: system, from: 'system' },
    { label: trixie, from: 'trixie' },
    { label: 'newest', from: 'sid' },
  ];
}

/** A family whose variable is `TANDEM_` and its short name in capitals. */
function family(name: EditorName, rest: Omit<EditorFamily, 'variable'>): EditorFamily {
  return { ...rest, variable: `TANDEM_${name.toUpperCase()}` };
}

export const EDITORS: Record<EditorName, EditorFamily> = {
  nvim: family('nvim', {
    title: 'Neovim',
    program: 'nvim',
    versionPattern: /^NVIM v(\d+\.\d+\.\d+)/m,
    versions: fromDebian('0.7', '0.10'),
  }),
  vim: family('vim', {
    title: 'Vim',
    program: 'vim',
    versionPattern: /^VIM - Vi IMproved (\d+\.\d+)/m,
    versions: fromDebian('9.0', '9.1'),
  }),
  emacs: family('emacs', {
    title: 'Emacs',
    program: 'emacs',
    versionPattern: /^GNU Emacs (\d+\.\d+)/m,
    versions: fromDebian('28.2', '30.1'),
  }),
  // Not in Debian 12: both versions come from roots. It reaches Tandem through `tandem lsp`.
  helix: family('helix', {
    title: 'Helix',
    program: 'hx',
    versionPattern: /^helix (\d+\.\d+(?:\.\d+)?)/m,
    versions: [
      { label: '25.01', from: 'trixie' },
      { label: 'newest', from: 'sid' },
    ],
  }),
};

/** Whether a program reporting `version` is what `label` promises. */
export function matchesLabel(label: string, version: string): boolean {
  return label === 'newest' || version === label || version.startsWith(`${label}.`);
}
