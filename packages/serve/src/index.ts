export { reviewPageDir, serveCommand, serveUsage } from './serve-command.js';
export { ReviewQueue, type DiffAnswers } from './review-queue.js';
export { ReviewServer } from './review-server.js';
