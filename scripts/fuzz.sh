#!/usr/bin/env bash
# Builds each libFuzzer target with swiftc (-sanitize=fuzzer,address) from the sources of the
# module it exercises, then runs each for the given number of seconds. A crash stops the run
# and leaves its input as crash-* in the working directory.
set -euo pipefail
seconds=${1:-300}
out=.build/fuzz
mkdir -p "$out"

# name : module source folders : fuzz entry file
targets=(
  "frame-decoder:Sources/RecorderProtocol:Fuzz/FrameDecoderFuzz.swift"
)
[ -f Fuzz/targets.extra ] && while read -r line; do [ -n "$line" ] && targets+=("$line"); done < Fuzz/targets.extra

for spec in "${targets[@]}"; do
  IFS=: read -r name dirs entry <<<"$spec"
  sources=()
  for dir in ${dirs//,/ }; do sources+=("$dir"/*.swift); done
  echo "== building $name" >&2
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name "Fuzz_${name//-/_}" "${sources[@]}" "$entry" -o "$out/$name"
done

for spec in "${targets[@]}"; do
  IFS=: read -r name _ _ <<<"$spec"
  corpus="Fuzz/corpus-$name"
  mkdir -p "$corpus"
  seeds="Fuzz/seeds/$name"
  echo "== fuzzing $name for ${seconds}s" >&2
  "$out/$name" -max_total_time="$seconds" -print_final_stats=1 -max_len=4096 \
    "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) 2>&1 | tail -n 15
done
