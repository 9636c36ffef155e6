import corePackage from '../package.json' with { type: 'json' };

/**
 * Tandem's version: one for the whole project (the repository's `package.json`; every package,
 * the extension and the Emacs package carry the same, as `scripts/release/version.test.ts`
 * checks). The CLIs see it as the MCP server's version; `tandem --version` prints it.
 */
export const TANDEM_VERSION: string = corePackage.version;
