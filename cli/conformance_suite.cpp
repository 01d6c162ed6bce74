// vkattn-conformance, which `vkattn conformance` runs: the shader conformance suite (the same
// cases as the tests) on the chosen device, with a progress bar and a per-kernel table of cases,
// passes and the worst error as a fraction of the tolerance. Exit status 1 if any case fails.
#include "conformance_suite.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "arguments.hpp"
#include "exhaustive_tier.hpp"
#include "vkattn/conformance/case_record.hpp"
#include "vkattn/conformance/shared_context.hpp"
#include "vkattn/core/coopmat_selection.hpp"
#include "vkattn/core/error.hpp"
#include "vkattn/core/fragment_layout.hpp"

namespace vkattn::cli {
namespace {

struct KernelRow {
  int cases = 0, passed = 0, skipped = 0;  // a skipped case is neither passed nor failed
  double maxAbs = 0.0, worstRatio = 0.0;
  std::vector<std::string> failures;
  std::vector<std::pair<std::string, std::string>> skips;  // case, why (the device lacks the kernel, say)
  int failed() const noexcept { return cases - passed - skipped; }
};

// Kernel name from the case's source file: tests/test_softmax.cpp -> softmax; a case whose
// parameter name starts with "kernel_" adds that kernel: Attention.OddLengths/kernel_coopmat_emulated
// -> attention_coopmat_emulated (a "__" ends the kernel part of the name).
std::string kernelOf(const ::testing::TestInfo& info) {
  std::string stem = std::filesystem::path(info.file()).stem().string();
  if (stem.rfind("test_", 0) == 0) stem = stem.substr(5);
  const std::string name = info.name();
  const std::size_t at = name.find("/kernel_");
  if (at == std::string::npos) return stem;
  const std::string kernel = name.substr(at + 8);
  return stem + "_" + kernel.substr(0, kernel.find("__"));
}

// GoogleTest's glob: '*' any run of characters, '?' one.
bool globMatches(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern.front() == '*')
    return globMatches(pattern.substr(1), text) || (!text.empty() && globMatches(pattern, text.substr(1)));
  return !text.empty() && (pattern.front() == '?' || pattern.front() == text.front()) &&
         globMatches(pattern.substr(1), text.substr(1));
}

// The cases of the exhaustive tier (kExhaustiveTier: each test program's patterns, applied to its
// own cases), as a ':'-joined list of full names for a negative filter.
std::string exhaustiveCases() {
  std::string names;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(t);
      const std::string program = std::filesystem::path(info.file()).stem().string();
      const std::string full = std::string(info.test_suite_name()) + "." + info.name();
      const auto exhaustive = [&] {
        for (const auto& [name, patterns] : kExhaustiveTier)
          if (name == program)
            for (std::string_view pattern : patterns)
              if (globMatches(pattern, full)) return true;
        return false;
      };
      if (exhaustive()) names += (names.empty() ? "" : ":") + full;
    }
  }
  return names;
}

class TableListener : public ::testing::EmptyTestEventListener {
 public:
  // The filter is applied when the run starts, so the count is read then.
  void OnTestIterationStart(const ::testing::UnitTest& unit, int) override { m_total = unit.test_to_run_count(); }

  void OnTestStart(const ::testing::TestInfo& info) override {
    conformance::takeCaseRecord();
    m_current = &info;
    m_skipReason.clear();
  }

  // A failed check's message, as it happens (the table below names the case). GoogleTest holds
  // its own lock here, so the case comes from OnTestStart, not from UnitTest::current_test_info().
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.skipped()) m_skipReason = result.message();
    if (!result.failed()) return;
    std::fprintf(stderr, "%sFAILED %s.%s (%s:%d):\n%s\n", isatty(fileno(stderr)) ? "\n" : "",
                 m_current ? m_current->test_suite_name() : "?", m_current ? m_current->name() : "?",
                 result.file_name() ? result.file_name() : "?", result.line_number(), result.message());
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const conformance::CaseRecord record = conformance::takeCaseRecord();
    const std::string kernel = kernelOf(info);
    KernelRow& row = m_rows[kernel];
    ++row.cases;
    const std::string name = std::string(info.test_suite_name()) + "." + info.name();
    if (info.result()->Skipped()) {
      ++row.skipped;
      row.skips.emplace_back(name, m_skipReason);
    } else if (info.result()->Passed()) {
      ++row.passed;
    } else {
      row.failures.push_back(name);
    }
    row.maxAbs = std::max(row.maxAbs, record.maxAbs);
    row.worstRatio = std::max(row.worstRatio, record.worstRatio);
    ++m_done;
    const double seconds = static_cast<double>(info.result()->elapsed_time()) / 1000.0;
    const auto elapsed = static_cast<int>(std::difftime(std::time(nullptr), m_start));
    if (isatty(fileno(stderr))) {  // a progress bar on a terminal
      const int width = 30, filled = m_total ? width * m_done / m_total : width;
      std::fprintf(stderr, "\r[%s%s] %d/%d %d:%02d %-24.24s", std::string(filled, '#').c_str(),
                   std::string(width - filled, ' ').c_str(), m_done, m_total, elapsed / 60, elapsed % 60,
                   kernel.c_str());
    } else if (kernel != m_lastKernel || seconds >= kSlowCaseSeconds || m_done == m_total) {
      // Elsewhere (a log file) a line whenever the kernel changes, and for each slow case.
      std::fprintf(stderr, "[%d/%d %d:%02d] %s", m_done, m_total, elapsed / 60, elapsed % 60, kernel.c_str());
      if (seconds >= kSlowCaseSeconds)
        std::fprintf(stderr, " (%s.%s took %.1f s)", info.test_suite_name(), info.name(), seconds);
      std::fprintf(stderr, "\n");
    }
    m_lastKernel = kernel;
    std::fflush(stderr);
  }

  const std::map<std::string, KernelRow>& rows() const { return m_rows; }

 private:
  static constexpr double kSlowCaseSeconds = 10.0;
  int m_total = 0;
  int m_done = 0;
  std::time_t m_start = std::time(nullptr);
  std::string m_lastKernel;
  const ::testing::TestInfo* m_current = nullptr;
  std::string m_skipReason;
  std::map<std::string, KernelRow> m_rows;
};

void writeJson(const std::string& path, const std::string& device, const std::string& coopmat,
               const std::string& fragmentSoftmax, const std::string& coopmat2,
               const std::map<std::string, KernelRow>& rows) {
  std::ofstream out(path);
  if (!out) throw InvalidArgument("--json", "cannot write " + path);
  nlohmann::ordered_json report = {{"device", device},
                                   {"cooperative_matrix", coopmat},
                                   {"fragment_softmax", fragmentSoftmax},
                                   {"cooperative_matrix_2", coopmat2},
                                   {"kernels", nlohmann::ordered_json::array()}};
  for (const auto& [name, r] : rows) {
    nlohmann::ordered_json skips = nlohmann::ordered_json::array();
    for (const auto& [which, why] : r.skips) skips.push_back({{"case", which}, {"why", why}});
    report["kernels"].push_back({{"kernel", name},
                                 {"cases", r.cases},
                                 {"passed", r.passed},
                                 {"skipped", r.skipped},
                                 {"failed", r.failed()},
                                 {"max_abs_error", r.maxAbs},
                                 {"worst_error_over_tolerance", r.worstRatio},
                                 {"failures", r.failures},
                                 {"skips", skips}});
  }
  out << report.dump(2) << "\n";
}

}  // namespace

int runConformanceSuite(const CommonOptions& options, const std::vector<std::string>& args) {
  Arguments a(args, {"--json", "--filter"}, {"--quick", "--full", "--validation", "--list", "--verbose"});
  if (a.has("--quick") && a.has("--full")) throw InvalidArgument("--quick", "cannot be combined with --full");
  if (!a.positional().empty()) throw InvalidArgument(a.positional()[0], "unexpected argument");
  if (options.device) setenv("VKATTN_DEVICE", options.device->c_str(), 1);
  // Validation needs the Khronos layer, which a user's machine may lack: opt in with --validation.
  setenv("VKATTN_VALIDATION", a.has("--validation") ? "1" : "0", 1);

  std::vector<std::string> gtestArgs = {"vkattn-conformance", "--gtest_brief=1"};
  // Validation.* checks the test harness itself with a deliberately invalid call, so it is no
  // conformance case; --quick leaves out the exhaustive tier's cases (tests/CMakeLists.txt) and
  // those that run very long key ranges or rows.
  std::string excluded = "Validation.*";
  if (a.has("--quick")) excluded += ":*Million*:*LongKeyRange*:*KeysPast*:*SplitsKeyRanges*";
  std::vector<char*> argv;
  for (auto& s : gtestArgs) argv.push_back(s.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);                        // argv[argc] is null, as GoogleTest's flag parser expects
  ::testing::InitGoogleTest(&argc, argv.data());  // registers the parameterized cases too
  if (a.has("--quick"))
    if (const std::string slow = exhaustiveCases(); !slow.empty()) excluded += ":" + slow;
  // --filter: GoogleTest's positive patterns (e.g. '*kernel_coopmat*'); the exclusions still apply.
  ::testing::GTEST_FLAG(filter) = a.get("--filter").value_or("*") + "-" + excluded;
  ::testing::GTEST_FLAG(print_time) = false;
  if (a.has("--list")) {  // the cases the other flags select, in the order they run; nothing runs
    ::testing::GTEST_FLAG(list_tests) = true;
    return RUN_ALL_TESTS();
  }

  const DeviceInfo& info = conformance::sharedContext().info();
  const std::string device = info.name;
  // Which cooperative-matrix code the kernel_coopmat rows execute here, if any.
  const CoopmatChoice choice = coopmatChoiceFor(info);
  const std::string coopmat = describe(choice);
  // Where the KHR module's softmax keeps S and P (the device's accumulator layout decides).
  const std::string fragmentSoftmax = choice.flavour == CoopmatFlavour::Khr
                                          ? describe(fragmentLayoutFor(conformance::sharedContext(), choice))
                                          : "not applicable";
  // And what the kernel_coopmat2 rows execute on.
  const std::string coopmat2 = describe(coopmat2ChoiceFor(info));
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());  // the table replaces gtest's output
  auto* table = new TableListener();
  listeners.Append(table);
  // The cases' own diagnostics (worst errors, counts) go to stdout: kept for --verbose, else
  // dropped while they run, so that the table is what a reader sees.
  std::fflush(stdout);
  const int savedStdout = a.has("--verbose") ? -1 : dup(STDOUT_FILENO);
  if (savedStdout >= 0) {
    const int devNull = open("/dev/null", O_WRONLY);
    if (devNull >= 0) {
      dup2(devNull, STDOUT_FILENO);
      close(devNull);
    }
  }
  const int status = RUN_ALL_TESTS();
  std::cout.flush();
  std::fflush(stdout);
  if (savedStdout >= 0) {
    dup2(savedStdout, STDOUT_FILENO);
    close(savedStdout);
  }
  if (isatty(fileno(stderr))) std::fprintf(stderr, "\n");
  if (table->rows().empty()) {
    std::fprintf(stderr, "vkattn: no conformance case matches --filter '%s' (vkattn conformance --list names them)\n",
                 a.get("--filter").value_or("*").c_str());
    return 2;
  }

  std::printf("vkattn conformance on %s (%s); cooperative matrices: %s (softmax: %s); cooperative matrix 2: %s\n\n",
              device.c_str(), a.has("--quick") ? "quick" : "full", coopmat.c_str(), fragmentSoftmax.c_str(),
              coopmat2.c_str());
  // worst err / tol: the largest |got - ref| / (atol + rtol |ref|) over every compared element;
  // a case passes while it stays <= 1.
  std::printf("%-36s %6s %7s %8s %7s %16s\n", "kernel", "cases", "passed", "skipped", "failed", "worst err / tol");
  int passed = 0, skipped = 0, failed = 0;
  for (const auto& [name, r] : table->rows()) {
    std::printf("%-36s %6d %7d %8d %7d %16.3f\n", name.c_str(), r.cases, r.passed, r.skipped, r.failed(), r.worstRatio);
    passed += r.passed;
    skipped += r.skipped;
    failed += r.failed();
  }
  for (const auto& [name, r] : table->rows())
    for (const auto& f : r.failures) std::printf("FAILED %s: %s\n", name.c_str(), f.c_str());
  if (a.has("--verbose"))
    for (const auto& [name, r] : table->rows())
      for (const auto& [which, why] : r.skips)
        std::printf("skipped %s: %s: %s\n", name.c_str(), which.c_str(), why.c_str());
  std::printf("\n%d passed, %d skipped%s, %d failed\n", passed, skipped,
              skipped && !a.has("--verbose") ? " (--verbose says why)" : "", failed);
  if (auto path = a.get("--json")) writeJson(*path, device, coopmat, fragmentSoftmax, coopmat2, table->rows());
  return status == 0 && failed == 0 ? 0 : 1;
}

}  // namespace vkattn::cli
