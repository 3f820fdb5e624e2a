// A program written for PopART's CMake package: it links the target `popart`
// (not popart::popart) and uses GraphTransformer and ReplicaGrouping.
// Usage: popart_target OUT.onnx  -> writes Relu(x) with x converted to FLOAT16.
#include <popart/builder.hpp>
#include <popart/commgroup.hpp>
#include <popart/graphtransformer.hpp>
#include <popart/replicagrouping.hpp>
#include <popart/tensorinfo.hpp>
#include <fstream>
#include <iostream>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: popart_target OUT.onnx\n";
    return 2;
  }
  auto builder = popart::Builder::create();
  auto x = builder->addInputTensor(popart::TensorInfo("FLOAT", popart::Shape{2, 2}), "x");
  auto y = builder->addOp("ai.onnx", "Relu", 6, {x}, 1, {}, "relu").at(0);
  builder->addOutputTensor(y);
  popart::GraphTransformer gt(builder->getModelProto());
  gt.convertFloatsToHalfs();
  std::ofstream(argv[1], std::ios::binary) << gt.getModelProto();
  popart::CommGroup orthogonal(popart::CommGroupType::Orthogonal, 2);
  std::cout << popart::toReplicaGrouping(orthogonal, 8).str() << "\n";
  return 0;
}
