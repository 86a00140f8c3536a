// SPDX-License-Identifier: Apache-2.0
// ONNX's text operators: TfIdfVectorizer over integer tokens. Every n-gram
// length and skip distance is a few strided slices of the tokens compared
// with the whole pool of that length at once; the counts reach the output's
// columns through a constant one-hot product.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

LogicalResult importTfIdfVectorizer(Importer &im, StringRef) {
  auto xs = im.shape(0);
  if (xs.empty() || xs.size() > 2)
    return im.fail("input must be 1-D or 2-D, got shape " + shapeText(xs));
  if (failed(im.requireStatic(0, "the input")))
    return failure();
  int32_t type = im.type(0);
  if (type != TP::INT32 && type != TP::INT64)
    return im.fail("input of element type " + typeName(type) +
                   " is not supported (int32 and int64 tokens only)");
  std::string mode = im.attrStr("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return im.fail("mode '" + mode + "' is not one of TF, IDF and TFIDF");
  int64_t minGram = im.attrInt("min_gram_length", 1);
  int64_t maxGram = im.attrInt("max_gram_length", 1);
  int64_t maxSkip = im.attrInt("max_skip_count", 0);
  auto counts = im.attrInts("ngram_counts", {});
  auto indexes = im.attrInts("ngram_indexes", {});
  auto pool = im.attrInts("pool_int64s", {});
  if (im.attr("pool_strings"))
    return im.fail("pool_strings is not supported (integer pools only)");
  auto weights = im.attr("weights");
  if (minGram < 1 || maxGram < minGram || maxSkip < 0 ||
      (int64_t)counts.size() < maxGram)
    return im.fail("min_gram_length, max_gram_length, max_skip_count and "
                   "ngram_counts do not describe n-grams 1 to max_gram_length");
  // The pool's n-grams of each length: [begin, end) offsets into `pool`.
  std::vector<int64_t> starts = counts;
  starts.push_back(pool.size());
  int64_t numGrams = 0;
  std::vector<int64_t> firstGram(counts.size() + 1);
  for (size_t n = 0; n < counts.size(); ++n) {
    firstGram[n] = numGrams;
    int64_t len = starts[n + 1] - starts[n];
    if (len < 0 || len % int64_t(n + 1) != 0)
      return im.fail("ngram_counts " + Twine(counts[n]) + " does not start a " +
                     Twine(n + 1) + "-gram run of pool_int64s");
    numGrams += len / int64_t(n + 1);
  }
  if ((int64_t)indexes.size() != numGrams)
    return im.fail("ngram_indexes has " + Twine(indexes.size()) +
                   " entries for the pool's " + Twine(numGrams) + " n-grams");
  int64_t width = 0;
  for (int64_t i : indexes) {
    if (i < 0 || i > (int64_t(1) << 24))
      return im.fail("ngram_indexes holds " + Twine(i) + ", out of range");
    width = std::max(width, i + 1);
  }
  if (weights && weights->floats_size() != numGrams)
    return im.fail("weights has " + Twine(weights->floats_size()) +
                   " entries for the pool's " + Twine(numGrams) + " n-grams");
  int64_t rows = xs.size() == 2 ? xs[0] : 1, cols = xs.back();
  Value x = im.reshape(im.castTo(im.val(0), TP::INT64), {rows, cols});
  // count[r][g]: how often n-gram g occurs in row r, over the skips.
  Value total;
  for (int64_t n = minGram; n <= maxGram; ++n) {
    int64_t g0 = firstGram[n - 1], gn = (starts[n] - starts[n - 1]) / n;
    if (gn == 0)
      continue;
    SmallVector<Value> gramsAt(n); // (1, 1, gn): the k-th token of each gram
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> v(gn);
      for (int64_t g = 0; g < gn; ++g)
        v[g] = pool[starts[n - 1] + g * n + k];
      gramsAt[k] = im.param(Const::ofInts(v, std::vector<int64_t>{1, 1, gn}),
                            im.nodeName + "_pool");
    }
    Value perLength;
    for (int64_t skip = 0; skip <= (n == 1 ? 0 : maxSkip); ++skip) {
      int64_t step = skip + 1, span = (n - 1) * step, windows = cols - span;
      if (windows <= 0)
        break;
      Value match;
      for (int64_t k = 0; k < n; ++k) {
        Value tokens =
            im.op("mx.slice", x,
                  {im.na("begin", im.arr({0, k * step})),
                   im.na("end", im.arr({rows, k * step + windows}))});
        Value eq = im.compare(im.reshape(tokens, {rows, windows, 1}),
                              gramsAt[k], "equal");
        match = match ? im.binary(match, eq, "and") : eq;
      }
      Value c = im.op("mx.reduce", im.castTo(match, TP::FLOAT),
                      {im.na("op", im.str("sum")), im.na("axis", im.arr({1})),
                       im.na("keepdims", im.boolean(false))}); // (rows, gn)
      perLength = perLength ? im.binary(perLength, c, "add") : c;
    }
    if (!perLength)
      continue;
    // Into the output's columns: (rows, gn) x one-hot (gn, width), weighed.
    Const scatter(TP::FLOAT, {gn, width});
    for (int64_t g = 0; g < gn; ++g) {
      int64_t global = g0 + g;
      double w = mode == "TF" ? 1.0 : weights ? weights->floats(global) : 1.0;
      scatter.set(g * width + indexes[global], mode == "TF" ? 1.0 : w);
    }
    if (mode == "IDF") // presence, not count
      perLength = im.castTo(im.compare(perLength,
                                       im.scalarParam(TP::FLOAT, 0.0, "zero"),
                                       "greater"),
                            TP::FLOAT);
    Value y = im.op("mx.matmul",
                    {perLength, im.param(scatter, im.nodeName + "_columns")});
    total = total ? im.binary(total, y, "add") : y;
  }
  std::vector<int64_t> out = xs.size() == 2 ? std::vector<int64_t>{rows, width}
                                            : std::vector<int64_t>{width};
  if (!total)
    return im.outConst(0, Const(TP::FLOAT, out));
  return im.out(0, im.reshape(total, out));
}

} // namespace mxc::onnx
