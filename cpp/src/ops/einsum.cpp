// Einsum (ai.onnx 12): parses the equation into label ids (A-Z, a-z = 0..51, ellipsis
// dims 52..), checks label sizes (size-1 ellipsis dims broadcast) and infers the output.
// Gradient of input k (EinsumGrad): dX_k[labels_k] = sum over the other labels of
// dY[out labels] * prod_{j != k} X_j[labels_j], i.e. the einsum with X_k's and the output's
// subscripts swapped; diagonal (repeated) labels of X_k are written on the diagonal only and
// dims X_k broadcast (size 1) are summed.
#include "ops/einsum.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>
#include <cctype>
#include <map>

namespace popart {
namespace {

constexpr int einsumEllipsisBase = 52;

/// Ids in ASCII order (upper case first), as numpy orders implicit outputs.
int einsumLetterId(char c) { return std::isupper(static_cast<unsigned char>(c)) ? c - 'A' : 26 + (c - 'a'); }

/// The labels of one term ("ab...c"), with `rank` dims when it holds an ellipsis.
std::vector<int> einsumParseTerm(const std::string &t, int64_t rank, int64_t &ellipsisDims, bool isOutput) {
  std::vector<int> letters;
  size_t dots = t.find("...");
  const std::string rest = dots == std::string::npos ? t : t.substr(0, dots) + t.substr(dots + 3);
  for (char c : rest) {
    if (!std::isalpha(static_cast<unsigned char>(c)))
      throw error("equation term '{}' has invalid character '{}'", t, c);
    letters.push_back(einsumLetterId(c));
  }
  if (dots == std::string::npos) {
    if (!isOutput && static_cast<int64_t>(letters.size()) != rank)
      throw error("equation term '{}' has {} labels for an input of rank {}", t, letters.size(), rank);
    return letters;
  }
  const int64_t e = isOutput ? ellipsisDims : rank - static_cast<int64_t>(letters.size());
  if (e < 0) throw error("equation term '{}' has more labels than the input's rank {}", t, rank);
  if (!isOutput) ellipsisDims = std::max(ellipsisDims, e);
  std::vector<int> out(letters.begin(), letters.begin() + static_cast<std::ptrdiff_t>(dots));
  for (int64_t k = 0; k < e; ++k) out.push_back(einsumEllipsisBase + static_cast<int>(ellipsisDims - e + k));
  out.insert(out.end(), letters.begin() + static_cast<std::ptrdiff_t>(dots), letters.end());
  return out;
}

} // namespace

void EinsumOp::setup() {
  std::string eq;
  for (char c : attr<Attributes::String>("equation"))
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  const int n = static_cast<int>(input->n());
  if (static_cast<int>(terms.size()) != n)
    throw error("equation '{}' has {} input terms for {} inputs", eq, terms.size(), n);
  int64_t ell = 0;
  inLabels_.clear();
  std::map<int, int64_t> size;
  std::map<int, int> count;
  for (int i = 0; i < n; ++i) {
    if (inInfo(i).dataType() != inInfo(0).dataType())
      throw error("input {} has type {}, input 0 has type {}", i, inInfo(i).data_type(), inInfo(0).data_type());
    inLabels_.push_back(einsumParseTerm(terms[i], inRank(i), ell, false));
    for (size_t d = 0; d < inLabels_[i].size(); ++d) {
      const int l = inLabels_[i][d];
      const int64_t s = inShape(i)[d];
      ++count[l];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) size[l] = s;
      else if (s != it->second && !(s == 1 && l >= einsumEllipsisBase))
        throw error("label of input {} dim {} has size {}, elsewhere {}", i, d, s, it->second);
    }
  }
  if (arrow != std::string::npos) {
    outLabels_ = einsumParseTerm(eq.substr(arrow + 2), 0, ell, true);
    for (int l : outLabels_)
      if (!size.count(l)) throw error("output label of equation '{}' appears in no input", eq);
  } else {
    outLabels_.clear();
    for (int64_t k = 0; k < ell; ++k) outLabels_.push_back(einsumEllipsisBase + static_cast<int>(k));
    for (const auto &[l, c] : count)
      if (l < einsumEllipsisBase && c == 1) outLabels_.push_back(l);
  }
  sizes_.assign(einsumEllipsisBase + static_cast<size_t>(ell), 1);
  for (const auto &[l, s] : size) sizes_[l] = s;
  Shape out;
  for (int l : outLabels_) out.push_back(sizes_[l]);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> EinsumOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> ops;
  for (InIndex i = 0; i < static_cast<InIndex>(input->n()); ++i)
    ops.push_back(std::make_unique<EinsumGradOp>(*this, i));
  return ops;
}

EinsumGradOp::EinsumGradOp(const EinsumOp &fwd, InIndex arg)
    : Op(internalOp("EinsumGrad"), fwd.settings), argInfo_(fwd.inInfo(arg)), outLabels_(fwd.inputLabels().at(arg)),
      sizes_(fwd.sizes()) {
  if (!isFloatingPoint(argInfo_.dataType()))
    throw error("Einsum has no gradient for input {} of type {} (expected FLOAT, FLOAT16 or DOUBLE)", arg,
                argInfo_.data_type());
  gradIn_.push_back({0, 0, GradOpInType::GradOut});
  inLabels_.push_back(fwd.outputLabels());
  for (InIndex j = 0; j < static_cast<InIndex>(fwd.input->n()); ++j)
    if (j != arg) {
      gradIn_.push_back({static_cast<InIndex>(inLabels_.size()), j, GradOpInType::In});
      inLabels_.push_back(fwd.inputLabels()[j]);
    }
  gradOut_[0] = arg;
}

POPART_REGISTER_OP(EinsumOp, onnxOp("Einsum", {12}), numericTypes());
POPART_REGISTER_OP(EinsumGradOp, internalOp("EinsumGrad"));
} // namespace popart
