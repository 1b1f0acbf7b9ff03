export { undiciUpstream } from './upstream/undici-upstream.js';
