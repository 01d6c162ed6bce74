// The ops' rows as the build collects them (VKATTN_OP_ROW in runtime/src/ops): one per name, in
// name order, every catalog label distinct, tolerances for f32 and f16 alone, unknown names refused.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "vkattn/core/error.hpp"
#include "vkattn/ops/op_row.hpp"

namespace vkattn {
namespace {

TEST(OpRows, OnePerNameInNameOrderWithDistinctCatalogLabels) {
  const std::vector<OpRow>& rows = opRows();
  ASSERT_GE(rows.size(), 10u);
  std::set<std::string> labels;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(rows[i - 1].name, rows[i].name);
    }
    EXPECT_FALSE(rows[i].catalog.empty()) << rows[i].name << " names no shape to build its kernels at";
    for (const CatalogShape& shape : rows[i].catalog) {
      EXPECT_TRUE(labels.insert(shape.label).second) << "catalog label '" << shape.label << "' twice";
      EXPECT_TRUE(shape.build) << shape.label;
    }
    EXPECT_EQ(&opRow(rows[i].name), &rows[i]);
  }
}

TEST(OpRows, TolerancesAreStatedForF32AndF16Storage) {
  const OpRow& softmax = opRow("softmax");
  EXPECT_GT(softmax.toleranceFor(DType::F16).atol, softmax.toleranceFor(DType::F32).atol);
  EXPECT_GT(opRow("linear").toleranceFor(DType::F32).dotRtol, 0.0);  // products scale with sum |a b|
  EXPECT_EQ(opRow("argmax").toleranceFor(DType::F16).atol, 0.0);     // ids are exact
  EXPECT_THROW(softmax.toleranceFor(DType::BF16), Error);
}

TEST(OpRows, AnUnknownNameIsAnError) {
  try {
    opRow("no_such_op");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_op"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vkattn
