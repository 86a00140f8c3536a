// SPDX-License-Identifier: Apache-2.0
// The core of the ONNX importer: the model read with its large initializers
// left in the file until each is read into its Const (ModelFile.cpp), small
// ones moved from the parsed model, not copied; the graph's initializers,
// inputs and outputs, and each node's checks and dispatch via the op table.
#include "compiler/frontends/onnx/ImporterImpl.h"
#include "compiler/frontends/onnx/ModelFile.h"
#include "compiler/frontends/onnx/OpTable.h"
#include "compiler/model/InputLimit.h"
#include "dialects/mx/MxDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mxc;
using namespace mxc::onnx;

llvm::Error mxc::onnx::makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error mxc::onnx::readProtoFile(StringRef path,
                                     google::protobuf::MessageLite &message,
                                     const Twine &what) {
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd))
    return makeError("'" + path + "': " + ec.message());
  google::protobuf::io::FileInputStream input(fd);
  input.SetCloseOnDelete(true);
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(fd, status))
    return makeError("'" + path + "': " + ec.message());
  if (llvm::Error e = checkInputBytes(path, status.getSize()))
    return e;
  bool parsed = status.getSize() <= (uint64_t)std::numeric_limits<int>::max() &&
                message.ParseFromZeroCopyStream(&input);
  if (input.GetErrno())
    return makeError(
        "'" + path + "': " +
        std::error_code(input.GetErrno(), std::generic_category()).message());
  if (!parsed)
    return makeError("'" + path + "': " + what);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reading the model
//===----------------------------------------------------------------------===//

llvm::Error Importer::readOpset() {
  bool training = false;
  for (const auto &o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
    training |= o.domain() == kTrainingDomain;
  }
  if (opset == 0 && training)
    opset = kMaxOpset; // a model of optimizer operators only
  if (opset == 0 && model.opset_import_size() == 0)
    opset = 1; // IR version 1 models had no opset_import
  if (opset == 0)
    return makeError("'" + file +
                     "': the model does not import the default ONNX domain "
                     "(only '" +
                     model.opset_import(0).domain() +
                     "'), which mxc does not support");
  if (opset < kMinOpset || opset > kMaxOpset)
    return makeError("'" + file + "': opset " + Twine(opset) +
                     " of the default ONNX domain is not supported (mxc "
                     "supports opsets " +
                     Twine(kMinOpset) + " to " + Twine(kMaxOpset) + ")");
  return llvm::Error::success();
}

/// The `length` bytes (all when negative) at `offset` of the file `path`,
/// read into a buffer of their own.
static llvm::Expected<std::shared_ptr<std::string>>
readFileSlice(StringRef path, int64_t offset, int64_t length, uint64_t &total,
              llvm::function_ref<llvm::Error(const Twine &)> bad) {
  auto opened = llvm::sys::fs::openNativeFileForRead(path);
  if (!opened)
    return bad("cannot read external data '" + path +
               "': " + llvm::errorToErrorCode(opened.takeError()).message());
  llvm::sys::fs::file_t fd = *opened;
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(fd); });
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(fd, status))
    return bad("cannot read external data '" + path + "': " + ec.message());
  int64_t size = status.getSize();
  if (offset < 0 || offset > size)
    return bad("external data offset is past the end of '" + path + "'");
  if (length < 0 || length > size - offset)
    length = size - offset;
  total += uint64_t(length);
  if (llvm::Error e =
          checkInputBytes(path, total, "with the model's other external data"))
    return std::move(e);
  auto bytes = std::make_shared<std::string>(length, '\0');
  // One read may return less than asked (Linux reads at most 2 GiB).
  for (int64_t done = 0; done < length;) {
    auto read = llvm::sys::fs::readNativeFileSlice(
        fd, llvm::MutableArrayRef<char>(bytes->data() + done, length - done),
        offset + done);
    if (!read)
      return bad("cannot read external data '" + path +
                 "': " + llvm::errorToErrorCode(read.takeError()).message());
    if (*read == 0)
      return bad("cannot read external data '" + path +
                 "': it ended while reading");
    done += *read;
  }
  return bytes;
}

llvm::Expected<Const> Importer::readTensor(TP &t, const Twine &what) {
  auto bad = [&](const Twine &why) {
    return makeError("'" + file + "': " + what + ": " + why);
  };
  int32_t dt = t.data_type();
  if (!elementKind(dt) || dt == TP::STRING)
    return bad("element type " + typeName(dt) + " is not supported");
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  // The element count and the bytes it needs, without overflow: every
  // count below is compared with what the file holds before anything is
  // allocated.
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0)
      return bad("negative dimension in " + shapeText(shape));
    else if (llvm::MulOverflow(n, d, n) ||
             n > std::numeric_limits<int64_t>::max() / 16)
      return bad("shape " + shapeText(shape) + " is too large");

  // Raw bytes are ONNX's own layout: they become the Const's storage as
  // they are, taken from the model rather than copied.
  std::shared_ptr<std::string> raw;
  if (t.data_location() == TP::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &e : t.external_data()) {
      int64_t *number = e.key() == "offset"   ? &offset
                        : e.key() == "length" ? &length
                                              : nullptr;
      if (e.key() == "location")
        location = e.value();
      else if (number &&
               (llvm::StringRef(e.value()).getAsInteger(10, *number) ||
                *number < 0))
        return bad("external data " + e.key() + " '" + e.value() +
                   "' is not a byte count");
    }
    if (location.empty())
      return bad("external data without a location");
    // As ONNX's checker: the data lies in the model's folder or below it,
    // so that a model cannot make mxc read (and embed) any file.
    if (llvm::sys::path::is_absolute(location) ||
        llvm::any_of(llvm::make_range(llvm::sys::path::begin(location),
                                      llvm::sys::path::end(location)),
                     [](llvm::StringRef part) { return part == ".."; }))
      return bad("external data location '" + location +
                 "' leaves the model's folder (it must be a relative path "
                 "without '..')");
    llvm::SmallString<256> path(llvm::sys::path::parent_path(file));
    llvm::sys::path::append(path, location);
    auto bytes = readFileSlice(path, offset, length, externalBytes, bad);
    if (!bytes)
      return bytes.takeError();
    raw = std::move(*bytes);
  } else if (t.has_raw_data()) {
    raw = std::make_shared<std::string>();
    raw->swap(*t.mutable_raw_data());
  }
  if (raw) {
    size_t elem = elementSize(dt);
    if (raw->size() != n * elem)
      return bad("holds " + Twine(raw->size()) + " bytes but shape " +
                 shapeText(shape) + " of " + typeName(dt) + " needs " +
                 Twine(n * elem));
    if (dt == TP::BOOL) // any non-zero byte is true; Consts hold 0 or 1
      for (char &c : *raw)
        c = c != 0;
    return Const(dt, std::move(shape), std::move(raw));
  }

  // Typed values: as many as the shape needs, held in the proto itself.
  int64_t held =
      std::max({t.float_data_size(), t.double_data_size(), t.int32_data_size(),
                t.int64_data_size(), t.uint64_data_size()});
  if (held != n)
    return bad("holds " + Twine(held) + " values but shape " +
               shapeText(shape) + " needs " + Twine(n));
  Const c(dt, shape);
  auto fill = [&](const auto &values, auto convert) {
    int64_t got = values.size();
    for (int64_t k = 0; k < std::min(n, got); ++k)
      convert(k, values[k]);
    return got;
  };
  auto setFloat = [&](int64_t k, double v) { c.set(k, v); };
  auto setInt = [&](int64_t k, int64_t v) { c.setInt(k, v); };
  int64_t got;
  switch (dt) {
  case TP::FLOAT:
    got = fill(t.float_data(), setFloat);
    break;
  case TP::DOUBLE:
    got = fill(t.double_data(), setFloat);
    break;
  case TP::INT64:
    got = fill(t.int64_data(), setInt);
    break;
  case TP::UINT32:
  case TP::UINT64: // held as its two's-complement bit pattern
    got = fill(t.uint64_data(), setInt);
    break;
  case TP::FLOAT16: // both hold their bits in int32_data
  case TP::BFLOAT16:
    got = fill(t.int32_data(), [&](int64_t k, int32_t bits) {
      c.set(k, bits16ToDouble(dt, (uint16_t)bits));
    });
    break;
  default: // the small integer types and bool use int32_data
    got = fill(t.int32_data(), setInt);
    break;
  }
  if (got != n)
    return bad("holds " + Twine(got) + " values but shape " + shapeText(shape) +
               " needs " + Twine(n));
  return c;
}

llvm::Error Importer::addInitializers() {
  for (TP &t : *model.mutable_graph()->mutable_initializer()) {
    auto c = readTensor(t, "initializer '" + t.name() + "'");
    if (!c)
      return c.takeError();
    tensors[t.name()] =
        Tensor{Value(), std::make_shared<const Const>(std::move(*c))};
  }
  if (model.graph().sparse_initializer_size())
    return makeError("'" + file + "': sparse initializers are not supported");
  for (const auto &bound : opts.boundInputs) {
    const std::string &name = bound.first, &path = bound.second;
    bool isInput = llvm::any_of(model.graph().input(), [&](const auto &in) {
      return in.name() == name;
    });
    if (!isInput || tensors.count(name))
      return makeError("'" + file + "': --bind '" + name +
                       "' is not an input of the graph");
    TP t;
    if (llvm::Error e =
            readProtoFile(path, t, "not a serialized ONNX TensorProto"))
      return e;
    auto c = readTensor(t, "--bind '" + name + "'");
    if (!c)
      return c.takeError();
    tensors[name] =
        Tensor{Value(), std::make_shared<const Const>(std::move(*c))};
  }
  return llvm::Error::success();
}

llvm::Error Importer::checkGivenShape(const std::vector<int64_t> &shape,
                                      const Dims &dims, const Twine &what,
                                      StringRef modelRank) {
  if ((int)shape.size() != dims.size())
    return makeError("'" + file + "': " + what + " has rank " +
                     Twine(shape.size()) + " but the model's " + modelRank +
                     " rank " + Twine(dims.size()));
  for (int i = 0; i < dims.size(); ++i)
    if (dims[i].has_dim_value() && dims[i].dim_value() != shape[i])
      return makeError("'" + file + "': " + what + ": dimension " + Twine(i) +
                       " is " + Twine(dims[i].dim_value()) +
                       " in the model, not " + Twine(shape[i]));
  return llvm::Error::success();
}

void Importer::addInputArgument(const std::string &name, int32_t dt,
                                const std::vector<int64_t> &shape) {
  Value arg = body->insertArgument(
      numInputArgs++, RankedTensorType::get(shape, elementType(dt, &ctx)),
      NameLoc::get(b.getStringAttr(name),
                   FileLineColLoc::get(&ctx, file, 0, 0)));
  result.spec.inputs.push_back({name, dtypeOf(dt), shape});
  tensors[name] = Tensor{arg, nullptr};
}

/// The element type of input `name`, if mxc runs it.
static llvm::Expected<int32_t> inputType(const ::onnx::TypeProto &type,
                                         const std::string &name,
                                         const std::string &file,
                                         MLIRContext &ctx) {
  int32_t dt = type.tensor_type().elem_type();
  if (!elementType(dt, &ctx))
    return makeError("'" + file + "': input '" + name + "' has element type " +
                     typeName(dt) + ", which mxc does not support");
  return dt;
}

/// The extents that --input gives the named dimensions (dim_params) of the
/// inputs it shapes, tensors and sequences' elements alike, so that another
/// input naming the same dimension takes the same extent: `--input
/// ids=1x128` fixes a mask's (batch, seq) too.
/// A dim_param's extent, and the dynamic dimension it is when an --input
/// named one there.
struct GivenDim {
  int64_t extent;
  std::string dynamic;
};

static std::map<std::string, GivenDim>
givenDimParams(const ::onnx::GraphProto &graph, const ImportOptions &opts) {
  std::map<std::string, GivenDim> bound;
  auto bind = [&](const ::onnx::TypeProto &type,
                  const std::vector<int64_t> &shape,
                  const std::vector<std::string> *names) {
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
      return;
    const auto &dims = type.tensor_type().shape().dim();
    if (dims.size() != int(shape.size()))
      return; // the import reports the rank
    for (int i = 0; i < dims.size(); ++i)
      if (dims[i].has_dim_param() && !dims[i].dim_param().empty())
        bound.emplace(dims[i].dim_param(),
                      GivenDim{shape[i], names && size_t(i) < names->size()
                                             ? (*names)[i]
                                             : ""});
  };
  for (const auto &input : graph.input()) {
    const ::onnx::TypeProto *type = &input.type();
    if (type->has_optional_type())
      type = &type->optional_type().elem_type();
    auto names = opts.dynamicAxes.find(input.name());
    if (auto given = opts.inputShapes.find(input.name());
        given != opts.inputShapes.end())
      bind(*type, given->second,
           names == opts.dynamicAxes.end() ? nullptr : &names->second);
    if (auto given = opts.sequenceInputs.find(input.name());
        given != opts.sequenceInputs.end() && type->has_sequence_type())
      for (const std::vector<int64_t> &shape : given->second)
        bind(type->sequence_type().elem_type(), shape, nullptr);
  }
  return bound;
}

llvm::Error Importer::addInputs() {
  std::map<std::string, GivenDim> givenDims =
      givenDimParams(model.graph(), opts);
  for (const auto &input : model.graph().input()) {
    // Inputs that have an initializer are weights (IR < 4 lists them).
    if (tensors.count(input.name()))
      continue;
    const ::onnx::TypeProto *typePtr = &input.type();
    bool optional = typePtr->has_optional_type();
    if (opts.absentInputs.count(input.name())) {
      if (!optional)
        return makeError("'" + file + "': --input '" + input.name() +
                         "=none': the input is not optional");
      absent.insert(input.name());
      continue;
    }
    if (optional)
      typePtr = &typePtr->optional_type().elem_type();
    if (typePtr->has_sequence_type()) {
      if (llvm::Error e = addSequenceInput(input, *typePtr))
        return e;
      continue;
    }
    if (opts.sequenceInputs.count(input.name()))
      return makeError("'" + file + "': --input '" + input.name() +
                       "=seq(...)': the input is not a sequence");
    const auto &type = *typePtr;
    if (!type.has_tensor_type())
      return makeError("'" + file + "': input '" + input.name() +
                       "' is not a tensor, sequence or optional (maps are "
                       "not supported)");
    auto dt = inputType(type, input.name(), file, ctx);
    if (!dt)
      return dt.takeError();
    if (!type.tensor_type().has_shape())
      return makeError("'" + file + "': input '" + input.name() +
                       "' has no shape; give it with --input " + input.name() +
                       "=SHAPE");
    const auto &dims = type.tensor_type().shape().dim();
    std::vector<int64_t> shape;
    auto given = opts.inputShapes.find(input.name());
    if (given != opts.inputShapes.end()) {
      shape = given->second;
      if (llvm::Error e = checkGivenShape(
              shape, dims, "--input '" + input.name() + "'", "input has"))
        return e;
    } else {
      for (int i = 0; i < dims.size(); ++i) {
        if (dims[i].has_dim_value()) {
          if (dims[i].dim_value() < 0)
            return makeError("'" + file + "': input '" + input.name() +
                             "' has a negative dimension (" +
                             Twine(dims[i].dim_value()) + ")");
          shape.push_back(dims[i].dim_value());
          continue;
        }
        std::string sym =
            dims[i].has_dim_param() && !dims[i].dim_param().empty()
                ? dims[i].dim_param()
                : input.name() + "_" + std::to_string(i);
        std::vector<std::string> &open = result.openDims[input.name()];
        open.resize(dims.size());
        if (auto bound = givenDims.find(sym); bound != givenDims.end()) {
          shape.push_back(bound->second.extent);
          open[i] = bound->second.dynamic;
          continue;
        }
        open[i] = sym;
        inputDimSymbols[input.name()].resize(dims.size());
        inputDimSymbols[input.name()][i] = sym;
        auto value = opts.dimValues.find(sym);
        shape.push_back(value == opts.dimValues.end() ? 1 : value->second);
      }
    }
    addInputArgument(input.name(), *dt, shape);
  }
  for (const auto &entry : opts.inputShapes) {
    const std::string &name = entry.first;
    if (llvm::none_of(result.spec.inputs,
                      [&](const TensorSpec &t) { return t.name == name; }))
      return makeError("'" + file + "': --input '" + name +
                       "' is not an input of the graph");
  }
  for (const auto &entry : opts.sequenceInputs)
    if (!sequences.count(entry.first))
      return makeError("'" + file + "': --input '" + entry.first +
                       "' is not an input of the graph");
  return llvm::Error::success();
}

llvm::Error Importer::addSequenceInput(const ::onnx::ValueInfoProto &input,
                                       const ::onnx::TypeProto &type) {
  const std::string &name = input.name();
  auto given = opts.sequenceInputs.find(name);
  if (given == opts.sequenceInputs.end())
    return makeError("'" + file + "': input '" + name +
                     "' is a sequence; give its length and element shapes "
                     "with --input " +
                     name + "=seq(SHAPE,...)");
  const auto &elem = type.sequence_type().elem_type();
  if (!elem.has_tensor_type())
    return makeError("'" + file + "': input '" + name +
                     "' is a sequence of non-tensors, which is not "
                     "supported");
  auto dt = inputType(elem, name, file, ctx);
  if (!dt)
    return dt.takeError();
  std::vector<std::string> &names = sequences[name];
  for (const std::vector<int64_t> &shape : given->second) {
    std::string element = name + "[" + std::to_string(names.size()) + "]";
    if (elem.tensor_type().has_shape())
      if (llvm::Error e = checkGivenShape(
              shape, elem.tensor_type().shape().dim(),
              "--input '" + name + "': element " + Twine(names.size()),
              "elements have"))
        return e;
    addInputArgument(element, *dt, shape);
    names.push_back(element);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Values
// Nodes
//===----------------------------------------------------------------------===//

llvm::Error Importer::nodeError(const ::onnx::NodeProto &n,
                                const Twine &message) const {
  return makeError("'" + file + "': node '" + nodeName + "' (" + n.op_type() +
                   ", opset " + Twine(opset) + "): " + message);
}

llvm::Expected<Importer::CountedExtent>
Importer::countedPropagation(const ::onnx::NodeProto &n) {
  CountedExtent none;
  StringRef op = n.op_type();
  // Their handlers take counted inputs themselves (Counted.cpp and the
  // operators' files).
  static const llvm::StringSet<> countAware = {
      "TopK",      "NonMaxSuppression", "ConstantOfShape",
      "Concat",    "ReduceMax",         "ReduceMin",
      "ReduceSum", "ReduceProd",        "ReduceMean",
      "Slice"};
  if (countAware.contains(op))
    return none;
  std::vector<int> counted;
  for (int i = 0; i < n.input_size(); ++i) {
    auto t = tensors.find(n.input(i));
    if (t != tensors.end() && t->second.count)
      counted.push_back(i);
  }
  if (counted.empty())
    return none;
  auto rankOf = [&](int i) -> int64_t {
    return shapeOf(tensors[n.input(i)]).size();
  };
  auto attrInt = [&](StringRef name, int64_t dflt) {
    for (const auto &a : n.attribute())
      if (a.name() == name)
        return int64_t(a.i());
    return dflt;
  };
  auto refuse = [&](int i) {
    const Tensor &t = tensors[n.input(i)];
    return nodeError(n, "input '" + n.input(i) + "' has an extent (axis " +
                            Twine(t.countAxis) +
                            ") found only as the model runs (NonZero, "
                            "Compress, Unique, NonMaxSuppression, TopK with "
                            "a run-time k), which " +
                            n.op_type() +
                            " does not take here (elementwise operators, "
                            "Cast, Transpose, Unsqueeze, Squeeze, Split and "
                            "Gather on other axes, Gather and GatherND as "
                            "indices, Concat, Slice, TopK, reductions and "
                            "NonMaxSuppression do)");
  };
  const Tensor &first = tensors[n.input(counted[0])];
  // Gather of counted data at counted indices: the indices' count (they
  // pick among the data's kept elements).
  if (op == "Gather" && counted.size() == 2) {
    const Tensor &d = tensors[n.input(0)], &idx = tensors[n.input(1)];
    int64_t axis = attrInt("axis", 0);
    if (axis < 0)
      axis += rankOf(0);
    if (d.countAxis != axis)
      return refuse(0);
    return CountedExtent{idx.count, axis + idx.countAxis};
  }
  for (int i : counted)
    if (tensors[n.input(i)].count != first.count)
      return nodeError(n, "inputs '" + n.input(counted[0]) + "' and '" +
                              n.input(i) +
                              "' have different extents found only as the "
                              "model runs, which is not supported");
  static const llvm::StringSet<> unary = {
      "Identity", "Cast", "Abs",  "Neg",        "Relu",       "Sigmoid",
      "Tanh",     "Exp",  "Log",  "Sqrt",       "Floor",      "Ceil",
      "Round",    "Not",  "Sign", "Reciprocal", "IsNaN",      "IsInf",
      "Softplus", "Erf",  "Clip", "LeakyRelu",  "HardSigmoid"};
  static const llvm::StringSet<> broadcasting = {
      "Add",         "Sub",     "Mul",   "Div",
      "Pow",         "Min",     "Max",   "Mod",
      "And",         "Or",      "Xor",   "Equal",
      "Greater",     "Less",    "Where", "GreaterOrEqual",
      "LessOrEqual", "BitShift"};
  if (unary.contains(op) && counted == std::vector<int>{0})
    return CountedExtent{first.count, first.countAxis};
  if (broadcasting.contains(op)) {
    // Right-aligned: each counted input's axis lands at the same place.
    int64_t rank = 0;
    for (int i = 0; i < n.input_size(); ++i)
      if (tensors.count(n.input(i)))
        rank = std::max(rank, rankOf(i));
    int64_t axis = -1;
    for (int i : counted) {
      int64_t a = tensors[n.input(i)].countAxis + rank - rankOf(i);
      if (axis >= 0 && a != axis)
        return refuse(i);
      axis = a;
    }
    // The counted extent must be the output's there (not broadcast).
    int64_t bound = shapeOf(first)[first.countAxis];
    for (int i = 0; i < n.input_size(); ++i) {
      if (!tensors.count(n.input(i)) || rankOf(i) <= rank - 1 - axis)
        continue;
      int64_t e = shapeOf(tensors[n.input(i)])[axis - (rank - rankOf(i))];
      if (e != 1 && e != bound)
        return refuse(counted[0]);
    }
    return CountedExtent{first.count, axis};
  }
  if (counted.size() != 1)
    return refuse(counted[1]);
  int c = counted[0];
  const Tensor &t = first;
  if (op == "Gather") {
    int64_t rank = rankOf(0);
    int64_t axis = attrInt("axis", 0);
    if (axis < 0)
      axis += rank;
    if (c == 1) // the survivors' indices
      return CountedExtent{t.count, axis + t.countAxis};
    // Another axis of the counted data: the count's axis stays.
    if (axis != t.countAxis && n.input_size() > 1 && tensors.count(n.input(1)))
      return CountedExtent{t.count, t.countAxis < axis
                                        ? t.countAxis
                                        : t.countAxis - 1 + rankOf(1)};
  }
  // The kept elements' coordinates, one per row: the output's leading axes
  // are the indices' (but the last).
  if (op == "GatherND" && c == 1 && t.countAxis < rankOf(1) - 1)
    return CountedExtent{t.count, t.countAxis};
  if (op == "Transpose" && c == 0) {
    for (const auto &a : n.attribute())
      if (a.name() == "perm")
        for (int k = 0; k < a.ints_size(); ++k)
          if (a.ints(k) == t.countAxis)
            return CountedExtent{t.count, k};
    return CountedExtent{t.count, rankOf(0) - 1 - t.countAxis};
  }
  if (op == "Split" && c == 0) {
    int64_t axis = attrInt("axis", 0);
    if (axis < 0)
      axis += rankOf(0);
    if (axis != t.countAxis)
      return CountedExtent{t.count, t.countAxis};
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && c == 0) {
    // The axes: an attribute before opset 13, else input 1 (a constant).
    std::vector<int64_t> axes;
    bool given = false;
    for (const auto &a : n.attribute())
      if (a.name() == "axes") {
        axes.assign(a.ints().begin(), a.ints().end());
        given = true;
      }
    if (n.input_size() > 1 && !n.input(1).empty()) {
      auto ax = tensors.find(n.input(1));
      if (ax == tensors.end() || !ax->second.constant)
        return refuse(c);
      for (int64_t k = 0; k < ax->second.constant->size(); ++k)
        axes.push_back(ax->second.constant->i(k));
      given = true;
    }
    int64_t rank = rankOf(0);
    if (op == "Unsqueeze") {
      int64_t outRank = rank + axes.size();
      std::vector<bool> inserted(outRank, false);
      for (int64_t a : axes)
        if (a + (a < 0 ? outRank : 0) >= 0 &&
            a + (a < 0 ? outRank : 0) < outRank)
          inserted[a + (a < 0 ? outRank : 0)] = true;
      int64_t kept = -1;
      for (int64_t k = 0; k < outRank; ++k)
        if (!inserted[k] && ++kept == t.countAxis)
          return CountedExtent{t.count, k};
    } else if (given) {
      int64_t before = 0;
      for (int64_t a : axes) {
        if (a < 0)
          a += rank;
        if (a == t.countAxis)
          return refuse(c);
        before += a < t.countAxis;
      }
      return CountedExtent{t.count, t.countAxis - before};
    }
  }
  return refuse(c);
}

llvm::Error Importer::importNode(::onnx::NodeProto &n, unsigned index) {
  node = &n;
  nodeName = n.name();
  for (int k = 0; k < n.output_size() && nodeName.empty(); ++k)
    nodeName = n.output(k);
  if (nodeName.empty())
    nodeName = "#" + std::to_string(index);
  attrMap.clear();
  usedAttrs.clear();
  error.clear();
  StringRef domain = n.domain() == "ai.onnx" ? "" : StringRef(n.domain());
  if (!domain.empty() && domain != kTrainingDomain &&
      domain != kMicrosoftDomain)
    return nodeError(n, "operators of domain '" + n.domain() +
                            "' are not supported");
  for (auto &a : *n.mutable_attribute()) {
    if (!a.ref_attr_name().empty())
      return nodeError(n, "attribute '" + a.name() +
                              "' refers to a function attribute, which is "
                              "not supported");
    attrMap[a.name()] = &a;
  }
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty() && !isValue(n.input(i)))
      return nodeError(n, "input '" + n.input(i) +
                              "' is not produced by any earlier node, input "
                              "or initializer");
  // The handlers read the inputs their operator requires without checking.
  if (const ::onnx::OpSchema *schema =
          ::onnx::OpSchemaRegistry::Schema(n.op_type(), opset, "")) {
    const auto &formals = schema->inputs();
    for (int i = 0; i < (int)formals.size(); ++i)
      if (formals[i].GetOption() == ::onnx::OpSchema::Single &&
          (i >= n.input_size() || n.input(i).empty()))
        return nodeError(n, "required input #" + Twine(i) + " ('" +
                                formals[i].GetName() + "') is missing");
    if (n.input_size() < schema->min_input())
      return nodeError(n, "has " + Twine(n.input_size()) +
                              " inputs, but the operator needs at least " +
                              Twine(schema->min_input()));
  }
  // A limit on untrusted models: compile time grows faster than linearly
  // in a node's inputs (bufferizing a Concat of 3,000 inputs: 6 s, of
  // 20,000: minutes).
  constexpr int kMaxNodeInputs = 4096;
  if (n.input_size() > kMaxNodeInputs)
    return nodeError(n, "has " + Twine(n.input_size()) +
                            " inputs, more than the " + Twine(kMaxNodeInputs) +
                            " mxc takes");
  // Sequences and optionals are known at compile time: their ops are
  // bookkeeping, or become tensor nodes (see ContainerNode).
  const OpEntry *entry = findOp(n.op_type(), opset, domain);
  bool takesContainer = llvm::any_of(n.input(), [&](const std::string &in) {
    return sequences.count(in) || absent.count(in);
  });
  if (entry && entry->container && (!entry->tensor || takesContainer)) {
    ContainerNode container(*this, n, index);
    return entry->container(container);
  }
  if (takesContainer)
    return nodeError(n, "sequence and optional inputs are not supported here "
                        "(only Identity and the sequence and optional "
                        "operators take them)");
  // bfloat16 values are only stored and converted: no other op computes
  // with them. Strings are only converted and passed along
  // (mxc-lower-strings).
  static const llvm::StringSet<> bf16Ops = {"Cast", "CastLike", "Identity",
                                            "Constant"};
  static const llvm::StringSet<> stringOps = {"Cast", "CastLike", "Identity"};
  auto typeError = [&](ArrayRef<std::string> names) -> llvm::Error {
    for (const std::string &name : names)
      if (!name.empty() && !bf16Ops.count(n.op_type()) && tensors.count(name) &&
          typeOf(tensors[name]) == TP::BFLOAT16)
        return nodeError(n, "bfloat16 tensor '" + name +
                                "' is not supported here (only Cast, "
                                "CastLike, Identity and Constant take or make "
                                "bfloat16)");
    for (const std::string &name : names)
      if (!name.empty() && !stringOps.count(n.op_type()) &&
          tensors.count(name) && typeOf(tensors[name]) == TP::STRING)
        return nodeError(n, "string tensor '" + name +
                                "' is not supported here (only Cast, "
                                "CastLike and Identity take or make "
                                "strings)");
    return llvm::Error::success();
  };
  auto names = [](const auto &field) {
    return std::vector<std::string>(field.begin(), field.end());
  };
  if (llvm::Error e = typeError(names(n.input())))
    return e;
  // Shape computations on run-time extents, followed symbolically by the
  // ops that make shapes; other ops take such values as data, computed at
  // run time (a decoder's Trilu diagonal from its cache's extent).
  static const llvm::StringSet<> symbolicOps = {
      "Add",     "Cast",    "Concat",   "ConstantOfShape",
      "Div",     "Flatten", "Gather",   "Identity",
      "Mul",     "Range",   "Reshape",  "Slice",
      "Squeeze", "Sub",     "Unsqueeze"};
  if (symbolicOps.contains(n.op_type()) &&
      llvm::any_of(n.input(), [&](const std::string &in) {
        auto t = tensors.find(in);
        return t != tensors.end() && t->second.sym;
      })) {
    if (failed(importSymbolic(n.op_type())))
      return nodeError(n, error);
    return llvm::Error::success();
  }
  // The Shape of a tensor whose extent the data decides: bounded integers.
  if (n.op_type() == "Shape" && n.input_size() == 1 &&
      tensors[n.input(0)].count) {
    if (failed(importCountedShape()))
      return nodeError(n, error);
    return llvm::Error::success();
  }
  // A tensor whose extent the data decides (NonZero's, ...) reaches only
  // the operators that keep that extent where it is or move it knowingly.
  auto counted = countedPropagation(n);
  if (!counted)
    return counted.takeError();
  if (failed(entry && entry->tensor
                 ? entry->tensor(*this, n.op_type())
                 : fail(unsupportedOpMessage(n.op_type(), opset))))
    return nodeError(n, error.empty() ? "failed to import" : error);
  propagateBounded();
  if (counted->count)
    for (int k = 0; k < n.output_size(); ++k)
      if (auto t = tensors.find(n.output(k)); t != tensors.end()) {
        t->second.count = counted->count;
        t->second.countAxis = counted->axis;
      }
  if (llvm::Error e = typeError(names(n.output())))
    return e;
  for (const auto &a : n.attribute())
    if (!usedAttrs.count(a.name()))
      return nodeError(n, "attribute '" + a.name() + "' is not supported");
  for (int k = 0; k < n.output_size(); ++k)
    if (!n.output(k).empty() && !tensors.count(n.output(k)))
      return nodeError(n, "output " + Twine(k) + " ('" + n.output(k) +
                              "') is not supported");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

Value Importer::compactCounted(Value v, Value count, int64_t axis) {
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  int64_t outer = numElements(shape.take_front(axis));
  int64_t inner = numElements(shape.drop_front(axis + 1));
  int64_t bound = shape[axis], n = numElements(shape);
  if (outer <= 1)
    return v; // the first count rows are its elements already
  // Element (o, j, i) of (outer, bound, inner) goes to (o * count + j) *
  // inner + i when j < count, after all those otherwise.
  Value o = iotaAlong(3, 0, outer), j = iotaAlong(3, 1, bound),
        i = iotaAlong(3, 2, inner);
  auto mul = [&](Value a, Value c) { return binary(a, c, "mul"); };
  auto add = [&](Value a, Value c) { return binary(a, c, "add"); };
  Value in = int64Scalar(inner);
  Value kept = add(mul(add(mul(o, count), j), in), i);
  Value rest = binary(int64Scalar(bound), count, "sub");
  Value dropped = add(add(mul(mul(int64Scalar(outer), count), in),
                          mul(add(mul(o, rest), binary(j, count, "sub")), in)),
                      i);
  Value flat = where(compare(j, count, "less"), kept, dropped);
  flat = reshape(
      op("mx.broadcast_to", flat, {na("shape", arr({outer, bound, inner}))}),
      {n});
  Value zeros =
      op("mx.broadcast_to",
         scalarParam(typeOf(Tensor{v, nullptr, nullptr}), 0.0, "zero"),
         {na("shape", arr({n}))});
  Value y = op("mx.scatter_elements", {zeros, flat, reshape(v, {n})},
               {na("axis", i64(0))});
  return reshape(y, shape);
}

llvm::Error Importer::addOutputs() {
  SmallVector<Value> outs, countValues;
  node = nullptr;
  // A sequence output is its elements, "y[0]", "y[1]", ...; an optional
  // output without a value is no output at all.
  std::vector<std::pair<std::string, const ::onnx::ValueInfoProto *>> named;
  for (const auto &o : model.graph().output()) {
    if (absent.count(o.name()))
      continue;
    auto seq = sequences.find(o.name());
    if (seq == sequences.end()) {
      named.push_back({o.name(), &o});
      continue;
    }
    for (const std::string &e : seq->second)
      named.push_back({o.name() + e.substr(e.rfind('[')), nullptr});
  }
  for (auto [outName, info] : named) {
    ::onnx::ValueInfoProto element;
    element.set_name(outName);
    if (!info) {
      // The element tensor under the sequence's own name.
      std::string src =
          sequences[outName.substr(0, outName.rfind('['))]
                   [std::stoul(outName.substr(outName.rfind('[') + 1))];
      tensors[outName] = tensors[src];
    }
    const ::onnx::ValueInfoProto &o = info ? *info : element;
    auto it = tensors.find(o.name());
    if (it == tensors.end())
      return makeError("'" + file + "': graph output '" + o.name() +
                       "' is not produced by any node");
    nodeName = o.name();
    error.clear();
    Value v = materialize(o.name());
    if (!v)
      return makeError("'" + file + "': graph output '" + o.name() +
                       "': " + error);
    // An extent the data decides: the elements to the front, row-major for
    // their count, which the forward returns after its outputs.
    int64_t countAxis = it->second.countAxis, countDim = -1;
    if (Value count = it->second.count) {
      auto found = llvm::find(countValues, count);
      countDim = found - countValues.begin();
      if (found == countValues.end()) {
        countValues.push_back(count);
        // Named as the model declares that extent (a dim_param), else after
        // the output.
        DimSpec d;
        d.name = o.name() + "_count";
        if (o.type().has_tensor_type() &&
            o.type().tensor_type().shape().dim_size() > countAxis) {
          const std::string &param =
              o.type().tensor_type().shape().dim(countAxis).dim_param();
          if (!param.empty() &&
              llvm::none_of(result.spec.dims,
                            [&](const DimSpec &e) { return e.name == param; }))
            d.name = param;
        }
        d.min = 0;
        d.max = cast<RankedTensorType>(v.getType()).getDimSize(countAxis);
        d.derived = d.counted = true;
        countDim = result.spec.dims.size();
        result.spec.counts.push_back(countDim);
        result.spec.dims.push_back(d);
      } else {
        countDim = result.spec.counts[countDim];
      }
      v = compactCounted(v, count, countAxis);
    }
    auto t = cast<RankedTensorType>(v.getType());
    int32_t dt = onnxType(t.getElementType());
    if (o.type().has_tensor_type()) {
      const auto &tt = o.type().tensor_type();
      if (tt.elem_type() != TP::UNDEFINED && tt.elem_type() != dt)
        return makeError("'" + file + "': graph output '" + o.name() +
                         "' is declared " + typeName(tt.elem_type()) +
                         " but computes " + typeName(dt));
      // Static extents the model declares must match what mxc computed
      // (guards against silently wrong semantics).
      if (tt.has_shape() && opts.inputShapes.empty()) {
        std::vector<int64_t> declared;
        bool agree = tt.shape().dim_size() == t.getRank();
        for (int i = 0; i < tt.shape().dim_size(); ++i) {
          const auto &d = tt.shape().dim(i);
          declared.push_back(d.has_dim_value() ? d.dim_value() : -1);
          agree = agree && (!d.has_dim_value() || i == countAxis ||
                            d.dim_value() == t.getDimSize(i));
        }
        if (!agree)
          return makeError("'" + file + "': graph output '" + o.name() +
                           "' is declared with shape " + shapeText(declared) +
                           " but computes " + shapeText(t.getShape()));
      }
    }
    outs.push_back(v);
    std::vector<int64_t> shape(t.getShape().begin(), t.getShape().end());
    if (countDim >= 0)
      shape[countAxis] = dimExtent(countDim);
    result.spec.outputs.push_back({o.name(), dtypeOf(dt), shape});
  }
  for (Value count : countValues)
    outs.push_back(count);
  func::ReturnOp::create(b, result.module->getLoc(), outs);
  func.setFunctionType(
      b.getFunctionType(body->getArgumentTypes(), TypeRange(ValueRange(outs))));
  return llvm::Error::success();
}

llvm::Expected<ImportedModel> Importer::run() {
  if (auto err = readOpset())
    return std::move(err);
  ctx.loadDialect<mx::MxDialect, func::FuncDialect>();
  result.module = ModuleOp::create(FileLineColLoc::get(&ctx, file, 0, 0));
  b.setInsertionPointToEnd(result.module->getBody());
  func = func::FuncOp::create(b, result.module->getLoc(), "forward",
                              b.getFunctionType({}, {}));
  body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);

  if (auto err = addInitializers())
    return std::move(err);
  if (auto err = addInputs())
    return std::move(err);
  unsigned index = 0;
  for (::onnx::NodeProto &n : *model.mutable_graph()->mutable_node()) {
    // A QuantizeLinear that ends a QDQ-quantized Conv or MatMul imports as
    // the integer operator instead (QdqFusion.cpp).
    if (n.op_type() == "QuantizeLinear" && n.domain().empty())
      if (auto fused = fuseAtQuantize(n)) {
        for (::onnx::NodeProto &m : *fused) {
          madeNodes.push_back(std::move(m));
          if (auto err = importNode(madeNodes.back(), index))
            return std::move(err);
        }
        ++index;
        continue;
      }
    if (auto err = importNode(n, index++))
      return std::move(err);
  }
  if (auto err = addOutputs())
    return std::move(err);
  if (failed(verify(*result.module)))
    return makeError("'" + file + "': the imported module does not verify");
  return std::move(result);
}

llvm::Expected<ImportedModel>
mxc::onnx::importModel(MLIRContext &context, StringRef path,
                       const ImportOptions &options) {
  ::onnx::ModelProto model;
  const char *invalid = "not a valid ONNX model (the protobuf cannot be "
                        "parsed; is the file truncated?)";
  uint64_t size;
  if (!llvm::sys::fs::file_size(path, size))
    if (llvm::Error e = checkInputBytes(path, size))
      return std::move(e);
  // Large initializers stay in the file until readTensor reads each into
  // its constant; a file whose wire format the walk refuses is parsed
  // whole, for protobuf's verdict.
  std::optional<std::string> skeleton = modelWithoutLargeInitializers(path);
  if (!skeleton || !model.ParseFromString(*skeleton)) {
    model.Clear();
    if (llvm::Error e = readProtoFile(path, model, invalid))
      return std::move(e);
  }
  skeleton.reset();
  if (!model.has_graph())
    return makeError("'" + path + "': the ONNX model has no graph");
  Importer importer(context, model, path.str(), options);
  return importer.run();
}
