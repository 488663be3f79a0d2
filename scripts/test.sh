#!/usr/bin/env bash
# The one test command (README): typecheck, lint, unit tests in Node (the short SFT learning test and
# the shipped checkpoints' verdict checks included), the build, then the browser end-to-end tests in
# headless Chromium. Budget: 15 minutes wall on a 2-core machine (issue 9); anything that needs an
# hour is a `npm run repro` or a benchmark. Installs Debian's chromium if it is missing and we are root
# on Debian; otherwise says exactly what to install.
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

stage typecheck; npm run -s typecheck
stage lint; npm run -s lint
stage "unit (vitest, Node, tfjs cpu/wasm)"; npx vitest run
stage build; npx vite build --logLevel warn
stage "end-to-end (headless Chromium, WebGPU via SwiftShader)"; node scripts/e2e.mjs
stage "fused WebGPU kernels vs the plain ops (headless Chromium)"; node scripts/webgpu-kernels.mjs
stage "all tests passed in $(( $(date +%s) - start ))s"
