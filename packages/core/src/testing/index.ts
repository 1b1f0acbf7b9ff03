// In-memory adapters of the core's ports, beside the ports they implement: the core's own use-case
// tests run on them, and so can any channel's. The adapters' port suites hold them to the same rules.
// ARCHIVE_QUOTATION: an operation outside the catalog, for the channels' tests of a new entry.
export { inMemoryUpstream, type InMemoryUpstream, type ScriptedAnswer, type UpstreamResponder } from './in-memory-upstream.js';
export { inMemorySession } from './in-memory-session.js';
export { inMemoryActivityLog, type InMemoryActivityLog } from './in-memory-activity-log.js';
export { ARCHIVE_QUOTATION } from './extra-operation.js';
