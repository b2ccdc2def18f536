#!/usr/bin/env bash
# Compile bench/peers/htsim_dumbbell.cpp (bufferlab's own driver) against htsim, the packet
# simulator of the datacenter-transport literature, for the speed comparison of issue #40
# (docs/performance.md, "Beside htsim"). htsim is not part of the repository and is not
# downloaded here: point HTSIM_SRC at a checkout of its public source (Broadcom/csg-htsim, the
# folder that holds sim/). Its sim/ folder is copied to bench/.peers/htsim (ignored by git) and
# its library built there with its own Makefile (-O3), so the checkout is left untouched.
# Prints the driver's path; exits 1 with one line when HTSIM_SRC is not set or not htsim.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(cd "$HERE/.." && pwd)/.peers
if [ -z "${HTSIM_SRC:-}" ] || [ ! -f "$HTSIM_SRC/sim/tcp.h" ]; then
  echo "bench: set HTSIM_SRC to a checkout of htsim's source (the folder holding sim/tcp.h)" >&2
  exit 1
fi
mkdir -p "$PEERS/htsim"
if [ ! -f "$PEERS/htsim/sim/libhtsim.a" ]; then
  echo "bench: building htsim's library from $HTSIM_SRC/sim" >&2
  rm -rf "$PEERS/htsim/sim" && cp -r "$HTSIM_SRC/sim" "$PEERS/htsim/sim"
  nice -n 10 make -s -C "$PEERS/htsim/sim" libhtsim.a >&2
fi
BIN=$PEERS/htsim_dumbbell
if [ ! -x "$BIN" ] || [ "$HERE/htsim_dumbbell.cpp" -nt "$BIN" ]; then
  echo "bench: compiling $BIN" >&2
  nice -n 10 g++ -O3 -std=c++17 -o "$BIN" "$HERE/htsim_dumbbell.cpp" -I"$PEERS/htsim/sim" \
    "$PEERS/htsim/sim/libhtsim.a"
fi
echo "$BIN"
