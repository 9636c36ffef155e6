import { ReviewEvents } from './review-api.js';
import { ReviewApp } from './review-app.js';

const nonce =
  document.querySelector<HTMLMetaElement>('meta[name="tandem-style-nonce"]')?.content ?? '';
const app = new ReviewApp(document.getElementById('app')!, nonce);
new ReviewEvents(
  (event) => app.handle(event),
  (state) => app.setConnection(state),
).start();
