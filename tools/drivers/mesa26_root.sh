#!/usr/bin/env bash
# Builds (once per machine) a Debian sid root holding Mesa 26's lavapipe, which executes
# VK_KHR_cooperative_matrix and VK_NV_cooperative_matrix2 on the CPU, with the glslc, glslang,
# SPIRV-Tools and validation layers of the same vintage. Debian packages only: debootstrap, then
# apt inside. Prints the root's path. MESA26_ROOT overrides where it lives (default
# /var/cache/vkattn/sid-root); a root that finished building is reused as it is.
set -euo pipefail
root=${MESA26_ROOT:-/var/cache/vkattn/sid-root}
packages=(mesa-vulkan-drivers libvulkan1 vulkan-validationlayers vulkan-tools glslc glslang-tools spirv-tools
          libstdc++6 libgcc-s1 zlib1g)
if [ -f "$root/.vkattn-ready" ]; then
  echo "$root"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "mesa26_root.sh: debootstrap and chroot need root" >&2; exit 1; }
# A half-built root is removed before it is built again, but never while something is mounted in
# it (tools/drivers/run_on_mesa26.sh binds the repository there): rm would reach through the mount.
if grep -q " $(realpath -m "$root")/" /proc/mounts; then
  echo "mesa26_root.sh: $root has mounts inside it; unmount them first" >&2
  exit 1
fi
command -v debootstrap > /dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null
}
# The archive this machine's apt already uses (sid lives in the same Debian archive).
mirror=$(grep -rhoE '^(URIs:|deb) *https?://[^ ]*/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ \
           2>/dev/null | grep -oE 'https?://[^ ]*' | head -n1 || true)
[ -n "$mirror" ] || { echo "mesa26_root.sh: no Debian archive found in this machine's apt sources" >&2; exit 1; }
rm -rf --one-file-system "$root"
mkdir -p "$(dirname "$root")"
debootstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" sid "$root" "$mirror" >&2
touch "$root/.vkattn-ready"
echo "$root"
