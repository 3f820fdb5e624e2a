// Host <-> session data exchange for run(): IStepIO and the generic
// array-backed implementation (C++ StepIO over IArray, Python PyStepIO).
#pragma once
#include "popart/ndarraywrapper.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/voiddata.hpp"
#include <functional>
#include <memory>
#include <map>

namespace popart {

/// What a session reads inputs from and writes anchors to, once per
/// micro-batch: in() then inComplete() per input; out() then outComplete() per anchor.
class IStepIO {
public:
  virtual ~IStepIO() = default;
  /// `numElements` of tensor `id` for the next micro-batch.
  virtual ConstVoidData in(TensorId id, int64_t numElements, bool prefetch) = 0;
  virtual void inComplete(TensorId id, int64_t numElements) = 0;
  virtual MutableVoidData out(TensorId id, int64_t numElements) = 0;
  virtual void outComplete(TensorId id) {}
  /// Called by run() before the first micro-batch with the element counts of
  /// a whole step; resets cursors and (if asserts are on) checks the sizes.
  virtual void beginStep(const std::map<TensorId, int64_t> &expectedIn,
                                 const std::map<TensorId, int64_t> &expectedOut) {}
  void enableRuntimeAsserts(bool b) { runtimeAsserts_ = b; }
  bool runtimeAssertsEnabled() const { return runtimeAsserts_; }

private:
  bool runtimeAsserts_ = true;
};

/// Step IO over whole-step arrays: each in()/out() call hands out the next
/// `numElements` of the tensor's array, wrapping at the end of the step.
class StepIOGeneric : public IStepIO {
public:
  struct Buffer {
    void *data;
    TensorInfo info;  // type + the array's own shape (only its element count matters)
  };
  ConstVoidData in(TensorId id, int64_t numElements, bool prefetch) override;
  void inComplete(TensorId id, int64_t numElements) override;
  MutableVoidData out(TensorId id, int64_t numElements) override;
  void beginStep(const std::map<TensorId, int64_t> &expectedIn,
                         const std::map<TensorId, int64_t> &expectedOut) override;
  /// The ids this step IO holds input data for.
  std::vector<TensorId> inputIds() const;

protected:
  void addInput(const TensorId &id, Buffer b) { inputs_[id] = {b, 0}; }
  void addOutput(const TensorId &id, Buffer b) { outputs_[id] = {b, 0}; }

private:
  struct Cursor {
    Buffer buffer;
    int64_t offset;  // in elements
  };
  std::map<TensorId, Cursor> inputs_, outputs_;
};

/// C++ step IO: maps of tensor id -> IArray (e.g. NDArrayWrapper).
class StepIO : public StepIOGeneric {
public:
  StepIO(std::map<TensorId, IArray &> inputs, std::map<TensorId, IArray &> outputs);
};

/// Step IO that asks callbacks for each micro-batch's buffers.
class StepIOCallback : public IStepIO {
public:
  using InputCallback = std::function<ConstVoidData(TensorId, bool)>;
  using InputCompleteCallback = std::function<void(TensorId)>;
  using OutputCallback = std::function<MutableVoidData(TensorId)>;
  using OutputCompleteCallback = std::function<void(TensorId)>;
  StepIOCallback(InputCallback in, InputCompleteCallback inComplete, OutputCallback out,
                 OutputCompleteCallback outComplete)
      : in_(std::move(in)), inComplete_(std::move(inComplete)), out_(std::move(out)),
        outComplete_(std::move(outComplete)) {}
  ConstVoidData in(TensorId id, int64_t, bool prefetch) override { return in_(id, prefetch); }
  void inComplete(TensorId id, int64_t) override { inComplete_(id); }
  MutableVoidData out(TensorId id, int64_t) override { return out_(id); }
  void outComplete(TensorId id) override { outComplete_(id); }

private:
  InputCallback in_;
  InputCompleteCallback inComplete_;
  OutputCallback out_;
  OutputCompleteCallback outComplete_;
};

/// Host buffers for readWeights/writeWeights.
class IWeightsIO {
public:
  virtual ~IWeightsIO() = default;
  virtual bool contains(TensorId id) const = 0;
  virtual MutableVoidData weight(TensorId id) const = 0;
};

class WeightsIO : public IWeightsIO {
public:
  bool contains(TensorId id) const override { return weights_.count(id) != 0; }
  MutableVoidData weight(TensorId id) const override;
  void insert(TensorId id, MutableVoidData data) { weights_[id] = data; }

private:
  std::map<TensorId, MutableVoidData> weights_;
};

} // namespace popart
