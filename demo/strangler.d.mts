// Types of strangler.mjs, for the end-to-end test that drives it.
export declare const DEMO_PHP: string;
export declare function phpFpmBinary(): string | undefined;
export interface PhpSessionSetup {
  /** `<save handler>/<serializer>`, e.g. `memcached/igbinary`. */
  readonly name: string;
  readonly needs: readonly { readonly package: string; present(): boolean }[];
}
export declare const PHP_SESSION_SETUPS: readonly PhpSessionSetup[];
export declare function phpSessionSetup(name?: string): PhpSessionSetup;
export declare function missingForDemo(session?: string): string[];
export interface Strangler {
  /** nginx's address: the PHP pages and the two endpoints behind one origin. */
  readonly url: string;
  readonly dir: string;
  /** The PHP session set-up's name. */
  readonly session: string;
  /** How the service describes the sessions it reads (its start-up line). */
  readonly sessionsRead: string;
  /** The service's SQLite activity log. */
  readonly activityDb: string;
  /** How the PHP app runs: php-fpm, or `php -S` when php-fpm is absent. */
  readonly php: 'php-fpm' | 'php -S';
  stop(): Promise<void>;
}
export declare function startStrangler(options?: {
  port?: number;
  /** A name from PHP_SESSION_SETUPS; default the first, files/php. */
  session?: string;
  idleSeconds?: number;
  onOutput?: (name: string, text: string) => void;
}): Promise<Strangler>;
