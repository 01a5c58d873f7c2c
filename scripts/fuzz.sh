#!/usr/bin/env bash
# Builds each libFuzzer target with swiftc (-sanitize=fuzzer,address) from the sources of the
# module it exercises, then runs each for the given number of seconds. A crash stops the run
# and leaves its input as crash-* in the working directory.
set -euo pipefail
seconds=${1:-300}
out=${FUZZ_OUT:-.build/fuzz}  # FUZZ_OUT: another build folder
mkdir -p "$out"

# name : module source folders : fuzz entry file
targets=(
  "frame-decoder:Sources/RecorderProtocol:Fuzz/FrameDecoderFuzz.swift"
)
[ -f Fuzz/targets.extra ] && while read -r line; do [ -n "$line" ] && targets+=("$line"); done < Fuzz/targets.extra

# FUZZ_TARGETS="a b" limits the run to those names.
if [ -n "${FUZZ_TARGETS:-}" ]; then
  kept=()
  for spec in "${targets[@]}"; do
    for wanted in $FUZZ_TARGETS; do [ "${spec%%:*}" = "$wanted" ] && kept+=("$spec"); done
  done
  targets=("${kept[@]}")
fi

# The target's sources import package modules it does not compile itself (RecorderLink imports
# RecorderProtocol and CCrypto): a Swift module under Sources/ is built first as its own
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
      local pc; pc=$(sed -n "s/.*name: \"$mod\", pkgConfig: \"\([^\"]*\)\".*/\1/p" Package.swift)
      [ -n "$pc" ] && for inc in $(pkg-config --cflags-only-I "$pc"); do flags+=(-Xcc "$inc"); done
    elif [ -d "Sources/$mod/include" ]; then
      # A C target (COpusShim): compile its .c files, give clang a module map for its header.
      mkdir -p "$out/c/$mod"
      printf 'module %s {\n  header "%s"\n  export *\n}\n' "$mod" \
        "$PWD/$(ls "Sources/$mod/include"/*.h | head -n 1)" >"$out/c/$mod/module.modulemap"
      local pcs; pcs=$(sed -n 's/.*pkgConfig: "\([^"]*\)".*/\1/p' Package.swift | tr '\n' ' ')
      for c in "Sources/$mod"/*.c; do
        # shellcheck disable=SC2046,SC2086
        clang -O1 -g -c -I "Sources/$mod/include" $(pkg-config --cflags-only-I $pcs) "$c" \
          -o "$out/c/$mod/$(basename "$c" .c).o" >&2
        flags+=("$out/c/$mod/$(basename "$c" .c).o")
      done
      flags+=(-Xcc "-fmodule-map-file=$out/c/$mod/module.modulemap")
    elif ls "Sources/$mod"/*.swift >/dev/null 2>&1; then
      if [ ! -f "$out/modules/$mod.swiftmodule" ]; then
        mkdir -p "$out/modules"
        # shellcheck disable=SC2046
        swiftc -sanitize=fuzzer,address -parse-as-library -O -g $(deps_flags "Sources/$mod") \
          -module-name "$mod" -emit-module -emit-module-path "$out/modules/$mod.swiftmodule" \
          -emit-library -static -o "$out/modules/lib$mod.a" "Sources/$mod"/*.swift >&2
      fi
      # Its own imports (a C module map RecorderCrypto needs, say) travel with it.
      # shellcheck disable=SC2207
      flags+=(-I "$out/modules" -L "$out/modules" "-l$mod" $(deps_flags "Sources/$mod"))
    fi
  done
  echo "${flags[@]}"
}

for spec in "${targets[@]}"; do
  IFS=: read -r name dirs entry <<<"$spec"
  sources=()
  for dir in ${dirs//,/ }; do sources+=("$dir"/*.swift); done
  echo "== building $name" >&2
  # shellcheck disable=SC2046
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g $(deps_flags "$dirs") \
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
