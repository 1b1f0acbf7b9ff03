export { redisSessionStore, type RedisSessionStoreOptions } from './session/redis-session-store.js';
