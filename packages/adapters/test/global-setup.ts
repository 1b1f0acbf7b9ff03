import { setupTestEnvironment } from '../src/testing/test-environment.js';

export default () => setupTestEnvironment('adapters');
