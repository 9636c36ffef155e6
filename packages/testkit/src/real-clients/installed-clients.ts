/**
 * Where the real CLIs are: installed apart from Tandem's packages, in `packages/testkit/clients`
 * (`npm run setup:clients`; `npm test` runs it), so that `npm ci` of Tandem installs none of
 * them. Everything that loads a CLI's module or program resolves it here.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CLIENTS_DIR = fileURLToPath(new URL('../../clients/', import.meta.url));

const fromClients = createRequire(path.join(CLIENTS_DIR, 'package.json'));

/** The file a specifier such as `@google/gemini-cli-core/dist/src/ide/ide-client.js` names. */
export function clientModulePath(specifier: string): string {
  try {
    return fromClients.resolve(specifier);
  } catch (error) {
    throw new Error(`${specifier} is not installed in ${CLIENTS_DIR}: run npm run setup:clients`, {
      cause: error,
    });
  }
}

/** Imports a module of the installed CLIs; type it with `typeof import('<specifier>')`. */
export function importClientModule<T>(specifier: string): Promise<T> {
  return import(pathToFileURL(clientModulePath(specifier)).href) as Promise<T>;
}
