#!/usr/bin/env bash
# Install ns-3 (PyPI package `ns3`, which ships the C++ headers and shared libraries) into
# bench/.peers/ns3venv if missing, then compile the peer programs against it:
# bench/peers/ns3_dumbbell.cc into bench/.peers/ns3_dumbbell and bench/peers/ns3_leafspine.cc
# into bench/.peers/ns3_leafspine (bench/ecmp_ns3.py). Re-running only recompiles a program
# whose source changed. Prints the dumbbell's path (its callers read it).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(cd "$HERE/.." && pwd)/.peers
VENV=$PEERS/ns3venv
NS3_VERSION=${NS3_VERSION:-3.44.post0}
mkdir -p "$PEERS"
if ! "$VENV/bin/python3" -c 'import importlib.util,sys; sys.exit(importlib.util.find_spec("ns3") is None)' 2>/dev/null; then
  echo "bench: installing ns3==$NS3_VERSION from PyPI into $VENV" >&2
  python3 -m venv "$VENV"
  # --no-deps: only the C++ headers and libraries are used, not the Python bindings (cppyy)
  "$VENV/bin/pip" install -q --no-deps "ns3==$NS3_VERSION"
fi
NS3=$(echo "$VENV"/lib/python3*/site-packages/ns3)
VER=$(ls "$NS3"/lib64/libns3.*-core.so | sed -E 's/.*libns3\.([0-9.]+)-core\.so/\1/')
LIBS=""
for l in core network internet point-to-point traffic-control applications flow-monitor stats; do
  LIBS="$LIBS -lns3.$VER-$l"
done
for peer in ns3_leafspine ns3_dumbbell; do
  BIN=$PEERS/$peer
  if [ ! -x "$BIN" ] || [ "$HERE/$peer.cc" -nt "$BIN" ]; then
    echo "bench: compiling $BIN against ns-3.$VER" >&2
    nice -n 10 g++ -O2 -std=c++20 -o "$BIN" "$HERE/$peer.cc" -I"$NS3/include" \
      -L"$NS3/lib64" -Wl,-rpath,"$NS3/lib64" $LIBS
  fi
done
echo "$BIN"
