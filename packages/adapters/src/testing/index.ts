export { startStubUpstream, type ReceivedRequest, type StubAnswer, type StubUpstreamServer } from './stub-upstream-server.js';
export { testUpstream, type DeliveredRequest, type UpstreamHarness, type UpstreamScenario } from './upstream-contract.js';
export { testActivityLog, sampleEntry, type ActivityLogHarness } from './activity-log-contract.js';
export { testSessionStore, type SessionStoreHarness } from './session-store-contract.js';
export { testSession, type SessionHarness } from './session-contract.js';
export { serviceUrls, type ServiceUrls } from './service-urls.js';
export { startStubTokenEndpoint, type StubTokenEndpoint, type TokenRequest } from './stub-token-endpoint.js';
export { testTokenSource, type TokenSourceHarness } from './token-source-contract.js';
export { dropTable } from './drop-table.js';
