export { redisSessionStore, type RedisSessionStore, type RedisSessionStoreOptions } from './session/redis-session-store.js';
