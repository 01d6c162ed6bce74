// `vkattn devices --pipelines [--json FILE]`: the driver's compiler statistics (registers, spills,
// shared memory, occupancy, instruction counts, as VK_KHR_pipeline_executable_properties reports
// them) of every kernel at the shapes its op's row names (vkattn/ops/op_row.hpp), and for each module the matrix
// instructions and packed 8-bit dot instructions in its ISA text (the proof that cooperative matrices reach the matrix
// units, and integer dot products the dot instructions). Runs nothing: the context is compile-only, so it works where
// kernels cannot execute (RADV's null device). Spills are marked and counted; judging them is for the budgets
// (tools/drivers/check_compiler_budgets.py) and tools/gpu/qualify_gpu.sh. In AMD's ISA it also counts the main loop's
// vector memory loads and the waits for all of them (isa_main_loop.hpp), which the budgets bound for the
// cooperative-matrix kernels.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "arguments.hpp"
#include "commands.hpp"
#include "isa_main_loop.hpp"
#include "vkattn/core/context.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/pipeline.hpp"
#include "vkattn/ops/op_row.hpp"

namespace vkattn::cli {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool isSpill(const std::string& name) {
  return lower(name).find("spill") != std::string::npos;
}

// Matrix-unit instructions in an ISA listing, by vendor: AMD RDNA3+ (WMMA, sparse SWMMAC), AMD
// CDNA (MFMA), NVIDIA SASS (HMMA, and Hopper's warpgroup MMA).
const std::regex kMatrixInstruction(R"(\b(v_wmma_|v_swmmac_|v_mfma_|HMMA|HGMMA|wgmma))");
// Packed 8-bit dot products (the integer-dot kernels' proof): AMD's v_dot4(c)_{i32_i8,i32_iu8,
// u32_u8}, NVIDIA's IDP.4A, Intel's dp4a.
const std::regex kDotInstruction(R"(\b(v_dot4c?_[iu]32_[iu]+8|IDP\.4A|dp4a))");

// The representation that is the machine code (RADV: "Assembly"; others: "Disassembly", "ISA").
bool isIsa(const std::string& name) {
  const std::string n = lower(name);
  return n.find("assembly") != std::string::npos || n.find("isa") != std::string::npos ||
         n.find("sass") != std::string::npos;
}

struct Module {
  std::vector<std::string> entries;  // the catalog entries that compiled it
  nlohmann::ordered_json statistics = nlohmann::ordered_json::object();
  std::optional<int> matrixInstructions;  // none where the driver gives no ISA text
  std::optional<int> dotInstructions;     // likewise
  std::optional<IsaMainLoop> mainLoop;    // none without AMD ISA text with a loop
  int spills = 0;
};

}  // namespace

int pipelinesCommand(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args, {"--json", "--isa"}, {});
  const std::optional<std::string> isaDir = a.get("--isa");  // each module's ISA text, one file each
  if (isaDir) std::filesystem::create_directories(*isaDir);
  if (!a.positional().empty()) throw InvalidArgument(a.positional()[0], "unexpected argument");
  setenv("VKATTN_PIPELINE_STATISTICS", "1", 1);
  // Compile-only, with the GPU kernels Auto picks on a GPU, and no pipeline cache (a pipeline
  // from the cache carries no statistics).
  Context ctx({.device = options.device,
               .profile = KernelProfile::Gpu,
               .pipelineCache = std::filesystem::path(),
               .compileOnly = true});
  const std::string driver = ctx.info().driverName + (ctx.info().driverInfo.empty() ? "" : " " + ctx.info().driverInfo);
  std::cout << "pipeline statistics on " << ctx.info().name << " (" << driver << ")\n";
  if (!ctx.device().capturesPipelineStatistics()) {
    std::cout << "  none: " << ctx.info().name
              << " does not offer VK_KHR_pipeline_executable_properties (pipelineExecutableInfo)\n";
    return 0;
  }
  std::map<std::string, Module> modules;  // by pipeline: module name and specialization
  std::map<const Pipeline*, std::string> keys;
  nlohmann::ordered_json notRun = nlohmann::ordered_json::array();
  for (const OpRow& row : opRows())
    for (const CatalogShape& entry : row.catalog) {
      try {
        entry.build(ctx);
      } catch (const Unsupported& e) {
        std::cout << "  " << entry.label << ": not on this device (" << e.what() << ")\n";
        notRun.push_back({{"entry", entry.label}, {"reason", e.what()}});
        continue;
      }
      // The pipelines this entry compiled: those not seen before.
      for (const Pipeline* pipeline : ctx.pipelines().all()) {
        if (keys.count(pipeline)) continue;
        const std::string key = pipeline->name() + " #" + std::to_string(keys.size());
        keys[pipeline] = key;
        Module& m = modules[key];
        m.entries.push_back(entry.label);
        for (const PipelineStatistic& s : pipelineStatistics(ctx.device(), *pipeline)) {
          m.statistics[s.name] = s.value;
          if (isSpill(s.name) && s.value > 0) ++m.spills;
        }
        for (const PipelineRepresentation& r : pipelineRepresentations(ctx.device(), *pipeline)) {
          if (!r.isText || !isIsa(r.name)) continue;
          if (isaDir) {
            std::string file = entry.label + ".s";
            for (char& c : file)
              if (c == ' ' || c == '/' || c == ':') c = '_';
            std::ofstream(std::filesystem::path(*isaDir) / file) << r.data;
          }
          const auto found = std::distance(std::sregex_iterator(r.data.begin(), r.data.end(), kMatrixInstruction),
                                           std::sregex_iterator());
          m.matrixInstructions = m.matrixInstructions.value_or(0) + static_cast<int>(found);
          const auto dots = std::distance(std::sregex_iterator(r.data.begin(), r.data.end(), kDotInstruction),
                                          std::sregex_iterator());
          m.dotInstructions = m.dotInstructions.value_or(0) + static_cast<int>(dots);
          if (!m.mainLoop) m.mainLoop = amdMainLoop(r.data);
        }
      }
    }

  int spills = 0;
  nlohmann::ordered_json report = {{"device", ctx.info().name},
                                   {"driver", driver},
                                   {"vendor", ctx.info().vendorId},
                                   {"modules", nlohmann::ordered_json::array()},
                                   {"not_run", notRun}};
  for (const auto& [key, m] : modules) {
    const std::string name = key.substr(0, key.find(" #"));
    std::cout << "  " << name << "  (" << m.entries.front() << ")\n   ";
    for (const auto& [stat, value] : m.statistics.items())
      if (lower(stat).find("hash") == std::string::npos)  // identifiers, not figures
        std::cout << " " << stat << " = " << value.dump() << ";";
    std::cout << " matrix instructions = "
              << (m.matrixInstructions ? std::to_string(*m.matrixInstructions) : std::string("no ISA text"))
              << "; packed dot instructions = "
              << (m.dotInstructions ? std::to_string(*m.dotInstructions) : std::string("no ISA text"))
              << (m.mainLoop ? "; main loop: " + std::to_string(m.mainLoop->memoryLoads) + " memory loads, " +
                                   std::to_string(m.mainLoop->fullMemoryWaits) + " full waits"
                             : std::string())
              << (m.spills ? "  SPILL" : "") << "\n";
    spills += m.spills;
    report["modules"].push_back(
        {{"module", name},
         {"entry", m.entries.front()},
         {"statistics", m.statistics},
         {"matrix_instructions",
          m.matrixInstructions ? nlohmann::ordered_json(*m.matrixInstructions) : nlohmann::ordered_json()},
         {"dot_instructions",
          m.dotInstructions ? nlohmann::ordered_json(*m.dotInstructions) : nlohmann::ordered_json()},
         {"main_loop", m.mainLoop ? nlohmann::ordered_json{{"lines", m.mainLoop->lines},
                                                           {"matrix_instructions", m.mainLoop->matrixInstructions},
                                                           {"memory_loads", m.mainLoop->memoryLoads},
                                                           {"full_memory_waits", m.mainLoop->fullMemoryWaits}}
                                  : nlohmann::ordered_json()}});
  }
  std::cout << modules.size() << " pipelines compiled";
  if (spills) std::cout << "; " << spills << " statistic(s) report spills: those kernels need fewer registers here";
  std::cout << "\n";
  if (auto path = a.get("--json")) {
    std::ofstream out(*path);
    if (!out) throw InvalidArgument("--json", "cannot write " + *path);
    out << report.dump(2) << "\n";
  }
  return 0;
}

}  // namespace vkattn::cli
