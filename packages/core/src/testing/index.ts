// In-memory adapters of the core's ports, beside the ports they implement: the core's own use-case
// tests run on them, and so can any channel's. The adapters' port suites hold them to the same rules.
export { inMemoryUpstream, type InMemoryUpstream, type ScriptedAnswer, type UpstreamResponder } from './in-memory-upstream.js';
export { inMemorySession } from './in-memory-session.js';
export { inMemoryActivityLog, type InMemoryActivityLog } from './in-memory-activity-log.js';
