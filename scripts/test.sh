#!/usr/bin/env bash
# The one test command (README): typecheck, lint, unit tests in Node, the SFT integration test,
# then the browser end-to-end tests in headless Chromium. Installs Debian's chromium if it is
# missing and we are root on Debian; otherwise says exactly what to install.
#
# The integration test (test/integration: SFT of preset s on a `tiny` world, then greedy rollouts)
# trains for ~35 min on one core, so it starts first, in the background, and everything else runs
# beside it on the other core. STAR_SKIP_INTEGRATION=1 leaves it out (a quick local check).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    echo "== installing Debian's chromium (needed for the browser tests)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "Chromium is missing. Install it, e.g.: sudo apt-get install -y chromium   (or set CHROMIUM_PATH)" >&2
    exit 1
  fi
fi

integration_pid=
integration_log=$(mktemp -t star-integration.XXXXXX)
if [ -z "${STAR_SKIP_INTEGRATION:-}" ]; then
  echo "== integration (vitest, Node, wasm): SFT then evaluation, in the background (log: $integration_log)"
  # its own process group (setsid), so a failure elsewhere can stop the whole training run
  STAR_INTEGRATION=1 setsid npx vitest run test/integration >"$integration_log" 2>&1 &
  integration_pid=$!
  trap '[ -n "$integration_pid" ] && kill -- "-$integration_pid" 2>/dev/null || true' EXIT
fi

echo "== typecheck"; npm run -s typecheck
echo "== lint"; npm run -s lint
echo "== unit (vitest, Node, tfjs cpu/wasm)"; npx vitest run --exclude 'test/integration/**'
echo "== build"; npx vite build --logLevel warn
echo "== end-to-end (headless Chromium, WebGPU via SwiftShader)"; node scripts/e2e.mjs

if [ -n "$integration_pid" ]; then
  echo "== waiting for the integration test ($(( $(date +%s) - start ))s so far)"
  status=0
  wait "$integration_pid" || status=$?
  integration_pid=
  grep -E -A2 '\[sft integration' "$integration_log" || true
  grep -E 'Test Files|Tests |FAIL|AssertionError|Error:' "$integration_log" || true
  if [ "$status" != 0 ]; then
    echo "integration test failed (exit $status); full log:" >&2
    cat "$integration_log" >&2
    exit "$status"
  fi
fi
echo "== all tests passed in $(( $(date +%s) - start ))s"
