// SPDX-License-Identifier: Apache-2.0
// The MXNet operators the mx dialect implements, by MXNet's registered
// name: the mx op each becomes, the attributes its name fixes (a family
// op's `op`), and which tensor operands are variables an MXNet symbol makes
// when they are not given (`<node>_<operand>`: learned parameters, labels,
// and auxiliary states). compiler/api/gen_symbol_ops.py reads this file and
// the ops' own definitions (operands, attributes, defaults, summaries)
// through `llvm-tblgen --dump-json` to write the C++ symbol API's operator
// functions.

#ifndef MXC_DIALECTS_MX_MXNETOPS_TD
#define MXC_DIALECTS_MX_MXNETOPS_TD

include "MxOps.td"

class MXNetOp<string mxnetName, Op mxOp, list<string> fixedAttrs = [],
              list<string> paramOperands = [], list<string> auxOperands = [],
              int outputs = 1> {
  string name = mxnetName;
  Op op = mxOp;
  // "attr=value" in MXNet's attribute syntax; hidden from the API.
  list<string> fixed = fixedAttrs;
  // Operands made as variables when absent (learned parameters, labels).
  list<string> params = paramOperands;
  // Operands that are auxiliary states (made when absent, not arguments).
  list<string> aux = auxOperands;
  // Outputs MXNet's operator has (visible or not; BatchNorm's mean and
  // variance, Dropout's mask), for the JSON's node_row_ptr.
  int numOutputs = outputs;
}

// Layers.
def : MXNetOp<"FullyConnected", Mx_FullyConnectedOp, [], ["weight", "bias"]>;
def : MXNetOp<"Convolution", Mx_ConvolutionOp, [], ["weight", "bias"]>;
def : MXNetOp<"Pooling", Mx_PoolingOp>;
def : MXNetOp<"Activation", Mx_ActivationOp>;
def : MXNetOp<"LeakyReLU", Mx_LeakyReLUOp, [], ["gamma"]>;
def : MXNetOp<"BatchNorm", Mx_BatchNormOp, [], ["gamma", "beta"],
              ["moving_mean", "moving_var"], 3>;
def : MXNetOp<"Dropout", Mx_DropoutOp, [], [], [], 2>;
def : MXNetOp<"LRN", Mx_LRNOp, [], [], [], 2>;
def : MXNetOp<"Embedding", Mx_EmbeddingOp, [], ["weight"]>;
def : MXNetOp<"softmax", Mx_SoftmaxOp, ["log=False"]>;
def : MXNetOp<"log_softmax", Mx_SoftmaxOp, ["log=True"]>;

// Loss heads.
def : MXNetOp<"SoftmaxOutput", Mx_SoftmaxOutputOp, [], ["label"]>;
def : MXNetOp<"LinearRegressionOutput", Mx_LinearRegressionOutputOp, [],
              ["label"]>;
def : MXNetOp<"LogisticRegressionOutput", Mx_LogisticRegressionOutputOp, [],
              ["label"]>;
def : MXNetOp<"MAERegressionOutput", Mx_MAERegressionOutputOp, [], ["label"]>;

// Elementwise: equal shapes (elemwise_*) or broadcast (broadcast_*).
foreach fn = ["add", "sub", "mul", "div"] in
  def : MXNetOp<"elemwise_" # fn, Mx_BinaryOp, ["op=" # fn]>;
foreach fn = ["add", "sub", "mul", "div", "maximum", "minimum", "power"] in
  def : MXNetOp<"broadcast_" # fn, Mx_BinaryOp, ["op=" # fn]>;
// [MXNet's word, mx.scalar's op]
foreach fn = [["plus", "add"], ["minus", "sub"], ["mul", "mul"],
              ["div", "div"], ["maximum", "maximum"], ["minimum", "minimum"],
              ["power", "power"]] in
  def : MXNetOp<"_" # fn[0] # "_scalar", Mx_ScalarOp,
                ["op=" # fn[1], "reverse=False"]>;
foreach fn = [["minus", "sub"], ["div", "div"], ["power", "power"]] in
  def : MXNetOp<"_r" # fn[0] # "_scalar", Mx_ScalarOp,
                ["op=" # fn[1], "reverse=True"]>;
foreach fn = ["exp", "log", "sqrt", "rsqrt", "square", "abs", "negative",
              "reciprocal", "relu", "sigmoid", "tanh", "softsign", "erf"] in
  def : MXNetOp<fn, Mx_UnaryOp, ["op=" # fn]>;
def : MXNetOp<"clip", Mx_ClipOp>;

// Contractions and reductions.
def : MXNetOp<"dot", Mx_DotOp, ["batch=False"]>;
def : MXNetOp<"batch_dot", Mx_DotOp, ["batch=True"]>;
foreach fn = ["sum", "mean", "max", "min"] in
  def : MXNetOp<fn, Mx_ReduceOp, ["op=" # fn]>;

// Shapes.
def : MXNetOp<"Flatten", Mx_FlattenOp>;
def : MXNetOp<"Reshape", Mx_ReshapeOp>;
def : MXNetOp<"transpose", Mx_TransposeOp>;
def : MXNetOp<"expand_dims", Mx_ExpandDimsOp>;
def : MXNetOp<"squeeze", Mx_SqueezeOp>;
def : MXNetOp<"Concat", Mx_ConcatOp>;
def : MXNetOp<"slice", Mx_SliceOp>;
def : MXNetOp<"SliceChannel", Mx_SliceChannelOp, [], [], [], 0>;
def : MXNetOp<"BlockGrad", Mx_BlockGradOp>;

#endif // MXC_DIALECTS_MX_MXNETOPS_TD
