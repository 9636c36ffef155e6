import { signIn } from './review-api.js';
import { ReviewApp } from './review-app.js';

const nonce =
  document.querySelector<HTMLMetaElement>('meta[name="tandem-style-nonce"]')?.content ?? '';
const api = await signIn();
const app = new ReviewApp(document.getElementById('app')!, nonce, api);
if (api)
  api.listen(
    (event) => app.handle(event),
    (state) => app.setConnection(state),
  );
else app.setConnection('signed-out');
