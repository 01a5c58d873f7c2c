#!/usr/bin/env bash
# Builds each libFuzzer target with swiftc (-sanitize=fuzzer,address) from the sources of the
# module it exercises, then runs each one in turn, either for a number of executions
# (FUZZ_RUNS=N, libFuzzer's -runs) or for a number of seconds (the first argument, when
# FUZZ_RUNS is empty), and prints one summary line per target: executions, executions per
# second, corpus size and findings.
#
# Corpus: Fuzz/corpus/<target> is committed and kept small. A run starts from it and from
# Fuzz/seeds/<target>, grows a working copy under the build folder, then minimizes everything
# back into Fuzz/corpus/<target> with -merge=1 (only inputs that add coverage are kept).
# A finding (crash, leak, timeout, out-of-memory) stops that target's run, leaves its input
# under $out/findings/<target>/ and makes the script exit non-zero after the other targets.
#
# FUZZ_TARGETS="a b" limits the run to those names; FUZZ_OUT another build folder;
# FUZZ_NICE=N runs the fuzzers under `nice -n N` (a shared machine).
#
# FUZZ_TYPECHECK=1 is the smoke `make test` runs: every target's entry and sources are only
# type-checked, against the modules of the package's debug build (.build/debug/Modules), in
# seconds; nothing is built or run. It catches an entry that no longer compiles.
set -euo pipefail
seconds=${1:-300}
runs=${FUZZ_RUNS:-}
out=${FUZZ_OUT:-.build/fuzz}
mkdir -p "$out"

# name : module source folders : fuzz entry file
targets=(
  "frame-decoder:Sources/RecorderProtocol:Fuzz/FrameDecoderFuzz.swift"
)
[ -f Fuzz/targets.extra ] && while read -r line; do [ -n "$line" ] && targets+=("$line"); done < Fuzz/targets.extra

if [ -n "${FUZZ_TARGETS:-}" ]; then
  kept=()
  for spec in "${targets[@]}"; do
    for wanted in $FUZZ_TARGETS; do [ "${spec%%:*}" = "$wanted" ] && kept+=("$spec"); done
  done
  targets=("${kept[@]}")
fi

# The target's sources import package modules it does not compile itself (RecorderRemoteLink
# imports RecorderProtocol): a Swift module under Sources/ is built first as its own
# module (sanitized alike) and linked; a C module contributes its module map and library.
deps_flags() {  # deps_flags <module folders, comma separated>  -> prints swiftc flags
  local dirs=$1 flags=() mod files=()
  for dir in ${dirs//,/ }; do files+=("$dir"/*.swift); done
  local own=" "; for dir in ${dirs//,/ }; do own+="$(basename "$dir") "; done
  for mod in $(cat "${files[@]}" | sed -n 's/^ *\(@_exported \)\{0,1\}import \([A-Za-z_][A-Za-z0-9_]*\).*/\2/p' | sort -u); do
    [[ "$own" == *" $mod "* ]] && continue
    if [ -f "Sources/$mod/module.modulemap" ]; then
      flags+=(-Xcc "-fmodule-map-file=Sources/$mod/module.modulemap")
      for lib in $(sed -n 's/^ *link "\(.*\)"/\1/p' "Sources/$mod/module.modulemap"); do flags+=("-l$lib"); done
      # Its pkg-config header paths (opus.h lives in /usr/include/opus, lame.h in …/lame).
      local pc; pc=$(sed -n "s/.*\(name: \|audioLibrary(\)\"$mod\", pkgConfig: \"\([^\"]*\)\".*/\2/p" Package.swift)
      [ -n "$pc" ] && for inc in $(pkg-config --cflags-only-I "$pc"); do flags+=(-Xcc "$inc"); done
    elif [ -d "Sources/$mod/include" ]; then
      # A C target (COpusShim): compile its .c files, give clang a module map for its header.
      mkdir -p "$out/c/$mod"
      printf 'module %s {\n  header "%s"\n  export *\n}\n' "$mod" \
        "$PWD/$(ls "Sources/$mod/include"/*.h | head -n 1)" >"$out/c/$mod/module.modulemap"
      local pcs; pcs=$(sed -n 's/.*pkgConfig: "\([^"]*\)".*/\1/p' Package.swift | tr '\n' ' ')
      [ -n "${FUZZ_TYPECHECK:-}" ] || for c in "Sources/$mod"/*.c; do
        # shellcheck disable=SC2046,SC2086
        clang -O1 -g -c -I "Sources/$mod/include" $(pkg-config --cflags-only-I $pcs) "$c" \
          -o "$out/c/$mod/$(basename "$c" .c).o" >&2
        flags+=("$out/c/$mod/$(basename "$c" .c).o")
      done
      flags+=(-Xcc "-fmodule-map-file=$out/c/$mod/module.modulemap")
    elif [ -n "${FUZZ_TYPECHECK:-}" ] && ls "Sources/$mod"/*.swift >/dev/null 2>&1; then
      flags+=(-I "$(swift build --show-bin-path)/Modules")
      # Its own C imports need their module maps (RecorderCrypto → CCrypto).
      # shellcheck disable=SC2207
      flags+=($(deps_flags "Sources/$mod"))
    elif ls "Sources/$mod"/*.swift >/dev/null 2>&1; then
      # Built once, again when one of its sources changed (a fix under test).
      if [ ! -f "$out/modules/$mod.swiftmodule" ] ||
        [ -n "$(find "Sources/$mod" -name '*.swift' -newer "$out/modules/$mod.swiftmodule")" ]; then
        mkdir -p "$out/modules"
        # shellcheck disable=SC2046
        swiftc -sanitize=fuzzer,address -parse-as-library -package-name RecorderKit -O -g $(deps_flags "Sources/$mod") \
          -module-name "$mod" -emit-module -emit-module-path "$out/modules/$mod.swiftmodule" \
          -emit-library -static -o "$out/modules/lib$mod.a" "Sources/$mod"/*.swift >&2
      fi
      flags+=(-I "$out/modules" -L "$out/modules" "-l$mod")
      # What that module imports in turn (RecorderWebSocket → RecorderCrypto → CCrypto).
      # shellcheck disable=SC2207
      flags+=($(deps_flags "Sources/$mod"))
    fi
  done
  dedupe "${flags[@]}"
}

# Prints its arguments once each (libraries excepted), keeping a flag and its value together
# (-Xcc X, -I X, -L X).
dedupe() {
  local seen=" " item
  while [ $# -gt 0 ]; do
    item=$1
    case $1 in -Xcc | -I | -L) item="$1 $2"; shift ;; esac
    shift
    # A static library is kept at every mention: the linker resolves left to right, so one
    # a later library needs (RecorderWebSocket → RecorderSockets) must come again after it.
    [[ "$item" != -l* && "$seen" == *" $item "* ]] && continue
    seen+="$item "
    echo -n "$item "
  done
}

if [ -n "${FUZZ_TYPECHECK:-}" ]; then
  for spec in "${targets[@]}"; do
    IFS=: read -r name dirs entry <<<"$spec"
    sources=()
    for dir in ${dirs//,/ }; do sources+=("$dir"/*.swift); done
    # shellcheck disable=SC2046
    swiftc -typecheck -parse-as-library -package-name RecorderKit $(deps_flags "$dirs") \
      -module-name "Fuzz_${name//-/_}" "${sources[@]}" "$entry"
    echo "fuzz target $name: type-checks"
  done
  exit 0
fi

for spec in "${targets[@]}"; do
  IFS=: read -r name dirs entry <<<"$spec"
  sources=()
  for dir in ${dirs//,/ }; do sources+=("$dir"/*.swift); done
  echo "== building $name" >&2
  # shellcheck disable=SC2046
  swiftc -sanitize=fuzzer,address -parse-as-library -package-name RecorderKit -O -g $(deps_flags "$dirs") \
    -module-name "Fuzz_${name//-/_}" "${sources[@]}" "$entry" -o "$out/$name"
done

summary=()
failed=0
for spec in "${targets[@]}"; do
  IFS=: read -r name _ _ <<<"$spec"
  corpus="Fuzz/corpus/$name"
  work="$out/corpus/$name"
  findings="$out/findings/$name"
  rm -rf "$findings"
  mkdir -p "$corpus" "$work" "$findings"
  seeds="Fuzz/seeds/$name"
  if [ -n "$runs" ]; then length=(-runs="$runs"); what="$runs runs"; else
    length=(-max_total_time="$seconds"); what="${seconds}s"; fi
  echo "== fuzzing $name for $what" >&2
  log="$out/$name.log"
  status=0
  # shellcheck disable=SC2046
  nice -n "${FUZZ_NICE:-0}" "$out/$name" "${length[@]}" -print_final_stats=1 -max_len=4096 \
    -artifact_prefix="$findings/" "$work" "$corpus" $([ -d "$seeds" ] && echo "$seeds") \
    >"$log" 2>&1 || status=$?
  tail -n 15 "$log"
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  seconds_taken=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
  found=$(find "$findings" -type f | wc -l)
  # Minimize: everything known about this target, merged afresh into the committed corpus.
  fresh="$out/merge/$name"
  rm -rf "$fresh" && mkdir -p "$fresh"
  # shellcheck disable=SC2046
  "$out/$name" -merge=1 -max_len=4096 "$fresh" "$corpus" "$work" \
    $([ -d "$seeds" ] && echo "$seeds") >"$out/$name.merge.log" 2>&1 || true
  if [ -n "$(ls -A "$fresh")" ]; then rm -rf "$corpus" && mv "$fresh" "$corpus"; fi
  kept=$(find "$corpus" -type f | wc -l)
  size=$(du -sb "$corpus" | cut -f1)
  rate=""
  if [ -n "$executed" ] && [ -n "$seconds_taken" ] && [ "$seconds_taken" -gt 0 ]; then
    rate=" ($((executed / seconds_taken))/s over ${seconds_taken}s)"
  fi
  line="$name: ${executed:-?} executions$rate, exit $status, findings $found, corpus $kept files ${size} bytes"
  summary+=("$line")
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then failed=1; fi
done
echo "== fuzz summary" >&2
printf '%s\n' "${summary[@]}"
exit "$failed"
