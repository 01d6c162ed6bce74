#!/usr/bin/env bash
# Installs everything vkattn needs from Debian 12's archive. Safe to run again.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev glslc glslang-tools spirv-tools
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libglfw3-dev libimgui-dev libstb-dev fonts-wqy-microhei xvfb xauth
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libpcre2-dev
  python3 python3-dev python3-venv pybind11-dev python3-numpy python3-pytest python3-torch python3-hypothesis
  clang clang-format-14 libclang-rt-14-dev libfuzzer-14-dev ccache
)
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
