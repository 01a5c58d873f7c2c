#!/usr/bin/env bash
# Builds Opus, LAME and libogg as static xcframeworks for iOS (device and simulator) and
# macOS from their upstream source releases, for RecorderAudio on Apple platforms.
#
# Run on a Mac with Xcode's command-line tools:  scripts/build-apple-xcframeworks.sh [OUT]
# OUT defaults to ./Frameworks; it receives COpus.xcframework, CLame.xcframework and
# COgg.xcframework (headers included).
#
# Package.swift uses the frameworks in ./Frameworks instead of the pkg-config system
# libraries as soon as they exist there.
#
# UNTESTED: written on Linux, where neither xcodebuild nor the Apple SDKs exist. What would
# check it: running it on a Mac, then `swift build` (and an iOS build in Xcode) with the
# frameworks in place.
#
# Source archives are verified against scripts/apple-deps.sha256 ("<sha256>  <file>" lines).
# That file is not filled in yet: on the first run the script prints the hashes it computed
# and stops; compare them with the projects' published ones, record them, and run again.
set -euo pipefail

OPUS_VERSION=1.5.2
LAME_VERSION=3.100
OGG_VERSION=1.3.5
MIN_IOS=16.0
MIN_MACOS=13.0

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/Frameworks}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
SUMS="$ROOT/scripts/apple-deps.sha256"

fetch() { # url file
  curl --fail --location --silent --show-error -o "$WORK/$2" "$1"
}

fetch "https://downloads.xiph.org/releases/opus/opus-$OPUS_VERSION.tar.gz" "opus-$OPUS_VERSION.tar.gz"
fetch "https://downloads.sourceforge.net/project/lame/lame/$LAME_VERSION/lame-$LAME_VERSION.tar.gz" "lame-$LAME_VERSION.tar.gz"
fetch "https://downloads.xiph.org/releases/ogg/libogg-$OGG_VERSION.tar.gz" "libogg-$OGG_VERSION.tar.gz"

(cd "$WORK" && shasum -a 256 ./*.tar.gz | sed 's| \./| |') > "$WORK/computed.sha256"
if [[ ! -s "$SUMS" ]]; then
  echo "No recorded checksums in $SUMS. Computed:" >&2
  cat "$WORK/computed.sha256" >&2
  echo "Check them against the upstream announcements, save them to $SUMS, run again." >&2
  exit 2
fi
(cd "$WORK" && shasum -a 256 -c "$SUMS")

# slice: name sdk arch host min-flag
SLICES=(
  "ios-arm64 iphoneos arm64 aarch64-apple-darwin -mios-version-min=$MIN_IOS"
  "sim-arm64 iphonesimulator arm64 aarch64-apple-darwin -mios-simulator-version-min=$MIN_IOS"
  "sim-x86_64 iphonesimulator x86_64 x86_64-apple-darwin -mios-simulator-version-min=$MIN_IOS"
  "mac-arm64 macosx arm64 aarch64-apple-darwin -mmacosx-version-min=$MIN_MACOS"
  "mac-x86_64 macosx x86_64 x86_64-apple-darwin -mmacosx-version-min=$MIN_MACOS"
)

build() { # project-dir extra-configure-flags...
  local src="$1"; shift
  for slice in "${SLICES[@]}"; do
    read -r name sdk arch host minflag <<<"$slice"
    local sysroot; sysroot="$(xcrun --sdk "$sdk" --show-sdk-path)"
    local prefix="$WORK/install/$(basename "$src")/$name"
    local build="$WORK/build/$(basename "$src")/$name"
    mkdir -p "$build"
    (cd "$build" && \
      CC="$(xcrun --sdk "$sdk" -f clang)" \
      CFLAGS="-arch $arch -isysroot $sysroot $minflag -O2" \
      LDFLAGS="-arch $arch -isysroot $sysroot $minflag" \
      "$src/configure" --host="$host" --prefix="$prefix" --enable-static --disable-shared "$@" \
        >/dev/null && make -j"$(sysctl -n hw.ncpu)" >/dev/null && make install >/dev/null)
  done
}

# Each framework's headers get the module map Package.swift's `import COpus` (CLame, COgg)
# needs: the header the package's shim includes (<opus.h>, <lame.h>, <ogg/ogg.h>), so Opus's
# and LAME's headers are moved out of their include/opus and include/lame folders. The map
# goes in a folder named after the module: three frameworks each with a module.modulemap at
# the root of their headers collide in one Xcode build ("multiple commands produce").
xcframework() { # module project-dir library-name header [folder-to-flatten]
  local module="$1" project="$2" lib="$3" header="$4" flatten="${5:-}"
  local base="$WORK/install/$project"
  for pair in sim mac; do
    mkdir -p "$base/$pair/lib"
    lipo -create "$base/$pair-arm64/lib/$lib" "$base/$pair-x86_64/lib/$lib" -output "$base/$pair/lib/$lib"
    cp -R "$base/$pair-arm64/include" "$base/$pair/include"
  done
  for slice in ios-arm64 sim mac; do
    local include="$base/$slice/include"
    if [[ -n "$flatten" ]]; then
      cp -R "$include/$flatten/." "$include/"
      rm -rf "${include:?}/$flatten"
    fi
    mkdir -p "$include/$module"
    printf 'module %s {\n  header "../%s"\n  export *\n}\n' "$module" "$header" \
      >"$include/$module/module.modulemap"
  done
  rm -rf "$OUT/$module.xcframework"
  xcodebuild -create-xcframework \
    -library "$base/ios-arm64/lib/$lib" -headers "$base/ios-arm64/include" \
    -library "$base/sim/lib/$lib" -headers "$base/sim/include" \
    -library "$base/mac/lib/$lib" -headers "$base/mac/include" \
    -output "$OUT/$module.xcframework"
}

mkdir -p "$OUT"
for archive in "$WORK"/*.tar.gz; do tar -xzf "$archive" -C "$WORK"; done

build "$WORK/opus-$OPUS_VERSION" --disable-doc --disable-extra-programs
build "$WORK/lame-$LAME_VERSION" --disable-frontend --disable-decoder
build "$WORK/libogg-$OGG_VERSION"

xcframework COpus "opus-$OPUS_VERSION" libopus.a opus.h opus
xcframework CLame "lame-$LAME_VERSION" libmp3lame.a lame.h lame
xcframework COgg "libogg-$OGG_VERSION" libogg.a ogg/ogg.h

echo "Built: $OUT/{COpus,CLame,COgg}.xcframework"
# SwiftPM caches what the manifest evaluated to: without this it would go on using the
# system libraries it chose before the frameworks existed.
(cd "$ROOT" && swift package reset)
