#!/usr/bin/env bash
# Install the Debian packages pilfer's build needs, only when some are missing.
# Quiet and fast (one dpkg query) when everything is present.
#   scripts/bootstrap.sh           build + test dependencies
#   scripts/bootstrap.sh --bench   also the benchmark peers and tools (scripts/bench.sh calls this)
set -euo pipefail
PKGS=(g++ clang-14 libclang-rt-14-dev cmake ninja-build ccache pkg-config
      libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
      libhwloc-dev hwloc libtbb-dev libconcurrentqueue-dev)
# --bench: also what scripts/bench.sh needs (the peers' runtimes and crates, valgrind, perf, gnuplot); the test
# command does not install these.
if [ "${1:-}" = "--bench" ]; then
  PKGS+=(libomp-dev cargo rustc librust-rayon-dev librust-crossbeam-deque-dev valgrind linux-perf gnuplot-nox)
fi
missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "pilfer bootstrap: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
