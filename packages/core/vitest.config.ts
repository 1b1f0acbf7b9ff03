import { defineConfig } from 'vitest/config';
import { testTiers } from '../../vitest.tiers.js';

export default defineConfig({ test: testTiers({}) });
