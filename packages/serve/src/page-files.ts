import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** Where `index.html` asks for the style nonce of its response. */
const noncePlaceholder = '__CSP_NONCE__';

export interface PageFile {
  body: Buffer;
  contentType: string;
}

/** The built review page (packages/web/dist): `index.html` and the files under `assets/`. */
export class PageFiles {
  private readonly assetsDir: string;

  constructor(private readonly dir: string | URL) {
    this.assetsDir = resolve(this.path(), 'assets');
  }

  /** `index.html`, which hands the style nonce of this response to the page's scripts. */
  async index(nonce: string): Promise<string> {
    const html = await readFile(resolve(this.path(), 'index.html'), 'utf8');
    return html.replaceAll(noncePlaceholder, nonce);
  }

  /** A file under `assets/`; undefined when there is none by that name. */
  async asset(name: string): Promise<PageFile | undefined> {
    const path = resolve(this.assetsDir, name);
    const contentType = contentTypes[extname(path)];
    if (!path.startsWith(this.assetsDir + sep) || !contentType) return undefined;
    try {
      return { body: await readFile(path), contentType };
    } catch {
      return undefined;
    }
  }

  private path(): string {
    return typeof this.dir === 'string' ? this.dir : fileURLToPath(this.dir);
  }
}
