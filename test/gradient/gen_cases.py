import json, os
D = "cases"
def T(shape): return "tensor<%sxf64>" % "x".join(map(str, shape)) if shape else "tensor<f64>"
def case(name, params, others, body, outs, spec=None, weight=True):
    """params/others: list of (name, shape); body: lines using them; outs: list of (value, shape)."""
    spec = spec or {}
    args = ["%%%s: %s {mx.param}" % (n, T(s)) for n, s in params] + ["%%%s: %s" % (n, T(s)) for n, s in others]
    lines = list(body)
    rets = []
    for i, (v, s) in enumerate(outs):
        if weight:
            args.append("%%r%d: %s" % (i, T(s)))
            lines.append('%%o%d = mx.binary %s, %%r%d {op = "mul"} : (%s, %s) -> %s' % (i, v, i, T(s), T(s), T(s)))
            rets.append(("%%o%d" % i, s))
        else:
            rets.append((v, s))
    txt = "// GRADCHECK: %s\n" % json.dumps(spec)
    txt += "func.func @forward(%s) -> (%s) {\n" % (", ".join(args), ", ".join(T(s) for _, s in rets))
    txt += "".join("  %s\n" % l for l in lines)
    txt += "  return %s : %s\n}\n" % (", ".join(v for v, _ in rets), ", ".join(T(s) for _, s in rets))
    open(os.path.join(D, name + ".mlir"), "w").write(txt)

def elementwise_case(name, ops, shape, kind="normal", mk=None):
    params = [("x%d" % i, shape) for i in range(len(ops))]
    body, outs = [], []
    for i, op in enumerate(ops):
        body.append(mk(i, op))
        outs.append(("%%y%d" % i, shape))
    case(name, params, [], body, outs, {"args": {p: kind for p, _ in params}})

S = [2, 3, 4]
elementwise_case("activation", ["relu", "sigmoid", "tanh", "softrelu", "softsign"], S,
    mk=lambda i, op: '%%y%d = mx.Activation %%x%d {act_type = "%s"} : %s' % (i, i, op, T(S)))
elementwise_case("unary", ["exp", "square", "abs", "negative", "sigmoid", "tanh", "erf", "softrelu", "softsign", "relu"], S,
    mk=lambda i, op: '%%y%d = mx.unary %%x%d {op = "%s"} : %s' % (i, i, op, T(S)))
elementwise_case("unary_positive", ["log", "sqrt", "rsqrt", "reciprocal"], S, "positive",
    mk=lambda i, op: '%%y%d = mx.unary %%x%d {op = "%s"} : %s' % (i, i, op, T(S)))
elementwise_case("leaky_relu", ["leaky", "elu", "selu", "gelu"], S,
    mk=lambda i, op: '%%y%d = mx.LeakyReLU %%x%d {act_type = "%s", slope = 0.3 : f64} : (%s) -> %s' % (i, i, op, T(S), T(S)))
case("prelu", [("x", [2, 3, 4]), ("gamma", [3])], [],
     ['%y = mx.LeakyReLU %x, %gamma {act_type = "prelu"} : (tensor<2x3x4xf64>, tensor<3xf64>) -> tensor<2x3x4xf64>'], [("%y", [2, 3, 4])])
sc = [("add", 1.5, False), ("sub", 1.5, True), ("mul", -2.0, False), ("div", 4.0, False), ("div", 2.0, True),
      ("power", 3.0, False), ("power", 1.7, True), ("maximum", 0.1, False), ("minimum", 0.2, False), ("sub", 0.5, False)]
elementwise_case("scalar", sc, S, "positive",
    mk=lambda i, op: '%%y%d = mx.scalar %%x%d {op = "%s", scalar = %r : f64, reverse = %s} : %s' % (i, i, op[0], op[1], "true" if op[2] else "false", T(S)))
elementwise_case("clip", [(-0.5, 0.7)], S,
    mk=lambda i, op: '%%y%d = mx.clip %%x%d {a_min = %r : f64, a_max = %r : f64} : %s' % (i, i, op[0], op[1], T(S)))
# binary with broadcasting: lhs (2,3,4), rhs (3,1) and (4)
for op, kind in [("add", "normal"), ("sub", "normal"), ("mul", "normal"), ("div", "positive"), ("maximum", "normal"), ("minimum", "normal"), ("power", "positive")]:
    case("binary_" + op, [("a", [2, 3, 4]), ("b", [3, 1])], [],
         ['%%y = mx.binary %%a, %%b {op = "%s"} : (tensor<2x3x4xf64>, tensor<3x1xf64>) -> tensor<2x3x4xf64>' % op,
          '%%z = mx.binary %%b, %%a {op = "%s"} : (tensor<3x1xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>' % op],
         [("%y", [2, 3, 4]), ("%z", [2, 3, 4])], {"args": {"a": kind, "b": kind}})
case("fc_noflatten", [("x", [2, 3, 5]), ("w", [4, 5]), ("b", [4])], [],
     ['%y = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64, flatten = false} : (tensor<2x3x5xf64>, tensor<4x5xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>'], [("%y", [2, 3, 4])])
case("fc_flatten", [("x", [2, 3, 2]), ("w", [4, 6])], [],
     ['%y = mx.FullyConnected %x, %w {num_hidden = 4 : i64, no_bias = true} : (tensor<2x3x2xf64>, tensor<4x6xf64>) -> tensor<2x4xf64>'], [("%y", [2, 4])])
case("conv2d_stride_pad", [("x", [2, 3, 6, 6]), ("w", [4, 3, 3, 3]), ("b", [4])], [],
     ['%y = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, num_filter = 4 : i64} : (tensor<2x3x6x6xf64>, tensor<4x3x3x3xf64>, tensor<4xf64>) -> tensor<2x4x3x3xf64>'], [("%y", [2, 4, 3, 3])])
case("conv2d_groups_dilate", [("x", [1, 4, 7, 7]), ("w", [6, 2, 3, 3])], [],
     ['%y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, dilate = array<i64: 2, 2>, num_filter = 6 : i64, num_group = 2 : i64, no_bias = true} : (tensor<1x4x7x7xf64>, tensor<6x2x3x3xf64>) -> tensor<1x6x3x3xf64>'], [("%y", [1, 6, 3, 3])])
case("conv1d", [("x", [2, 2, 8]), ("w", [3, 2, 3])], [],
     ['%y = mx.Convolution %x, %w {kernel = array<i64: 3>, stride = array<i64: 2>, num_filter = 3 : i64, no_bias = true} : (tensor<2x2x8xf64>, tensor<3x2x3xf64>) -> tensor<2x3x3xf64>'], [("%y", [2, 3, 3])])
case("pool_max", [("x", [1, 2, 5, 5])], [],
     ['%y = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64>'], [("%y", [1, 2, 3, 3])])
case("pool_avg", [("x", [1, 2, 5, 5]), ("x2", [1, 2, 5, 5])], [],
     ['%y = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pool_type = "avg", count_include_pad = false} : (tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64>',
      '%z = mx.Pooling %x2 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "avg", pooling_convention = "full"} : (tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64>'], [("%y", [1, 2, 3, 3]), ("%z", [1, 2, 3, 3])])
case("pool_sum_global", [("x", [2, 3, 4, 4]), ("x2", [2, 3, 4, 4])], [],
     ['%y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 1, 1>, pool_type = "sum"} : (tensor<2x3x4x4xf64>) -> tensor<2x3x3x3xf64>',
      '%z = mx.Pooling %x2 {global_pool = true, pool_type = "max"} : (tensor<2x3x4x4xf64>) -> tensor<2x3x1x1xf64>'], [("%y", [2, 3, 3, 3]), ("%z", [2, 3, 1, 1])])
# Dilated max pooling (the only dilated pooling mx.Pooling allows): 2-D with
# stride and padding, 1-D with the full convention reaching past the input.
case("pool_max_dilate", [("x", [1, 2, 7, 8]), ("x2", [2, 3, 10])], [],
     ['%y = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 1>, dilate = array<i64: 2, 3>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x2x7x8xf64>) -> tensor<1x2x4x7xf64>',
      '%z = mx.Pooling %x2 {kernel = array<i64: 3>, stride = array<i64: 2>, dilate = array<i64: 2>, pool_type = "max", pooling_convention = "full"} : (tensor<2x3x10xf64>) -> tensor<2x3x4xf64>'], [("%y", [1, 2, 4, 7]), ("%z", [2, 3, 4])])
# ONNX MaxPool with Indices: overlapping, padded, dilated windows (one element
# can be the maximum of several), row-major and column-major indices.
case("max_pool_with_indices", [("x", [2, 2, 6, 6]), ("x2", [1, 3, 5, 4])], [],
     ['%p:2 = mx.max_pool_with_indices %x {kernel = array<i64: 3, 2>, stride = array<i64: 2, 2>, dilate = array<i64: 1, 2>, pad = array<i64: 1, 0, 1, 1>} : (tensor<2x2x6x6xf64>) -> (tensor<2x2x3x3xf64>, tensor<2x2x3x3xi64>)',
      '%q:2 = mx.max_pool_with_indices %x2 {kernel = array<i64: 2, 2>, storage_order = 1 : i64} : (tensor<1x3x5x4xf64>) -> (tensor<1x3x4x3xf64>, tensor<1x3x4x3xi64>)'],
     [("%p#0", [2, 2, 3, 3]), ("%q#0", [1, 3, 4, 3])])
case("batchnorm_train", [("x", [4, 3, 2, 2]), ("gamma", [3]), ("beta", [3])], [("mm", [3]), ("mv", [3])],
     ['%y = mx.BatchNorm %x, %gamma, %beta, %mm, %mv {eps = 1.0e-3 : f64, momentum = 0.9 : f64, fix_gamma = false} : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<4x3x2x2xf64>'],
     [("%y", [4, 3, 2, 2])],
     {"training": True, "aux_args": ["mm", "mv"], "args": {"mv": "positive"},
      "check_aux": "[0.9 * x['mm'] + 0.1 * x['x'].mean(axis=(0, 2, 3)), 0.9 * x['mv'] + 0.1 * x['x'].var(axis=(0, 2, 3))]"})
case("shapes", [("x", [2, 3, 4])], [],
     ['%a = mx.Reshape %x {shape = array<i64: 0, -1>} : (tensor<2x3x4xf64>) -> tensor<2x12xf64>',
      '%b = mx.transpose %x {axes = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>',
      '%d = mx.slice %x {begin = array<i64: 0, 1, 0>, end = array<i64: 2, 5, 4>, step = array<i64: 1, 2, 1>} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>',
      '%e:2 = mx.SliceChannel %x {num_outputs = 2 : i64, axis = 2 : i64} : (tensor<2x3x4xf64>) -> (tensor<2x3x2xf64>, tensor<2x3x2xf64>)',
      '%f = mx.expand_dims %e#1 {axis = 1 : i64} : (tensor<2x3x2xf64>) -> tensor<2x1x3x2xf64>',
      '%g = mx.Flatten %f : (tensor<2x1x3x2xf64>) -> tensor<2x6xf64>'],
     [("%a", [2, 12]), ("%b", [4, 2, 3]), ("%d", [2, 1, 4]), ("%e#0", [2, 3, 2]), ("%g", [2, 6])])
case("softmax", [("x", [2, 3, 4]), ("x2", [2, 3, 4])], [],
     ['%y = mx.softmax %x {axis = 1 : i64, temperature = 2.0 : f64} : tensor<2x3x4xf64>',
      '%z = mx.softmax %x2 {axis = -1 : i64, log = true} : tensor<2x3x4xf64>'], [("%y", [2, 3, 4]), ("%z", [2, 3, 4])])
case("dot", [("a", [3, 4]), ("b", [5, 4]), ("c", [4, 3]), ("p", [2, 3, 4]), ("q", [2, 4, 5])], [],
     ['%y = mx.dot %a, %b {transpose_b = true} : (tensor<3x4xf64>, tensor<5x4xf64>) -> tensor<3x5xf64>',
      '%z = mx.dot %c, %a {transpose_a = true, transpose_b = true} : (tensor<4x3xf64>, tensor<3x4xf64>) -> tensor<3x3xf64>',
      '%w = mx.dot %p, %q {batch = true} : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>'],
     [("%y", [3, 5]), ("%z", [3, 3]), ("%w", [2, 3, 5])])
case("reduce", [("x", [2, 3, 4]), ("x2", [2, 3, 4]), ("x3", [2, 3, 4]), ("x4", [2, 3, 4])], [],
     ['%y = mx.reduce %x {op = "sum", axis = array<i64: 0, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>',
      '%z = mx.reduce %x2 {op = "mean", axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf64>) -> tensor<2x1x4xf64>',
      '%w = mx.reduce %x3 {op = "max", axis = array<i64: 2>} : (tensor<2x3x4xf64>) -> tensor<2x3xf64>',
      '%v = mx.reduce %x4 {op = "min", axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf64>) -> tensor<3xf64>'],
     [("%y", [3]), ("%z", [2, 1, 4]), ("%w", [2, 3]), ("%v", [3])])
case("embedding", [("w", [6, 3])], [("ids", [2, 4])],
     ['%y = mx.Embedding %ids, %w {input_dim = 6 : i64, output_dim = 3 : i64} : (tensor<2x4xf64>, tensor<6x3xf64>) -> tensor<2x4x3xf64>'],
     [("%y", [2, 4, 3])], {"args": {"ids": "int:6"}})
case("softmax_output_batch", [("x", [4, 5])], [("label", [4])],
     ['%y = mx.SoftmaxOutput %x, %label {grad_scale = 2.0 : f64, normalization = "batch"} : (tensor<4x5xf64>, tensor<4xf64>) -> tensor<4x5xf64>'],
     [("%y", [4, 5])], {"loss": "softmax_ce", "label": "label", "grad_scale": 2.0, "normalization": "batch", "args": {"label": "class:5"}}, weight=False)
case("softmax_output_ignore", [("x", [6, 3])], [("label", [6])],
     ['%y = mx.SoftmaxOutput %x, %label {use_ignore = true, ignore_label = 0.0 : f64, normalization = "valid"} : (tensor<6x3xf64>, tensor<6xf64>) -> tensor<6x3xf64>'],
     [("%y", [6, 3])], {"loss": "softmax_ce", "label": "label", "use_ignore": True, "ignore_label": 0, "normalization": "valid", "args": {"label": "class:3"}}, weight=False)
case("softmax_output_multi", [("x", [2, 3, 4])], [("label", [2, 4])],
     ['%y = mx.SoftmaxOutput %x, %label {multi_output = true} : (tensor<2x3x4xf64>, tensor<2x4xf64>) -> tensor<2x3x4xf64>'],
     [("%y", [2, 3, 4])], {"loss": "softmax_ce", "label": "label", "multi_output": True, "args": {"label": "class:3"}}, weight=False)
case("linear_regression", [("x", [4, 2])], [("label", [4, 2])],
     ['%y = mx.LinearRegressionOutput %x, %label {grad_scale = 0.5 : f64} : (tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>'],
     [("%y", [4, 2])], {"loss": "l2", "label": "label", "grad_scale": 0.5}, weight=False)
case("logistic_regression", [("x", [4, 1])], [("label", [4])],
     ['%y = mx.LogisticRegressionOutput %x, %label : (tensor<4x1xf64>, tensor<4xf64>) -> tensor<4x1xf64>'],
     [("%y", [4, 1])], {"loss": "logistic", "label": "label", "args": {"label": "int:2"}}, weight=False)
case("make_loss_two_uses", [("x", [3, 4])], [],
     ['%s = mx.unary %x {op = "square"} : tensor<3x4xf64>',
      '%t = mx.binary %s, %x {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>',
      '%y = mx.MakeLoss %t {grad_scale = 3.0 : f64} : tensor<3x4xf64>'],
     [("%y", [3, 4])], {"loss": "sum", "grad_scale": 3.0}, weight=False)
case("block_grad", [("x", [3, 4])], [],
     ['%s = mx.unary %x {op = "exp"} : tensor<3x4xf64>',
      '%b = mx.BlockGrad %s : tensor<3x4xf64>',
      '%t = mx.binary %b, %x {op = "mul"} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>'],
     [("%t", [3, 4])], {"expect": "[x['r0'] * np.exp(x['x'])]"})
case("concat", [("x", [2, 3, 4]), ("c", [2, 2, 4])], [],
     ['%cc = mx.Concat %x, %c {dim = 1 : i64} : (tensor<2x3x4xf64>, tensor<2x2x4xf64>) -> tensor<2x5x4xf64>'], [("%cc", [2, 5, 4])])
