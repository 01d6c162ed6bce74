# Sourced: points this shell's Vulkan loader at Mesa 25's lavapipe from bookworm-backports without
# installing it (MESA25_DRIVER=radv: at its AMD driver instead, for RADV's null device, which
# compiles with AMD's ACO compiler where no AMD GPU is present; RADV_FORCE_FAMILY picks the chip). The packages are downloaded with a private apt configuration (the system's sources
# and its Mesa stay as they are) and unpacked with dpkg -x into MESA25_DIR (default /work/mesa25);
# only the environment of the shell that sources this changes.
mesa25_root=${MESA25_DIR:-/work/mesa25}
mesa25_apt=$mesa25_root/apt
mkdir -p "$mesa25_apt/lists/partial" "$mesa25_apt/cache/archives/partial" "$mesa25_root/debs"

cat > "$mesa25_apt/sources.list" <<'LIST'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-backports main
LIST
mesa25_apt_opts=(-o "Dir::Etc::SourceList=$mesa25_apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
                 -o "Dir::State::Lists=$mesa25_apt/lists" -o "Dir::Cache=$mesa25_apt/cache"
                 -o "APT::Sandbox::User=root")

# mesa-vulkan-drivers 25.0.7 needs libdrm >= 2.4.121; Debian 12 has 2.4.114, backports 2.4.123.
# Its other dependencies (libllvm15, libvulkan1, xcb, wayland) are the system's own versions.
mesa25_packages=(mesa-vulkan-drivers libdrm2 libdrm-amdgpu1)
if ! ls "$mesa25_root"/debs/mesa-vulkan-drivers_*.deb > /dev/null 2>&1; then
  apt-get "${mesa25_apt_opts[@]}" update
  (cd "$mesa25_root/debs" && apt-get "${mesa25_apt_opts[@]}" download "${mesa25_packages[@]/%//bookworm-backports}")
fi
if [ ! -f "$mesa25_root/lvp_icd.json" ] || [ ! -f "$mesa25_root/radeon_icd.json" ]; then
  rm -rf "$mesa25_root/root"
  for deb in "$mesa25_root"/debs/*.deb; do dpkg -x "$deb" "$mesa25_root/root"; done
  # The packaged manifests name the library alone, for the loader to find on the system's path;
  # these copies name the unpacked one.
  for icd in lvp:lvp radeon:radeon; do
    sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"$mesa25_root/root/usr/lib/x86_64-linux-gnu/libvulkan_${icd#*:}.so\"|" \
      "$mesa25_root/root/usr/share/vulkan/icd.d/${icd%:*}_icd.json" > "$mesa25_root/${icd%:*}_icd.json"
  done
fi

mesa25_icd=$mesa25_root/$([ "${MESA25_DRIVER:-lavapipe}" = radv ] && echo radeon || echo lvp)_icd.json
export VK_ICD_FILENAMES=$mesa25_icd
export VK_DRIVER_FILES=$mesa25_icd
export LD_LIBRARY_PATH=$mesa25_root/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
