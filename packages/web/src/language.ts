import { LanguageDescription } from '@codemirror/language';
import { languages } from '@codemirror/language-data';

/**
 * The language of a file, by its name. Each language's code is a chunk of its own, loaded
 * (from this server, never the network) by `description.load()` when a file first needs it.
 */
export function languageOf(filePath: string): LanguageDescription | null {
  const name = filePath.split(/[\\/]/).pop() ?? filePath;
  return LanguageDescription.matchFilename(languages, name);
}
