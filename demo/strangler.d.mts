// Types of strangler.mjs, for the end-to-end test that drives it.
export declare const DEMO_PHP: string;
export declare function phpFpmBinary(): string | undefined;
export declare function missingForDemo(): string[];
export interface Strangler {
  /** nginx's address: the PHP pages and the two endpoints behind one origin. */
  readonly url: string;
  readonly dir: string;
  /** The service's SQLite activity log. */
  readonly activityDb: string;
  /** How the PHP app runs: php-fpm, or `php -S` when php-fpm is absent. */
  readonly php: 'php-fpm' | 'php -S';
  stop(): Promise<void>;
}
export declare function startStrangler(options?: {
  port?: number;
  idleSeconds?: number;
  onOutput?: (name: string, text: string) => void;
}): Promise<Strangler>;
