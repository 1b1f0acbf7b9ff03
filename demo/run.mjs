// `npm run demo:php`: the demo PHP app, the service and nginx (deploy/nginx-strangler.conf) on one port.
// DEMO_PORT chooses the port (default 8080). Ctrl-C stops everything and removes the temp dir.
import { missingForDemo, startStrangler } from './strangler.mjs';

const missing = missingForDemo();
if (missing.length > 0) {
  console.error(`demo: missing ${missing.join(', ')} (Debian: apt-get install php-cli php-fpm nginx)`);
  process.exit(1);
}
const verbose = process.env.DEMO_VERBOSE === '1';
const demo = await startStrangler({
  port: Number(process.env.DEMO_PORT ?? 8080),
  onOutput: (name, text) => {
    if (verbose) process.stderr.write(text.replace(/^(?=.)/gm, `[${name}] `));
  },
});
console.log(`
The PHP app (${demo.php}) and the service, behind nginx with deploy/nginx-strangler.conf:

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
