#!/bin/sh
# The GPU check on a bare machine (no Node, no network): unpacks this pack's Node, dawn.node and Vulkan
# loader into a temp folder and runs the bundled CLI's `gpu-check --run`. Written by `npm run gpu-check --
# --pack DIR` (src/cli/gpuCheck/run.sh); docs/gpu-check.md. Run it from the repository root (the shipped
# checkpoints are read from public/checkpoints):
#   sh PACK/run.sh OUT [gpu-check options: --rehearse, --scales m,s,l, --steps N, --deadline-s S]
# Writes into OUT: figures.json, README.md, log.txt (everything printed), env.txt (what this script
# found), nvidia-smi.csv (GPU memory every second, when nvidia-smi exists).
set -eu
pack=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: sh run.sh OUT [gpu-check options]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -d public/checkpoints/m-tiny ] || { echo "run.sh: run me from the repository root (no public/checkpoints/m-tiny in $(pwd))" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/star-gpu-check.XXXXXX")
env_txt="$out/env.txt"
note() { echo "$*" | tee -a "$env_txt"; }
: > "$env_txt"

unxz_to() { # FILE.xz DEST: xz if present, else Python's lzma
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" > "$2"
  elif command -v python3 >/dev/null 2>&1; then python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
  else echo "run.sh: need xz or python3 to unpack $1" >&2; exit 1; fi
}
note "== run.sh $(date -u +%FT%TZ) in $(pwd); pack $pack; unpacked in $work"
unxz_to "$pack/node.xz" "$work/node" && chmod +x "$work/node"
unxz_to "$pack/dawn.node.xz" "$work/dawn.node"
mkdir -p "$work/vulkan" "$work/runtime"
unxz_to "$pack/libvulkan.so.1.xz" "$work/vulkan/libvulkan.so.1"
(cd "$work/runtime" && unxz_to "$pack/runtime.tar.xz" runtime.tar && tar -xf runtime.tar && rm runtime.tar)
note "uname: $(uname -srm); nproc: $(nproc 2>/dev/null || echo ?); glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"

# NVIDIA's container toolkit puts the driver's libraries here; its Vulkan ICD names them by bare name
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done
# NVIDIA's Vulkan ICD (libGLX_nvidia.so.0) needs libglvnd's libGLdispatch; the H200 machine has none, so the
# pack's (Debian 12's) go last on the path when the system lacks them
if ! (ldconfig -p 2>/dev/null | grep -q 'libGLdispatch\.so\.0 '); then
  LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$work/runtime/glvnd"
  note "libglvnd: the pack's (the system has no libGLdispatch.so.0)"
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
# the system's Vulkan loader when there is one, else the pack's (Chromium's build of the Khronos loader)
if ! (ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '); then export STAR_VULKAN_LOADER="$work/vulkan/libvulkan.so.1"; fi
note "Vulkan loader: ${STAR_VULKAN_LOADER:-the system's}"
for d in /usr/local/nvidia/share/vulkan/icd.d /etc/vulkan/icd.d /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
  [ -d "$d" ] && note "ICD files in $d: $(ls "$d" | tr '\n' ' ')"
done
if command -v nvidia-smi >/dev/null 2>&1; then note "$(nvidia-smi -L 2>&1)"; else note "no nvidia-smi"; fi

# Node and dawn.node with the system's C and C++ runtimes if they are new enough (dawn.node wants
# glibc 2.34 and GLIBCXX_3.4.30), else the pack's libstdc++ and, failing that, its whole runtime
export STAR_DAWN_NODE="$work/dawn.node" STAR_TFJS_WASM_OUT="$pack/wasm-out" STAR_PACK_DIR="$pack"
mode=system
run_node() {
  case $mode in
    libc) "$work/runtime/libc/ld-linux-x86-64.so.2" --library-path "$work/runtime/cxx:$work/runtime/libc:$LD_LIBRARY_PATH" "$work/node" "$@" ;;
    cxx) LD_LIBRARY_PATH="$work/runtime/cxx:$LD_LIBRARY_PATH" "$work/node" "$@" ;;
    *) "$work/node" "$@" ;;
  esac
}
probe='process.dlopen({ exports: {} }, process.env.STAR_DAWN_NODE)'
# STAR_PACK_RUNTIME=libc (or cxx) tries that one alone: the rehearsal checks the fallbacks too
for mode in ${STAR_PACK_RUNTIME:-system cxx libc}; do
  if run_node -e "$probe" >/dev/null 2>&1; then break; fi
  note "runtime $mode: $(run_node -e "$probe" 2>&1 | grep -m1 -i 'error' || echo failed)"
done
note "runtime: $mode (system: this machine's glibc and libstdc++; cxx: the pack's libstdc++; libc: the pack's glibc too)"

smi_pid=
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=timestamp,memory.used,memory.total,utilization.gpu --format=csv -l 1 > "$out/nvidia-smi.csv" 2>&1 &
  smi_pid=$!
fi
status=0
run_node "$pack/cli.mjs" gpu-check --run --out "$out" "$@" > "$out/log.txt" 2>&1 || status=$?
if [ -n "$smi_pid" ]; then kill "$smi_pid" 2>/dev/null || true; fi
cat "$out/log.txt"
note "gpu-check exited with $status"
rm -rf "$work"
exit "$status"
