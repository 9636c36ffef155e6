/**
 * What `@tandem/web` gives other packages: the protocol between the review page and the server
 * that serves it (`tandem serve`), as types. The page itself is `main.ts`, built into `dist/`.
 */
export type * from './review-protocol.js';
