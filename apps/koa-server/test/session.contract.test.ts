import { afterAll } from 'vitest';
import { testSession } from '@cotizaciones/adapters/testing';
import { CLAIMS, koaHarness, shared } from './support/session-contract-harness.js';

// The cookie store in this process; session.contract.int.test.ts runs the suite against Redis.
const cookieHarness = await koaHarness();
afterAll(() => cookieHarness.close());
testSession('koa-session, cookie store', () => Promise.resolve(shared(cookieHarness)), CLAIMS);
