// `npm run demo:php`: the demo PHP app, the service and nginx (deploy/nginx-strangler.conf) on one port.
// DEMO_PORT chooses the port (default 8080), DEMO_PHP_SESSION where PHP keeps its sessions (a name from
// PHP_SESSION_SETUPS, default files/php). Ctrl-C stops everything and removes the temp dir.
import { PHP_SESSION_SETUPS, missingForDemo, startStrangler } from './strangler.mjs';

const session = process.env.DEMO_PHP_SESSION || PHP_SESSION_SETUPS[0].name;
if (!PHP_SESSION_SETUPS.some((setup) => setup.name === session)) {
  console.error(`demo: DEMO_PHP_SESSION must be one of ${PHP_SESSION_SETUPS.map((setup) => setup.name).join(', ')}`);
  process.exit(1);
}
const missing = missingForDemo(session);
if (missing.length > 0) {
  console.error(
    `demo: missing ${missing.join(', ')} (Debian: apt-get install php-cli php-fpm nginx, and the packages named; a database's URL in the variable named)`,
  );
  process.exit(1);
}
const verbose = process.env.DEMO_VERBOSE === '1';
const demo = await startStrangler({
  port: Number(process.env.DEMO_PORT ?? 8080),
  session,
  onOutput: (name, text) => {
    if (verbose) process.stderr.write(text.replace(/^(?=.)/gm, `[${name}] `));
  },
});
console.log(`
The PHP app (${demo.php}, sessions: ${demo.session}) and the service, behind nginx with deploy/nginx-strangler.conf:

  ${demo.url}/

Sign in on the PHP page, then edit the quotation: the two jQuery posts go to the service,
every page to PHP. Sign out in PHP and edit again: the service answers "No autenticado".
Audit rows: sqlite3 ${demo.activityDb} 'select * from activity_log'
Ctrl-C stops everything (DEMO_VERBOSE=1 shows the processes' output).
`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await demo.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
