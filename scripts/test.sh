#!/usr/bin/env bash
# The test command (README): typecheck, lint, unit tests in Node (the short SFT learning test and
# the shipped checkpoints' verdict checks included), the build, then the browser end-to-end tests in
# headless Chromium; with --long (`npm run test:long`, README's second test command, which CI runs too) the
# long browser groups instead (one in Firefox). Budget: 15 minutes wall on a 2-core machine; anything that needs an
# hour is a `npm run repro` or a benchmark. Installs Debian's chromium and firefox-esr if missing and we are
# root on Debian; otherwise says exactly what to install (without Firefox its group is skipped, and says so).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage_start=$start
stage() { # prints the time the previous stage took, then the next stage's name
  local now; now=$(date +%s)
  [ "$now" != "$start" ] && echo "   ($(( now - stage_start ))s)"
  stage_start=$now
  echo "== $1"
}

if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    echo "== installing Debian's chromium (needed for the browser tests)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "Chromium is missing. Install it, e.g.: sudo apt-get install -y chromium   (or set CHROMIUM_PATH)" >&2
    exit 1
  fi
fi
# Firefox (the e2e group `firefox`): installed the same way where we can; elsewhere that group is skipped and says so
if [ ! -x /usr/bin/firefox-esr ] && [ -z "${FIREFOX_PATH:-}" ]; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    echo "== installing Debian's firefox-esr (the Firefox browser tests)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null
  else
    echo "== firefox-esr is missing and cannot be installed here (not root on Debian): the e2e group firefox will be SKIPPED. Install it: sudo apt-get install -y firefox-esr (or set FIREFOX_PATH)"
  fi
fi

# `npm run test:long` (scripts/test.sh --long): the second test command, the long browser groups (e2e.mjs' LONG:
# the lessons, live progress, crash recovery, Firefox) after a build; npm test's own 15 minutes had no room left for them
if [ "${1:-}" = --long ]; then
  stage "build"; npx vite build --logLevel warn
  stage "end-to-end, the long groups (headless Chromium; Firefox for one group)"; E2E_SHARD=long node scripts/e2e.mjs
  stage "all long tests passed in $(( $(date +%s) - start ))s"
  exit 0
fi

# Runs commands that need nothing from one another side by side, each into its own log, printed whole
# when all are done; fails if any failed. Each argument is "name|command".
side_by_side() {
  local logs; logs=$(mktemp -d)
  local names=() pids=() job name
  for job in "$@"; do
    name=${job%%|*}
    names+=("$name")
    ( t0=$(date +%s); rc=0; bash -c "${job#*|}" >"$logs/$name.log" 2>&1 || rc=$?
      echo "$rc $(( $(date +%s) - t0 ))" >"$logs/$name.rc" ) &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  local failed=0 rc secs
  for name in "${names[@]}"; do
    read -r rc secs <"$logs/$name.rc"
    echo "-- $name (${secs}s)$([ "$rc" != 0 ] && echo ": FAILED, exit $rc")"
    cat "$logs/$name.log"
    [ "$rc" = 0 ] || failed=1
  done
  rm -rf "$logs"
  return $failed
}

# svelte-check and eslint are single-threaded, and the kernel check mostly waits on Vite's transforms and
# SwiftShader's shader compiles: one after another they left a core idle (CI: 19 + 20 + 6 + 27 s)
stage "typecheck, lint, build, fused WebGPU kernels vs the plain ops (headless Chromium), side by side"
side_by_side "typecheck|npm run -s typecheck" "lint|npm run -s lint" "build|npx vite build --logLevel warn" \
  "fused WebGPU kernels|node scripts/webgpu-kernels.mjs"
stage "unit (vitest, Node, tfjs cpu/wasm)"; npx vitest run
# two browsers, half the groups each (e2e.mjs, E2E_SHARD): one browser mostly kept one core busy
stage "end-to-end (headless Chromium, WebGPU via SwiftShader; Firefox for one group), two shards side by side"
side_by_side "e2e shard 1|E2E_SHARD=1 node scripts/e2e.mjs" "e2e shard 2|E2E_SHARD=2 node scripts/e2e.mjs"
stage "all tests passed in $(( $(date +%s) - start ))s"
