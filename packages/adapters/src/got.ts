export { gotUpstream } from './upstream/got-upstream.js';
