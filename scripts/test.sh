#!/usr/bin/env bash
# The one test command (README): typecheck, lint, unit + integration tests in Node, then the
# browser end-to-end tests in headless Chromium. Installs Debian's chromium if it is missing and
# we are root on Debian; otherwise says exactly what to install.
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

echo "== typecheck"; npm run -s typecheck
echo "== lint"; npm run -s lint
echo "== unit + integration (vitest, Node, tfjs cpu)"; npx vitest run
echo "== build"; npx vite build --logLevel warn
echo "== end-to-end (headless Chromium, WebGPU via SwiftShader)"; node scripts/e2e.mjs
echo "== all tests passed in $(( $(date +%s) - start ))s"
