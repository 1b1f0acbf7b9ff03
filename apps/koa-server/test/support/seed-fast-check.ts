import { testSeed } from '@cotizaciones/adapters/testing';
import fc from 'fast-check';

// Every property test draws from TEST_SEED (fixed unless asked otherwise): a failure fast-check reports replays exactly.
fc.configureGlobal({ seed: testSeed() });
