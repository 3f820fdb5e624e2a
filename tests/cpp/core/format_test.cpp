#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/tensorinfo.hpp"
#include <gtest/gtest.h>

using namespace popart;

TEST(Format, ReplacesPlaceholdersInOrder) {
  EXPECT_EQ(formatMessage("a {} b {}", {1, "x"}), "a 1 b x");
  EXPECT_EQ(formatMessage("shape {}", {Shape{2, 3}}), "shape [2,3]");
  EXPECT_EQ(formatMessage("{{}} {}", {true}), "{} true");
}

TEST(Format, ErrorCarriesFormattedMessage) {
  try {
    throw error("Softmax axis {} out of range for input of rank {}", 4, 2);
  } catch (const error &e) {
    EXPECT_STREQ(e.what(), "Softmax axis 4 out of range for input of rank 2");
  }
}

TEST(TensorInfo, CountsAndNames) {
  TensorInfo t("FLOAT16", Shape{2, 3, 4});
  EXPECT_EQ(t.nelms(), 24);
  EXPECT_EQ(t.nbytes(), 48);
  EXPECT_EQ(t.data_type_lcase(), "float16");
  EXPECT_EQ(t.dim(-1), 4);
  EXPECT_THROW(t.dim(3), error);
  EXPECT_EQ(TensorInfo("INT32", "(2,5)").shape(), (Shape{2, 5}));
}

TEST(TensorInfo, OverflowingCountsAreErrors) {
  const int64_t big = int64_t(1) << 62;
  EXPECT_THROW(TensorInfo(DataType::FLOAT, Shape{big, 4}), error);        // elements wrap to 0
  EXPECT_THROW(TensorInfo(DataType::INT64, Shape{big / 2}), error);       // bytes overflow
  EXPECT_THROW(TensorInfo("FLOAT", "(99999999999999999999)"), error);     // dimension text too large
  EXPECT_EQ(TensorInfo(DataType::INT8, Shape{big / 2}).nbytes(), big / 2);
  EXPECT_EQ(TensorInfo(DataType::FLOAT, Shape{0, big, 4}).nelms(), 0);    // a zero dim anywhere is fine
}

TEST(TensorInfo, Broadcast) {
  EXPECT_EQ(npOut(Shape{2, 1, 4}, Shape{3, 1}), (Shape{2, 3, 4}));
  EXPECT_THROW(npOut(Shape{2, 3}, Shape{4}), error);
}

TEST(DataType, OnnxRoundTrip) {
  for (int i = 0; i <= static_cast<int>(lastDataType); ++i) {
    auto t = static_cast<DataType>(i);
    if (t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152) {
      EXPECT_THROW(onnxDataType(t), error);
      continue;
    }
    EXPECT_EQ(fromOnnxDataType(onnxDataType(t)), t);
  }
  EXPECT_THROW(dataTypeFromString("float128"), error);
}

TEST(Logging, LevelsParse) {
  EXPECT_EQ(logging::levelFromString("WARN"), logging::Level::Warn);
  EXPECT_EQ(logging::moduleFromString("ir"), logging::Module::ir);
  EXPECT_THROW(logging::moduleFromString("nope"), error);
  logging::setLogLevel(logging::Module::ir, logging::Level::Debug);
  EXPECT_TRUE(logging::shouldLog(logging::Module::ir, logging::Level::Info));
  EXPECT_FALSE(logging::shouldLog(logging::Module::ir, logging::Level::Trace));
}
