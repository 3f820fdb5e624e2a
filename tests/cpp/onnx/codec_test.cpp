// ONNX wire codec: hand-built round trips, packed/unpacked and presence rules,
// unknown-field preservation, external data, and malformed/fuzzed input that
// must give popart::error (never a crash or another exception).
#include "onnx/model.hpp"
#include "popart/error.hpp"
#include <gtest/gtest.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

namespace popart::onnxpb {
namespace {

std::string bytesOf(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(static_cast<char>(b));
  return s;
}

std::string lenField(int tag, const std::string &payload) {
  std::string s(1, static_cast<char>(tag));
  size_t n = payload.size();
  for (; n >= 0x80; n >>= 7) s.push_back(static_cast<char>((n & 0x7f) | 0x80));
  s.push_back(static_cast<char>(n));
  return s + payload;
}

Attribute intAttr(const std::string &name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::Int;
  a.i = v;
  a.hasI = true;
  return a;
}

Tensor sampleTensor() {
  Tensor t;
  t.name = "w";
  t.dims = {2, 3, -1};
  t.dataType = 1;
  t.floatData = {1.5f, -2.f, 0.f};
  t.int32Data = {-1, 7, INT32_MIN, INT32_MAX};
  t.int64Data = {INT64_MIN, 0, 300};
  t.stringData = {"a", "", std::string("\0b", 2)};
  t.doubleData = {3.25, -1e300};
  t.uint64Data = {UINT64_MAX, 1};
  t.hasRawData = true;
  t.rawData = std::string("\x00\x01\xff", 3);
  t.docString = "doc";
  t.metadataProps = {{"k", "v"}};
  return t;
}

ValueInfo valueInfo(const std::string &name) {
  ValueInfo v;
  v.name = name;
  v.hasType = true;
  v.type.hasTensorType = true;
  v.type.elemType = 1;
  v.type.hasShape = true;
  Dimension d0, d1, d2;
  d0.hasValue = true;  // dim_value 0 must keep its presence
  d1.param = "batch";
  d2.hasValue = true;
  d2.value = 7;
  v.type.dims = {d0, d1, d2};
  return v;
}

Graph smallGraph(const std::string &name) {
  Graph g;
  g.name = name;
  Node n;
  n.input = {"x", ""};
  n.output = {"y"};
  n.opType = "Identity";
  g.node.push_back(n);
  g.input.push_back(valueInfo("x"));
  g.output.push_back(valueInfo("y"));
  return g;
}

Node richNode() {
  Node n;
  n.input = {"x", "w"};
  n.output = {"y"};
  n.name = "n0";
  n.opType = "Custom";
  n.domain = "ai.graphcore";
  n.overload = "o";
  n.attribute.push_back(intAttr("zero", 0));
  n.attribute.push_back(intAttr("neg", -5));
  Attribute f;
  f.name = "f";
  f.type = Attribute::Type::Float;
  f.hasF = true;  // f == 0 with presence
  n.attribute.push_back(f);
  Attribute lists;
  lists.name = "lists";
  lists.floats = {1.f, -0.5f};
  lists.ints = {-1, 0, 1LL << 40};
  lists.strings = {"p", "q"};
  lists.tensors = {sampleTensor()};
  lists.graphs = {std::make_shared<Graph>(smallGraph("g1")), std::make_shared<Graph>()};
  n.attribute.push_back(lists);
  Attribute sub;
  sub.name = "body";
  sub.type = Attribute::Type::Graph;
  sub.hasG = true;
  sub.g = std::make_shared<Graph>(smallGraph("body"));
  sub.g->node[0].attribute.push_back(intAttr("inner", -3));
  n.attribute.push_back(sub);
  Attribute t;
  t.name = "value";
  t.hasT = true;
  t.t = sampleTensor();
  t.hasS = true;  // empty s with presence
  t.refAttrName = "ref";
  t.docString = "attr doc";
  n.attribute.push_back(t);
  n.metadataProps = {{"a", "b"}};
  return n;
}

Model richModel() {
  Model m;
  m.irVersion = 10;
  m.opsetImport = {{"", 11, {}}, {"ai.graphcore", 1, {}}};
  m.producerName = "test";
  m.producerVersion = "1";
  m.domain = "d";
  m.modelVersion = -2;
  m.docString = "model doc";
  m.hasGraph = true;
  m.graph = smallGraph("main");
  m.graph.node.push_back(richNode());
  m.graph.initializer.push_back(sampleTensor());
  m.graph.valueInfo.push_back(valueInfo("v"));
  m.graph.docString = "graph doc";
  m.metadataProps = {{"author", ""}};
  return m;
}

void expectSameTensor(const Tensor &a, const Tensor &b) {
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.dataType, b.dataType);
  EXPECT_EQ(a.floatData, b.floatData);
  EXPECT_EQ(a.int32Data, b.int32Data);
  EXPECT_EQ(a.int64Data, b.int64Data);
  EXPECT_EQ(a.stringData, b.stringData);
  EXPECT_EQ(a.doubleData, b.doubleData);
  EXPECT_EQ(a.uint64Data, b.uint64Data);
  EXPECT_EQ(a.hasRawData, b.hasRawData);
  EXPECT_EQ(a.rawData, b.rawData);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.docString, b.docString);
}

TEST(CodecTest, HandBuiltModelRoundTrips) {
  Model m = richModel();
  std::string bytes = serializeModel(m);
  Model p = parseModel(bytes);
  EXPECT_EQ(serializeModel(p), bytes);
  EXPECT_EQ(p.irVersion, 10);
  EXPECT_EQ(p.modelVersion, -2);
  ASSERT_EQ(p.opsetImport.size(), 2u);
  EXPECT_EQ(p.opsetImport[1].domain, "ai.graphcore");
  ASSERT_EQ(p.graph.node.size(), 2u);
  const Node &n = p.graph.node[1];
  EXPECT_EQ(n.domain, "ai.graphcore");
  EXPECT_EQ(n.overload, "o");
  ASSERT_EQ(n.attribute.size(), 6u);
  EXPECT_TRUE(n.attribute[0].hasI);
  EXPECT_EQ(n.attribute[0].i, 0);
  EXPECT_EQ(n.attribute[1].i, -5);
  EXPECT_TRUE(n.attribute[2].hasF);
  EXPECT_FALSE(n.attribute[2].hasI);
  EXPECT_EQ(n.attribute[3].ints, (std::vector<int64_t>{-1, 0, 1LL << 40}));
  EXPECT_EQ(n.attribute[3].floats, (std::vector<float>{1.f, -0.5f}));
  ASSERT_EQ(n.attribute[3].graphs.size(), 2u);
  EXPECT_EQ(n.attribute[3].graphs[0]->name, "g1");
  ASSERT_TRUE(n.attribute[4].g);
  EXPECT_EQ(n.attribute[4].g->node[0].attribute[0].i, -3);
  EXPECT_TRUE(n.attribute[5].hasS);
  EXPECT_EQ(n.attribute[5].refAttrName, "ref");
  expectSameTensor(n.attribute[5].t, sampleTensor());
  expectSameTensor(p.graph.initializer[0], sampleTensor());
  const auto &dims = p.graph.input[0].type.dims;
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_TRUE(dims[0].hasValue);
  EXPECT_EQ(dims[0].value, 0);
  EXPECT_FALSE(dims[1].hasValue);
  EXPECT_EQ(dims[1].param, "batch");
  EXPECT_EQ(dims[2].value, 7);
  ASSERT_EQ(p.metadataProps.size(), 1u);
  EXPECT_EQ(p.metadataProps[0].key, "author");
}

TEST(CodecTest, TensorRoundTrips) {
  Tensor t = sampleTensor();
  std::string bytes = serializeTensor(t);
  expectSameTensor(parseTensor(bytes), t);
  EXPECT_EQ(serializeTensor(parseTensor(bytes)), bytes);
}

TEST(CodecTest, PackedAndUnpackedRepeatedFieldsAgree) {
  // dims 3,300 unpacked (field 1, varint) then packed; float_data unpacked (fixed32) and packed.
  std::string unpacked = bytesOf({0x08, 0x03, 0x08, 0xac, 0x02, 0x25, 0x00, 0x00, 0x80, 0x3f,
                                  0x25, 0x00, 0x00, 0x00, 0x40});
  std::string packed = bytesOf({0x0a, 0x03, 0x03, 0xac, 0x02, 0x22, 0x08, 0x00, 0x00, 0x80,
                                0x3f, 0x00, 0x00, 0x00, 0x40});
  Tensor a = parseTensor(unpacked), b = parseTensor(packed);
  EXPECT_EQ(a.dims, (std::vector<int64_t>{3, 300}));
  EXPECT_EQ(a.floatData, (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.floatData, b.floatData);
  EXPECT_EQ(serializeTensor(a), packed);  // always written packed
  // Mixed: one unpacked element followed by a packed run appends.
  Tensor c = parseTensor(bytesOf({0x08, 0x01, 0x0a, 0x02, 0x02, 0x03}));
  EXPECT_EQ(c.dims, (std::vector<int64_t>{1, 2, 3}));
  // double_data unpacked fixed64
  Tensor d = parseTensor(bytesOf({0x51, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  EXPECT_EQ(d.doubleData, (std::vector<double>{1.0}));
}

TEST(CodecTest, NegativeInt32IsATenByteVarint) {
  Tensor t;
  t.int32Data = {-1};
  EXPECT_EQ(serializeTensor(t), bytesOf({0x2a, 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0x01}));
  Tensor u;
  u.dataType = -2;
  std::string bytes = serializeTensor(u);
  EXPECT_EQ(bytes.size(), 11u);
  EXPECT_EQ(parseTensor(bytes).dataType, -2);
}

TEST(CodecTest, ExplicitDefaultsKeepTheirPresence) {
  // NodeProto{op_type: "Relu", domain: ""}: the empty domain must be re-emitted.
  std::string node = bytesOf({0x22, 0x04, 'R', 'e', 'l', 'u', 0x3a, 0x00});
  std::string graph = bytesOf({0x0a, static_cast<int>(node.size())}) + node;
  std::string model = bytesOf({0x08, 0x00, 0x3a, static_cast<int>(graph.size())}) + graph;
  Model m = parseModel(model);
  EXPECT_EQ(serializeModel(m), model);
  // Once the user sets a value, the marker is replaced, not duplicated.
  m.graph.node[0].domain = "ai.onnx";
  m.irVersion = 7;
  Model again = parseModel(serializeModel(m));
  EXPECT_EQ(again.graph.node[0].domain, "ai.onnx");
  EXPECT_EQ(again.irVersion, 7);
  EXPECT_EQ(serializeModel(again), serializeModel(m));
}

TEST(CodecTest, UnknownFieldsArePreserved) {
  std::string segment = bytesOf({0x1a, 0x04, 0x08, 0x01, 0x10, 0x02});   // TensorProto.segment
  std::string tensor = bytesOf({0x42, 0x01, 't'}) + segment;
  std::string seqType = bytesOf({0x22, 0x02, 0x0a, 0x00});               // TypeProto.sequence_type
  std::string vi = bytesOf({0x0a, 0x01, 's', 0x12, static_cast<int>(seqType.size())}) + seqType;
  std::string sparse = bytesOf({0x7a, 0x00});                             // GraphProto.sparse_initializer
  std::string graph = bytesOf({0x2a, static_cast<int>(tensor.size())}) + tensor +
                      bytesOf({0x5a, static_cast<int>(vi.size())}) + vi + sparse;
  std::string functions = bytesOf({0xca, 0x01, 0x02, 0x22, 0x00});       // ModelProto.functions
  std::string model = bytesOf({0x3a, static_cast<int>(graph.size())}) + graph + functions;
  Model m = parseModel(model);
  EXPECT_EQ(m.graph.initializer[0].unknown, segment);
  EXPECT_EQ(m.graph.input[0].type.unknown, seqType);
  EXPECT_FALSE(m.graph.input[0].type.hasTensorType);
  EXPECT_EQ(m.graph.unknown, sparse);
  EXPECT_EQ(m.unknown, functions);
  Model again = parseModel(serializeModel(m));
  EXPECT_EQ(again.graph.initializer[0].unknown, segment);
  EXPECT_EQ(again.graph.input[0].type.unknown, seqType);
  EXPECT_EQ(again.unknown, functions);
  EXPECT_EQ(serializeModel(again), serializeModel(m));
}

void expectMalformed(const std::string &bytes, const std::string &needle = "") {
  try {
    parseModel(bytes);
    ADD_FAILURE() << "expected popart::error for " << bytes.size() << " bytes";
  } catch (const popart::error &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("malformed ONNX model"), std::string::npos) << what;
    EXPECT_NE(what.find("byte offset"), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(CodecTest, MalformedInputThrows) {
  expectMalformed(bytesOf({0x08, 0x80}), "truncated varint");
  expectMalformed(bytesOf({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}),
                  "longer than 10 bytes");
  expectMalformed(bytesOf({0x3a, 0x05, 'a', 'b'}), "exceeds");
  expectMalformed(bytesOf({0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}), "exceeds");
  expectMalformed(bytesOf({0x0a, 0x00}), "wire type");               // ir_version as bytes
  expectMalformed(bytesOf({0x10, 0x01}), "wire type");               // producer_name as varint
  expectMalformed(bytesOf({0x0e}), "invalid wire type 6");
  expectMalformed(bytesOf({0x0f}), "invalid wire type 7");
  expectMalformed(bytesOf({0x0b, 0x0c}), "group");
  expectMalformed(bytesOf({0x00, 0x00}), "field number");
  expectMalformed(bytesOf({0x3a, 0x01, 0x2a}), "truncated varint at byte offset 3");  // nested
  // float_data packed with a length that is not a multiple of 4, inside graph.initializer
  std::string tensor = bytesOf({0x22, 0x03, 1, 2, 3});
  std::string graph = bytesOf({0x2a, static_cast<int>(tensor.size())}) + tensor;
  expectMalformed(bytesOf({0x3a, static_cast<int>(graph.size())}) + graph, "multiple of 4");
  EXPECT_THROW(parseTensor(bytesOf({0x09})), popart::error);
  // Unmodelled messages are checked before being kept: functions[0].node as a varint.
  expectMalformed(bytesOf({0xca, 0x01, 0x02, 0x38, 0x01}), "field 7 of FunctionProto");
  std::string function = lenField(0x3a, bytesOf({0x2a}));  // node { attribute <no length> }
  expectMalformed(bytesOf({0xca, 0x01, static_cast<int>(function.size())}) + function,
                  "truncated varint");
}

Model nestedModel(int depth) {
  Graph g;
  for (int i = 0; i < depth; ++i) {
    Node n;
    Attribute a;
    a.name = "body";
    a.hasG = true;
    a.g = std::make_shared<Graph>(std::move(g));
    n.attribute.push_back(std::move(a));
    g = Graph();
    g.node.push_back(std::move(n));
  }
  Model m;
  m.hasGraph = true;
  m.graph = std::move(g);
  return m;
}

TEST(CodecTest, NestingIsBounded) {
  EXPECT_NO_THROW(parseModel(serializeModel(nestedModel(60))));
  expectMalformed(serializeModel(nestedModel(100)), "nested deeper");
  // sequence_type { elem_type { sequence_type { ... } } } kept as unknown, still bounded.
  std::string type = lenField(0x0a, bytesOf({0x08, 0x01}));
  for (int i = 0; i < 5000; ++i) type = lenField(0x22, lenField(0x0a, type));
  std::string vi = lenField(0x0a, "x") + lenField(0x12, type);
  expectMalformed(lenField(0x3a, lenField(0x5a, vi)), "nested deeper");
}

TEST(CodecTest, RandomBytesGiveErrorOrModel) {
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) {
    std::string s(rng() % 64, '\0');
    for (auto &c : s) c = static_cast<char>(rng());
    try {
      serializeModel(parseModel(s));
    } catch (const popart::error &) {
    }
  }
}

TEST(CodecTest, EveryTruncationOfAModelIsHandled) {
  std::string bytes = serializeModel(richModel());
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      parseModel(bytes.substr(0, n));
    } catch (const popart::error &) {
    }
  }
}

std::string mutate(std::string s, std::mt19937 &rng) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    size_t at = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 4) {
    case 0: if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8))); break;
    case 1: s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(rng())); break;
    case 2: if (!s.empty()) s.erase(at, 1 + rng() % 3); break;
    default: if (!s.empty()) s[at] = static_cast<char>(rng()); break;
    }
  }
  return s;
}

TEST(CodecTest, MutationFuzzGivesErrorOrStableModel) {
  const std::string seed = serializeModel(richModel());
  std::mt19937 rng(12345);
  auto start = std::chrono::steady_clock::now();
  int parsed = 0, rejected = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(5) &&
         parsed + rejected < 2000000) {
    std::string input = mutate(seed, rng);
    try {
      std::string once = serializeModel(parseModel(input));
      ASSERT_EQ(serializeModel(parseModel(once)), once) << "unstable re-serialisation";
      ++parsed;
    } catch (const popart::error &) {
      ++rejected;
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

class CodecExternalDataTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("popart_codec_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write(const std::string &name, const std::string &bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  std::string modelPath() const { return (dir_ / "model.onnx").string(); }

  // A model whose initializer `w` lives in `location` at `offset`/`length`.
  Model externalModel(const std::string &location, const std::string &offset,
                      const std::string &length) {
    Tensor t;
    t.name = "w";
    t.dataType = 1;
    t.dims = {2};
    t.dataLocation = 1;
    t.externalData = {{"location", location}, {"offset", offset}, {"length", length}};
    Model m;
    m.hasGraph = true;
    m.graph.initializer.push_back(t);
    return m;
  }
  std::filesystem::path dir_;
};

TEST_F(CodecExternalDataTest, ResolvesRelativeToTheModelFile) {
  write("weights.bin", "xxxxABCDEFGHyy");
  write("model.onnx", serializeModel(externalModel("weights.bin", "4", "8")));
  Model m = loadModelFile(modelPath());
  const Tensor &t = m.graph.initializer[0];
  EXPECT_EQ(t.rawData, "ABCDEFGH");
  EXPECT_TRUE(t.hasRawData);
  EXPECT_TRUE(t.externalData.empty());
  EXPECT_EQ(t.dataLocation, 0);
  // parseModel without a base folder leaves the tensor external.
  Model raw = parseModel(serializeModel(externalModel("weights.bin", "4", "8")));
  EXPECT_EQ(raw.graph.initializer[0].dataLocation, 1);
  EXPECT_EQ(raw.graph.initializer[0].externalData.size(), 3u);
}

TEST_F(CodecExternalDataTest, ErrorsNameTensorAndPath) {
  write("model.onnx", serializeModel(externalModel("missing.bin", "0", "8")));
  try {
    loadModelFile(modelPath());
    FAIL() << "expected popart::error";
  } catch (const popart::error &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'w'"), std::string::npos) << what;
    EXPECT_NE(what.find("missing.bin"), std::string::npos) << what;
  }
  write("short.bin", "abc");
  write("model.onnx", serializeModel(externalModel("short.bin", "2", "8")));
  EXPECT_THROW(loadModelFile(modelPath()), popart::error);
  write("model.onnx", serializeModel(externalModel("../escape.bin", "0", "1")));
  EXPECT_THROW(loadModelFile(modelPath()), popart::error);
  write("model.onnx", serializeModel(externalModel("short.bin", "x", "1")));
  EXPECT_THROW(loadModelFile(modelPath()), popart::error);
  EXPECT_THROW(loadModelFile((dir_ / "nope.onnx").string()), popart::error);
  EXPECT_THROW(loadModelFile(dir_.string()), popart::error);
}

TEST(CodecTest, LargeRawDataRoundTrips) {
  Model m;
  m.hasGraph = true;
  Tensor t;
  t.name = "big";
  t.hasRawData = true;
  t.rawData.assign(64 << 20, '\x5a');
  m.graph.initializer.push_back(std::move(t));
  auto start = std::chrono::steady_clock::now();
  std::string bytes = serializeModel(m);
  Model p = parseModel(bytes);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(p.graph.initializer[0].rawData.size(), size_t(64) << 20);
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

} // namespace
} // namespace popart::onnxpb
