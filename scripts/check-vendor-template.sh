#!/usr/bin/env bash
# Type-checks the vendor's template app (its non-UI sources: Managers/, Models/, Storage/)
# against this package's built PlaudDeviceBasicSDK, PlaudBleSDK and PlaudWiFiSDK, as an app
# would compile it: `import PlaudBleSDK` etc. resolve to our modules; Combine, CommonCrypto,
# CoreLocation and NetworkExtension (absent on Linux) are declaration-only stand-ins
# (Tests/PlaudBleSDKTests/StandIns, Tests/ApplePlatformTests/StandIns).
#
# The vendor's code is not part of this repository: pass the directory holding its
# PlaudTemplateApp sources (from Plaud's public SDK repository, plaud-template-app/ios/
# PlaudTemplateApp). Build first (`swift build`). Prints swiftc's diagnostics and the count
# of errors; exits 0 only when there are none.
#
# usage: scripts/check-vendor-template.sh <PlaudTemplateApp directory> [build directory]
set -euo pipefail
template=${1:?usage: $0 <PlaudTemplateApp directory> [build directory]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/.build/debug}
modules=$build/Modules
[ -d "$modules" ] || { echo "no built modules in $modules: run swift build first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

standin() {  # standin NAME SOURCE...
  local name=$1
  shift
  swiftc -emit-module -parse-as-library -swift-version 5 -module-name "$name" "$@" \
    -emit-module-path "$work/$name.swiftmodule" >/dev/null
}
standin Combine "$root/Tests/PlaudBleSDKTests/StandIns/Combine.swift"
standin CommonCrypto "$root/Tests/PlaudBleSDKTests/StandIns/CommonCrypto.swift"
standin CoreLocation "$root/Tests/ApplePlatformTests/StandIns/CoreLocation.swift" \
  "$root/Tests/PlaudBleSDKTests/StandIns/CoreLocation+Template.swift"
standin NetworkExtension "$root/Tests/ApplePlatformTests/StandIns/NetworkExtension.swift"
standin CoreBluetooth "$root/Tests/ApplePlatformTests/StandIns/CoreBluetooth.swift"
standin UIKit "$root/Tests/ApplePlatformTests/StandIns/UIKit.swift"

# The C modules the package's Swift modules import: their module maps and headers.
cflags=()
for clang in CCrypto CCurl CDBus CLame COgg COpus COpusShim CSQLite; do
  map=$root/Sources/$clang/module.modulemap
  [ -f "$map" ] || map=$build/$clang.build/module.modulemap
  [ -f "$map" ] && cflags+=(-Xcc "-fmodule-map-file=$map")
done
for flag in $(pkg-config --cflags-only-I opus lame ogg sqlite3 libcrypto libcurl dbus-1); do
  cflags+=(-Xcc "$flag")
done

# Apple's Foundation includes URLSession; on Linux it is FoundationNetworking's.
implicit=()
if [ "$(uname)" = Linux ]; then
  implicit=(-Xfrontend -import-module -Xfrontend FoundationNetworking)
fi

mapfile -t files < <(find "$template/Managers" "$template/Models" "$template/Storage" \
  -name '*.swift' | sort)
set +e
swiftc -typecheck -swift-version 5 -module-name PlaudTemplateApp -I "$work" -I "$modules" \
  "${implicit[@]}" "${cflags[@]}" "${files[@]}" >"$work/out.txt" 2>&1
status=$?
set -e
cat "$work/out.txt"
errors=$(grep -c ': error: ' "$work/out.txt" || true)
echo "template files: ${#files[@]}; compile errors: $errors"
[ "$status" -eq 0 ] && [ "$errors" -eq 0 ]
