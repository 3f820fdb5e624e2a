// C++ InferenceSession through StepIO/NDArrayWrapper and StepIOCallback:
// anchors per return type, weights IO, errors naming the tensor, devices.
#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include <gtest/gtest.h>
#include <algorithm>
#include <numeric>

using namespace popart;

namespace {

/// y = Relu(x) + w with x: FLOAT [2,3] and w a weight; z = Relu(y).
struct Model {
  std::string proto;
  TensorId x, y, z, w;
  std::vector<float> weights{0.f, .1f, .2f, .3f, .4f, .5f};
};

Model makeModel() {
  Model m;
  auto b = Builder::create();
  m.x = b->addInputTensor(TensorInfo("FLOAT", Shape{2, 3}), "x");
  m.w = b->addInitializedInputTensor(TensorInfo("FLOAT", Shape{2, 3}), m.weights.data(), "w");
  auto r = b->addOp("", "Relu", 11, {m.x}).at(0);
  m.y = b->addOp("", "Add", 11, {r, m.w}).at(0);
  m.z = b->addOp("", "Relu", 11, {m.y}).at(0);
  b->addOutputTensor(m.z);
  m.proto = b->getModelProto();
  return m;
}

std::unique_ptr<InferenceSession> makeSession(const Model &m, const DataFlow &df,
                                              const SessionOptions &opts = SessionOptions()) {
  auto s = InferenceSession::createFromOnnxModel(m.proto, df, DeviceManager::createDeviceManager().createCpuDevice(),
                                                 InputShapeInfo(), opts, Patterns());
  s->prepareDevice();
  return s;
}

std::vector<float> input(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.f;
  return v;
}

float forward(const Model &m, float x, size_t i) {
  return std::max(std::max(x, 0.f) + m.weights[i % 6], 0.f);
}

} // namespace

TEST(InferenceSessionTest, AllAnchorOverBatchesPerStep) {
  Model m = makeModel();
  auto s = makeSession(m, DataFlow(3, std::vector<TensorId>{m.z, m.y}));
  std::vector<float> x = input(18), z(18), y(18);
  NDArrayWrapper<float> xa(x.data(), {3, 2, 3}), za(z.data(), {3, 2, 3}), ya(y.data(), {18});
  StepIO io({{m.x, xa}}, {{m.z, za}, {m.y, ya}});
  s->run(io);
  for (size_t i = 0; i < 18; ++i) {
    EXPECT_FLOAT_EQ(z[i], forward(m, x[i], i));
    EXPECT_FLOAT_EQ(y[i], std::max(x[i], 0.f) + m.weights[i % 6]);
  }
  EXPECT_GT(s->getCycleCount(), 0u);
}

TEST(InferenceSessionTest, FinalSumAndEveryN) {
  Model m = makeModel();
  std::map<TensorId, AnchorReturnType> arts{{m.z, AnchorReturnType("Sum")},
                                            {m.y, AnchorReturnType("EveryN", 2)},
                                            {m.x, AnchorReturnType("Final")}};
  auto s = makeSession(m, DataFlow(4, arts));
  std::vector<float> x = input(24), zsum(6), yn(12), xf(6);
  NDArrayWrapper<float> xa(x.data(), {24}), za(zsum.data(), {2, 3}), ya(yn.data(), {2, 2, 3}),
      xfa(xf.data(), {2, 3});
  StepIO io({{m.x, xa}}, {{m.z, za}, {m.y, ya}, {m.x, xfa}});
  s->run(io);
  for (size_t i = 0; i < 6; ++i) {
    float sum = 0;
    for (size_t b = 0; b < 4; ++b) sum += forward(m, x[b * 6 + i], i);
    EXPECT_NEAR(zsum[i], sum, 1e-5);
    EXPECT_FLOAT_EQ(xf[i], x[18 + i]);
    EXPECT_FLOAT_EQ(yn[i], std::max(x[6 + i], 0.f) + m.weights[i]);
    EXPECT_FLOAT_EQ(yn[6 + i], std::max(x[18 + i], 0.f) + m.weights[i]);
  }
}

TEST(InferenceSessionTest, GradientAccumulationMicroBatches) {
  Model m = makeModel();
  SessionOptions opts;
  opts.enableGradientAccumulation = true;
  opts.accumulationFactor = 2;
  auto s = makeSession(m, DataFlow(2, std::vector<TensorId>{m.z}), opts);
  std::vector<float> x = input(24), z(24);
  NDArrayWrapper<float> xa(x.data(), {2, 2, 2, 3}), za(z.data(), {2, 2, 2, 3});
  StepIO io({{m.x, xa}}, {{m.z, za}});
  s->run(io);
  for (size_t i = 0; i < 24; ++i) EXPECT_FLOAT_EQ(z[i], forward(m, x[i], i));
}

TEST(InferenceSessionTest, StepIOCallbackOrder) {
  Model m = makeModel();
  auto s = makeSession(m, DataFlow(2, std::vector<TensorId>{m.z}));
  std::vector<std::string> calls;
  std::vector<float> x = input(6), z(6);
  StepIOCallback io(
      [&](TensorId id, bool) {
        calls.push_back("in " + id);
        return ConstVoidData(x.data(), TensorInfo("FLOAT", Shape{2, 3}));
      },
      [&](TensorId id) { calls.push_back("inComplete " + id); },
      [&](TensorId id) {
        calls.push_back("out " + id);
        return MutableVoidData{z.data(), TensorInfo("FLOAT", Shape{6})};
      },
      [&](TensorId id) { calls.push_back("outComplete " + id); });
  s->run(io);
  std::vector<std::string> one{"in x", "inComplete x", "out " + m.z, "outComplete " + m.z};
  std::vector<std::string> expected(one);
  expected.insert(expected.end(), one.begin(), one.end());
  EXPECT_EQ(calls, expected);
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(z[i], forward(m, x[i], i));
}

TEST(InferenceSessionTest, WeightsIO) {
  Model m = makeModel();
  auto s = makeSession(m, DataFlow(1, std::vector<TensorId>{m.z}));
  std::vector<float> w(6);
  WeightsIO read;
  read.insert(m.w, {w.data(), TensorInfo("FLOAT", Shape{2, 3})});
  s->weightsToHost();
  s->readWeights(read);
  EXPECT_EQ(w, m.weights);

  std::vector<float> w2(6, -10.f);
  WeightsIO write;
  write.insert(m.w, {w2.data(), TensorInfo("FLOAT", Shape{6})});
  s->writeWeights(write);
  s->weightsFromHost();
  std::vector<float> x = input(6), z(6, 1.f);
  NDArrayWrapper<float> xa(x.data(), {2, 3}), za(z.data(), {2, 3});
  StepIO io({{m.x, xa}}, {{m.z, za}});
  s->run(io);
  for (float v : z) EXPECT_EQ(v, 0.f);  // relu(relu(x) - 10) with |x| <= 3

  std::vector<double> wrong(6);
  WeightsIO bad;
  bad.insert(m.w, {wrong.data(), TensorInfo("DOUBLE", Shape{6})});
  EXPECT_THROW(s->readWeights(bad), error);
}

TEST(InferenceSessionTest, ErrorsNameTheTensor) {
  Model m = makeModel();
  auto s = makeSession(m, DataFlow(2, std::vector<TensorId>{m.z}));
  std::vector<float> x = input(12), small(5), z(12);
  NDArrayWrapper<float> xa(x.data(), {2, 2, 3}), sa(small.data(), {5}), za(z.data(), {12});
  auto expectError = [&](IStepIO &io, const std::string &fragment) {
    try {
      s->run(io);
      FAIL() << "expected an error containing " << fragment;
    } catch (const error &e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  StepIO missing({}, {{m.z, za}});
  expectError(missing, "no input data provided for tensor 'x'");
  StepIO wrongSize({{m.x, sa}}, {{m.z, za}});
  expectError(wrongSize, "input 'x' has 5 elements");
  StepIO notAnchor({{m.x, xa}}, {{m.z, za}, {m.y, za}});
  expectError(notAnchor, "'" + m.y + "', which is not an anchor");
  std::vector<int32_t> xi(12);
  NDArrayWrapper<int32_t> xia(xi.data(), {12});
  StepIO wrongType({{m.x, xia}}, {{m.z, za}});
  expectError(wrongType, "input 'x' has type INT32, expected FLOAT");
  // Without runtime asserts a one-micro-batch buffer is reused for every batch.
  NDArrayWrapper<float> one(x.data(), {2, 3});
  StepIO reuse({{m.x, one}}, {{m.z, za}});
  reuse.enableRuntimeAsserts(false);
  s->run(reuse);
  for (size_t i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(z[i], forward(m, x[i % 6], i));
}

TEST(InferenceSessionTest, TensorQueriesAndMisuse) {
  Model m = makeModel();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, std::vector<TensorId>{m.z}),
                                                 DeviceManager::createDeviceManager().createCpuDevice());
  std::vector<float> x = input(6), z(6);
  NDArrayWrapper<float> xa(x.data(), {2, 3}), za(z.data(), {2, 3});
  StepIO io({{m.x, xa}}, {{m.z, za}});
  EXPECT_THROW(s->run(io), error);  // before prepareDevice
  s->prepareDevice();
  EXPECT_THROW(s->prepareDevice(), error);
  EXPECT_EQ(s->getInfo(m.y).shape(), (Shape{2, 3}));
  EXPECT_THROW(s->getInfo("nothere"), error);
  auto ids = s->getTensorIds();
  EXPECT_NE(std::find(ids.begin(), ids.end(), m.w), ids.end());
  EXPECT_NE(s->getSummaryReport().find("memory"), std::string::npos);
  EXPECT_EQ(s->getSerializedGraph().front(), '{');
  s->setRandomSeed(99);
  auto state = s->getRNGState();
  s->setRandomSeed(1);
  s->setRandomSeed(99);
  s->setRNGState(state);
  EXPECT_EQ(s->getRNGState(), state);
  EXPECT_EQ(s->getRandomSeed(), 99u);
}

TEST(InferenceSessionTest, BadModelsAndDataFlows) {
  Model m = makeModel();
  auto cpu = DeviceManager::createDeviceManager().createCpuDevice();
  EXPECT_THROW(InferenceSession::createFromOnnxModel("not a model", DataFlow(1, std::vector<TensorId>{m.z}), cpu), error);
  EXPECT_THROW(InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, std::vector<TensorId>{"nothere"}), cpu), error);
  EXPECT_THROW(InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, std::vector<TensorId>{m.z}), nullptr), error);
  EXPECT_THROW(AnchorReturnType("Sometimes"), error);
  EXPECT_EQ(AnchorReturnType("EVERYN", 2).id(), AnchorReturnTypeId::EveryN);
}

TEST(InferenceSessionTest, Devices) {
  auto &dm = DeviceManager::createDeviceManager();
  std::map<std::string, std::string> two{{"numIPUs", "2"}};
  EXPECT_EQ(dm.createIpuModelDevice(two)->getNumIpus(), 2);
  auto pair = dm.acquireAvailableDevice(2);
  EXPECT_EQ(pair->getId(), 64);
  EXPECT_TRUE(pair->isAttached());
  EXPECT_EQ(dm.acquireDeviceById(100)->getNumIpus(), 4);
  EXPECT_THROW(dm.acquireAvailableDevice(3), error);
  EXPECT_EQ(dm.tryAcquireAvailableDevice(3), nullptr);
  EXPECT_EQ(dm.enumerateDevices(SyncPattern::Full, 8).size(), 8u);
  EXPECT_EQ(DeviceManager::firstDeviceId(64), 126);

  Model m = makeModel();
  std::map<std::string, std::string> opts{{"numIPUs", "1"}};
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, std::vector<TensorId>{m.z}), dm.createOfflineIPUDevice(opts));
  s->prepareDevice();  // compiles
  std::vector<float> x = input(6), z(6);
  NDArrayWrapper<float> xa(x.data(), {2, 3}), za(z.data(), {2, 3});
  StepIO io({{m.x, xa}}, {{m.z, za}});
  EXPECT_THROW(s->run(io), error);
}

TEST(SessionOptionsTest, Defaults) {
  SessionOptions o;
  EXPECT_EQ(o.getAccumulationFactor(), 1);
  EXPECT_EQ(o.batchSerializationSettings.factor, 0);
  EXPECT_EQ(o.executionPhaseSettings.stages, 2);
  EXPECT_EQ(o.weightTensorLocationSettings.minElementsForReplicatedTensorSharding, 8192);
  EXPECT_EQ(o.hardwareInstrumentations, std::set<Instrumentation>{Instrumentation::Outer});
  EXPECT_EQ(o.swapLimitScheduler, 1000000000);
  o.enableExplicitIR(true);
  EXPECT_TRUE(o.useHostCopyOps && o.enableExplicitMainLoops && o.explicitRecomputation);
}
