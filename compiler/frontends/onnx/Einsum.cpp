// SPDX-License-Identifier: Apache-2.0
// ONNX's Einsum: each operand's repeated letters become diagonals and its
// letters used nowhere else are summed out; then the operands are
// contracted left to right, two at a time, as one batched matrix product
// (the batch letters both share and keep, the contracted letters both share
// and drop); what is left is summed and transposed to the output's order.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace mxc::onnx {

namespace {

/// A value and the letter of each of its axes (the ellipsis's axes get the
/// digits '0'..'9', aligned from the right across operands).
struct Term {
  Value v;
  std::string letters;
  std::vector<int64_t> shape() const {
    auto s = cast<RankedTensorType>(v.getType()).getShape();
    return {s.begin(), s.end()};
  }
};

struct Einsum {
  Importer &im;

  /// `t` with its axes in the order of `letters` (a permutation of its own).
  Term permute(Term t, const std::string &letters) {
    if (t.letters == letters)
      return t;
    std::vector<int64_t> perm;
    for (char c : letters)
      perm.push_back(t.letters.find(c));
    return {im.op("mx.transpose", t.v, {im.na("axes", im.arr(perm))}), letters};
  }

  /// `t` summed over the axes whose letters `drop` holds.
  Term sumOut(Term t, llvm::function_ref<bool(char)> drop) {
    std::vector<int64_t> axes, kept;
    std::string letters;
    auto s = t.shape();
    for (size_t i = 0; i < t.letters.size(); ++i) {
      if (drop(t.letters[i])) {
        axes.push_back(i);
      } else {
        letters += t.letters[i];
        kept.push_back(s[i]);
      }
    }
    if (axes.empty())
      return t;
    Value r = im.op("mx.reduce", t.v,
                    {im.na("op", im.str("sum")), im.na("axis", im.arr(axes)),
                     im.na("keepdims", im.boolean(false))});
    return {im.reshape(r, kept), letters};
  }

  /// The diagonal of `t` over each letter it repeats.
  Term diagonals(Term t) {
    for (size_t p = 0; p < t.letters.size(); ++p) {
      size_t q = t.letters.find(t.letters[p], p + 1);
      if (q == std::string::npos)
        continue;
      auto s = t.shape();
      if (s[p] != s[q])
        return {Value(), ""};
      // Zero off the diagonal of axes p and q, then sum q away.
      std::vector<int64_t> ms(s.size(), 1);
      ms[p] = ms[q] = s[p];
      Const eye(TP::BOOL, ms);
      for (int64_t i = 0; i < s[p]; ++i)
        eye.setInt(i * s[p] + i, 1);
      Value zero =
          im.scalarParam(im.typeOf(Tensor{t.v, nullptr, nullptr}), 0.0, "zero");
      t.v = im.where(im.param(eye, im.nodeName + "_eye"), t.v, zero);
      t.letters[q] = '#';
      t = sumOut(t, [](char c) { return c == '#'; });
      --p; // the letter may repeat a third time
    }
    return t;
  }

  /// The product of a and b summed over the letters they share but `keep`
  /// lacks.
  Term contract(Term a, Term b, const std::string &keep) {
    std::string batch, aOnly, bOnly, summed;
    for (char c : a.letters) {
      bool inB = b.letters.find(c) != std::string::npos;
      bool kept = keep.find(c) != std::string::npos;
      (inB ? (kept ? batch : summed) : aOnly) += c;
    }
    for (char c : b.letters)
      if (a.letters.find(c) == std::string::npos)
        bOnly += c;
    // Shared letters of different extents (one of them 1) broadcast.
    auto as = a.shape(), bs = b.shape();
    std::vector<int64_t> aTo = as, bTo = bs;
    std::map<char, int64_t> extent;
    for (size_t i = 0; i < a.letters.size(); ++i)
      extent[a.letters[i]] = as[i];
    for (size_t i = 0; i < b.letters.size(); ++i) {
      int64_t &e = extent[b.letters[i]];
      e = std::max(e, bs[i]);
    }
    for (size_t i = 0; i < a.letters.size(); ++i)
      aTo[i] = extent[a.letters[i]];
    for (size_t i = 0; i < b.letters.size(); ++i)
      bTo[i] = extent[b.letters[i]];
    if (aTo != as)
      a.v = im.op("mx.broadcast_to", a.v, {im.na("shape", im.arr(aTo))});
    if (bTo != bs)
      b.v = im.op("mx.broadcast_to", b.v, {im.na("shape", im.arr(bTo))});
    auto size = [&](const std::string &ls) {
      int64_t n = 1;
      for (char c : ls)
        n *= extent[c];
      return n;
    };
    a = permute(a, batch + aOnly + summed);
    b = permute(b, batch + summed + bOnly);
    Value av = im.reshape(a.v, {size(batch), size(aOnly), size(summed)});
    Value bv = im.reshape(b.v, {size(batch), size(summed), size(bOnly)});
    Value p = im.op("mx.matmul", {av, bv});
    std::vector<int64_t> shape;
    std::string letters = batch + aOnly + bOnly;
    for (char c : letters)
      shape.push_back(extent[c]);
    return {im.reshape(p, shape), letters};
  }
};

} // namespace

LogicalResult importEinsum(Importer &im, StringRef) {
  std::string eq;
  for (char c : im.attrStr("equation", ""))
    if (c != ' ')
      eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<StringRef> specs;
  StringRef(lhs).split(specs, ',');
  int64_t n = im.node->input_size();
  if ((int64_t)specs.size() != n)
    return im.fail("equation '" + eq + "' names " + Twine(specs.size()) +
                   " operands; the node has " + Twine(n));
  // Expand the ellipses: their axes, aligned from the right.
  std::vector<int64_t> ellipsis(n, 0);
  int64_t maxEllipsis = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t explicitAxes = specs[i].size();
    if (specs[i].contains("..."))
      explicitAxes -= 3;
    ellipsis[i] = im.rank(i) - explicitAxes;
    if (ellipsis[i] < 0 || (ellipsis[i] > 0 && !specs[i].contains("...")))
      return im.fail("operand " + Twine(i) + " ('" + specs[i] + "') has rank " +
                     Twine(im.rank(i)));
    maxEllipsis = std::max(maxEllipsis, ellipsis[i]);
  }
  if (maxEllipsis > 10)
    return im.fail("an ellipsis of more than 10 axes is not supported");
  auto digits = [&](int64_t count) {
    std::string d;
    for (int64_t k = maxEllipsis - count; k < maxEllipsis; ++k)
      d += char('0' + k);
    return d;
  };
  auto expand = [&](StringRef spec, int64_t count) {
    std::string s = spec.str();
    size_t e = s.find("...");
    if (e != std::string::npos)
      s.replace(e, 3, digits(count));
    return s;
  };
  std::vector<Term> terms;
  std::map<char, int> uses;
  for (int64_t i = 0; i < n; ++i) {
    std::string letters = expand(specs[i], ellipsis[i]);
    for (char c : letters)
      if (!llvm::isAlpha(c) && !llvm::isDigit(c))
        return im.fail("equation '" + eq + "' has a character '" + Twine(c) +
                       "' that is not a letter");
    for (char c : letters)
      ++uses[c];
    terms.push_back({im.val(i), letters});
  }
  std::string out;
  if (arrow == std::string::npos) {
    // Implicit: the ellipsis, then the letters used once, alphabetically.
    out = digits(maxEllipsis);
    for (auto [c, count] : uses)
      if (count == 1 && llvm::isAlpha(c))
        out += c;
  } else {
    out = expand(eq.substr(arrow + 2), maxEllipsis);
    for (char c : out)
      if (!uses.count(c) || llvm::count(out, c) != 1)
        return im.fail("output letter '" + Twine(c) +
                       "' is not an input letter, or repeats");
  }
  Einsum e{im};
  // Letters needed after operand i: the output's and later operands'.
  auto neededAfter = [&](int64_t i) {
    std::string need = out;
    for (int64_t j = i + 1; j < n; ++j)
      need += terms[j].letters;
    return need;
  };
  for (int64_t i = 0; i < n; ++i) {
    terms[i] = e.diagonals(terms[i]);
    if (!terms[i].v)
      return im.fail("operand " + Twine(i) +
                     " repeats a letter over axes of different extents");
  }
  Term acc = terms[0];
  for (int64_t i = 0; i < n; ++i) {
    std::string need = neededAfter(i);
    if (i > 0) {
      // Letters only one side has and nothing later needs go first.
      Term b = e.sumOut(terms[i], [&](char c) {
        return need.find(c) == std::string::npos &&
               acc.letters.find(c) == std::string::npos;
      });
      acc = e.sumOut(acc, [&](char c) {
        return need.find(c) == std::string::npos &&
               b.letters.find(c) == std::string::npos;
      });
      acc = e.contract(acc, b, need);
    } else {
      acc = e.sumOut(acc,
                     [&](char c) { return need.find(c) == std::string::npos; });
    }
    if (!acc.v)
      return failure();
  }
  return im.out(0, e.permute(acc, out).v);
}

} // namespace mxc::onnx
