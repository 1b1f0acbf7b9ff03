// The PHP session adapter: reads the PHP app's own sessions (files, phpredis on one server or a cluster, php-memcached) beside it.
//
// Decisions (each checked against PHP 8.2 / phpredis 5.3 in test/php-session/):
// - ints: `number`, or `bigint` beyond 2^53 (saturating at the 64-bit bounds as PHP does); a user id comes out as
//   its exact decimal text. Ints and floats are both JS numbers: the int/float distinction is not kept.
// - strings are bytes read as UTF-8; invalid sequences become U+FFFD (a Latin-1 name must not sign its user out).
// - arrays are Maps (PHP order and key types kept); objects and enums are frozen plain data, never instantiated;
//   private/protected names lose their "\0Class\0" / "\0*\0" prefix. The user handed to the core is plain
//   null-prototype data (bigints as text, enums as "Class::Case").
// - `C:` (an old-style Serializable) is read as PHP reads it without the class: an incomplete object, its data
//   skipped by its declared length, no code run; elsewhere in a session it is skipped as opaque data.
// - refused: `S:`, trailing bytes, anything PHP would stop at silently, nesting over 64, more than 1 MiB or
//   100 000 values, building more than BUILD_FACTOR (4) values or bytes of strings per byte of data (a repeated
//   string or referenced value is built once and shared), references to stepped-over values chained more than 16
//   deep. Every refusal is a PhpSessionDecodeError; the session is then "no user".
export {
  BUILD_FACTOR,
  PhpSessionDecodeError,
  isPhpObject,
  type PhpArray,
  type PhpDecodeLimits,
  type PhpEnum,
  type PhpKey,
  type PhpObject,
  type PhpValue,
} from './php-session/php-value.js';
export { unserializePhp } from './php-session/unserialize.js';
export { decodePhpSession, type DecodedPhpSession } from './php-session/session-formats.js';
export type { BuildWork } from './php-session/build-budget.js';
export {
  SESSION_FORMATS,
  type PhpSaveHandler,
  type PhpSessionFormat,
  type PhpSessionSettings,
  type PhpSessionTouch,
} from './php-session/options.js';
export { phpSessions, PhpSessionConfigError, type PhpSessionProblem, type PhpSessionsOptions } from './php-session/php-sessions.js';
