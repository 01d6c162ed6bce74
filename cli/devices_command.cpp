// `vkattn devices`: what each device offers that decides kernel variants.
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/device_parallelism.hpp"
#include "vkattn/core/device_selection.hpp"
#include "vkattn/ops/tile_rankings.hpp"

namespace vkattn::cli {

int devicesCommand(const CommonOptions& options) {
  auto devices = Context::listDevices();
  const std::size_t chosen = chooseDevice(devices, options.device ? options.device : deviceOverrideFromEnvironment());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    char vendor[16];
    std::snprintf(vendor, sizeof vendor, "0x%04x", d.vendorId);
    std::cout << (i == chosen ? "* " : "  ") << i << ": " << d.name << " (" << toString(d.kind) << ", vendor " << vendor
              << ", " << d.driverName << " " << d.driverInfo << ")\n"
              << "     Vulkan " << VK_API_VERSION_MAJOR(d.apiVersion) << "." << VK_API_VERSION_MINOR(d.apiVersion)
              << "." << VK_API_VERSION_PATCH(d.apiVersion) << ", kernel profile " << toString(d.defaultProfile())
              << "\n"
              << "     subgroup " << d.subgroupSize << " (" << d.minSubgroupSize << ".." << d.maxSubgroupSize
              << "), arithmetic " << (d.subgroupArithmetic ? "yes" : "no") << ", shuffle "
              << (d.subgroupShuffle ? "yes" : "no") << "\n"
              << "     shared memory " << d.maxSharedMemoryBytes / 1024
              << " KiB, workgroup <= " << d.maxWorkgroupInvocations
              << ", storage buffer <= " << d.maxStorageBufferRange / (1024 * 1024) << " MiB, push constants "
              << d.maxPushConstantsSize << " B\n"
              << "     fp16 arithmetic " << (d.shaderFloat16 ? "yes" : "no") << ", fp16 storage "
              << (d.storageBuffer16BitAccess ? "yes" : "no") << ", int8 " << (d.shaderInt8 ? "yes" : "no")
              << ", 8-bit dot products " << (d.integerDotProduct ? "yes" : "no")
              << " (in hardware: " << (d.int8DotAccelerated ? "yes" : "no") << ", mixed signedness "
              << (d.int8DotMixedSignednessAccelerated ? "yes" : "no") << ")\n     "
              << "timestamps " << (d.timestamps ? "yes (" + std::to_string(d.timestampValidBits) + " bits)" : "no")
              << "\n"
              << "     cooperative matrix: KHR " << (d.khrCooperativeMatrix ? "yes" : "no") << ", NV "
              << (d.nvCooperativeMatrix ? "yes" : "no") << "\n";
    for (const auto& s : d.cooperativeMatrixShapes)
      std::cout << "       " << toString(s.flavour) << " " << s.m << "x" << s.n << "x" << s.k << " " << s.aType << "*"
                << s.bType << "+" << s.cType << "->" << s.resultType << (s.subgroupScope ? "" : " (not subgroup scope)")
                << (s.saturating ? " saturating" : "") << "\n";
    if (d.nvCooperativeMatrix2) {
      const CooperativeMatrix2Features& f = d.cooperativeMatrix2;
      auto yes = [](bool b) { return b ? "yes" : "no"; };
      std::cout << "     cooperative matrix 2: flexible dimensions " << yes(f.flexibleDimensions)
                << " (<= " << d.flexibleMaxDimension << "), reductions " << yes(f.reductions) << ", conversions "
                << yes(f.conversions) << ", per-element operations " << yes(f.perElementOperations)
                << ", tensor addressing " << yes(f.tensorAddressing) << ", block loads " << yes(f.blockLoads)
                << ", workgroup scope " << yes(f.workgroupScope);
      if (f.workgroupScope)
        std::cout << " (workgroups <= " << d.workgroupScopeMaxWorkgroupSize << " invocations, "
                  << d.workgroupScopeReservedSharedMemory << " bytes of shared memory reserved)";
      std::cout << "\n";
      for (const auto& s : d.flexibleShapes)
        std::cout << "       flexible, granularity " << s.m << "x" << s.n << "x" << s.k << " " << s.aType << "*"
                  << s.bType << "+" << s.cType << "->" << s.resultType
                  << (s.subgroupScope ? "" : " (not subgroup scope)") << (s.saturating ? " saturating" : "") << "\n";
    }
    // Kernels report NaN inputs from NaN results; without NaN preservation a driver may drop them.
    std::cout << "     NaN/Inf preserved in shaders: f32 " << (d.nanPreserveFloat32 ? "yes" : "no") << ", f16 "
              << (d.nanPreserveFloat16 ? "yes" : "no") << (d.portabilitySubset ? "; portability subset" : "") << "\n";
    // The kernels vkattn picks by default (VKATTN_ATTENTION_VARIANT / VKATTN_MATMUL_VARIANT override).
    const bool cpu = d.defaultProfile() == KernelProfile::CpuDriver;
    if (cpu)
      std::cout << "     kernels: attention rows, matmul rows (CPU driver: on lavapipe the rows kernels measured "
                   "faster than the tiled and cooperative-matrix ones)\n";
    else if (d.cooperativeMatrixF16)
      std::cout << "     kernels: attention coopmat for f16 (head dims 16..256 in steps of 8, dense K/V), tiled "
                   "otherwise, rows when decoding; matmul coopmat for f16, tiled otherwise (GPU with matrix "
                   "units)\n";
    else
      std::cout << "     kernels: attention tiled (rows when decoding), matmul tiled (GPU without usable matrix "
                   "units)\n";
    // Decode sizing: split-K fills busyWorkgroups; the lane split needs a known subgroup size.
    const LaneSplitSubgroup lanes = laneSplitSubgroup(d);
    std::cout << "     compute units " << computeUnitsFor(d) << " (" << computeUnitsSource(d)
              << "); decode: split-K to " << busyWorkgroups(d) << " workgroups, >= " << minKeysPerSplit(d)
              << " keys per split, ";
    if (lanes.size)
      std::cout << "lanes split keys in subgroups of " << lanes.size << (lanes.required ? " (required)" : "") << "\n";
    else
      std::cout << "one lane per row (no fixed subgroup size)\n";
    const CoopmatChoice choice = coopmatChoiceFor(d);
    std::cout << "     cooperative-matrix kernels: " << describe(choice);
    if (choice.flavour != CoopmatFlavour::None)
      std::cout << " (modules " << coopmatShader("attention_coopmat", choice.flavour) << "_f16, "
                << coopmatShader("matmul_coopmat", choice.flavour) << "_f16)";
    if (choice.flavour != CoopmatFlavour::None && !cpu)
      for (const char* kernel : {"attention coopmat", "linear coopmat"})
        std::cout << "\n     " << kernel << " tiles: " << describeTileRanking(d.vendorId, kernel);
    std::cout << "\n     cooperative-matrix-2 attention: " << describe(coopmat2ChoiceFor(d)) << "\n";
    std::cout << "     cooperative-matrix-2 attention, workgroup scope: " << describe(coopmat2WorkgroupChoiceFor(d))
              << "\n";
    if (d.loopIterationLimit) std::cout << "     loop iterations per invocation <= " << d.loopIterationLimit << "\n";
  }
  std::cout << "(* = the device vkattn uses; override with --device or VKATTN_DEVICE)\n";
  return 0;
}

}  // namespace vkattn::cli
