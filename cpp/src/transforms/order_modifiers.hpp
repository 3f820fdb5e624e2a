// Ops that write an input in place (Op::modifies) must run after every other
// reader of that memory.
#pragma once

namespace popart {
class Graph;
class Op;
class Tensor;
/// Every op reading t, directly or through a view of it, runs before `modifier`
/// (ops that depend on the modifier itself, through data or topological constraints, are left alone).
void orderAfterReaders(Graph &g, Tensor *t, Op *modifier);
/// orderAfterReaders for each modified input of each op in the graph (the
/// in-place ops a model contains, e.g. ai.graphcore AddLhsInplace); the
/// RemoteLoad/RemoteStore ops of one remote buffer keep their creation order.
void orderModifiers(Graph &g);
} // namespace popart
