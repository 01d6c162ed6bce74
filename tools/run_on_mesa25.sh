#!/usr/bin/env bash
# Runs the C++ tests of BUILD_DIR on Mesa 25's lavapipe from bookworm-backports without installing
# it: the packages are downloaded with a private apt configuration (the system's sources and its
# Mesa stay as they are), unpacked with dpkg -x into MESA25_DIR, and only this process's
# environment points the Vulkan loader at them.
#   tools/run_on_mesa25.sh BUILD_DIR [ctest args...]     (default ctest args: -j1 --output-on-failure)
# MESA25_DIR (default /work/mesa25) holds the downloads and the unpacked driver; MESA25_DIR-cache.bin
# (vkattn's pipeline cache) and MESA25_DIR-shader-cache (Mesa's) are this driver's own, so a run
# never reuses kernels that the system's Mesa compiled, nor spoils its caches.
set -euo pipefail
build=$(cd "${1:?usage: run_on_mesa25.sh BUILD_DIR [ctest args...]}" && pwd)
shift
root=${MESA25_DIR:-/work/mesa25}
apt_dir=$root/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$root/debs"

cat > "$apt_dir/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-backports main
EOF
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")

# mesa-vulkan-drivers 25.0.7 needs libdrm >= 2.4.121; Debian 12 has 2.4.114, backports 2.4.123.
# Its other dependencies (libllvm15, libvulkan1, xcb, wayland) are the system's own versions.
packages=(mesa-vulkan-drivers libdrm2 libdrm-amdgpu1)
if ! ls "$root"/debs/mesa-vulkan-drivers_*.deb > /dev/null 2>&1; then
  apt-get "${apt_opts[@]}" update
  (cd "$root/debs" && apt-get "${apt_opts[@]}" download "${packages[@]/%//bookworm-backports}")
fi
rm -rf "$root/root"
for deb in "$root"/debs/*.deb; do dpkg -x "$deb" "$root/root"; done

libdir=$root/root/usr/lib/x86_64-linux-gnu
# The packaged manifest names the library alone, for the loader to find on the system's path; this
# copy names the unpacked one.
sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"$libdir/libvulkan_lvp.so\"|" \
  "$root/root/usr/share/vulkan/icd.d/lvp_icd.json" > "$root/lvp_icd.json"

export VK_ICD_FILENAMES=$root/lvp_icd.json
export VK_DRIVER_FILES=$root/lvp_icd.json
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MESA_SHADER_CACHE_DIR=$root-shader-cache
# ctest gives every test VKATTN_PIPELINE_CACHE from this cache variable; this driver gets its own
# file (a reconfigure only: no compile flag depends on it).
cmake -DVKATTN_TEST_PIPELINE_CACHE="$root-cache.bin" "$build" > /dev/null

"$build/vkattn" devices
if [ "$#" -eq 0 ]; then set -- -j1 --output-on-failure; fi
start=$(date +%s)
status=0
ctest --test-dir "$build" "$@" || status=$?
echo "ctest on Mesa 25: exit $status, $(( $(date +%s) - start )) s wall"
exit "$status"
