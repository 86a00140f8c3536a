// SPDX-License-Identifier: Apache-2.0
// Every mxc pass, declared once: tablegen generates the base classes and the
// registration used by mxc-opt and the mxc pipeline.
#ifndef MXC_PASSES_PASSES_TD
#define MXC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMxToLinalgPass : Pass<"mxc-convert-mx-to-linalg"> {
  let summary = "Lower mx ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Every mx op becomes linalg.generic (or linalg.transpose / tensor ops)
    computing MXNet's formula. Before: `mx.Activation %x {act_type = "relu"}`;
    after: a linalg.generic whose body is `arith.maxnumf %in, %zero`.
    Fails, naming the op, if an mx op has no lowering. With `kernels`
    (the default), float32 FullyConnected, 2-D Convolution, dot and the
    common matmul shapes become mx.kernel.matmul / mx.kernel.conv2d
    instead: calls into the runtime's packed GEMM.
  }];
  let options = [Option<"kernels", "kernels", "bool", "true",
                        "Lower float32 contractions to runtime kernel calls">];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mxc::mx::MxDialect"];
}

def ReportGradientsPass : Pass<"mxc-report-gradients", "::mlir::ModuleOp"> {
  let summary = "Call mxrt_output_ready as each gradient output is final";
  let description = [{
    In the training library's @grad (mxc-train-step's; a bare mxc-gradient
    function may run without libmxrt and is left alone),
    inserts after the last operation of the entry block that touches an
    out-parameter (or a view of it) a call `mxrt_output_ready(i)`, i its
    output index, so that the runtime can tell the app (an output callback)
    that the gradient is final while the rest of the backward pass runs:
    a data-parallel app starts that gradient's communication then. Runs on
    bufferized code, after the memory plan and the kernel calls, when the
    order of the writes is the one that executes.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def MemrefCopyToLinalgPass : Pass<"mxc-memref-copy-to-linalg"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    Bufferization copies into strided views (e.g. for tensor.pad) with
    memref.copy, which lowers to a call into MLIR's C runner library when a
    layout is not the identity. As linalg.copy the copy becomes plain loops,
    so a compiled model needs nothing but libmxrt.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuseElementwisePass
    : Pass<"mxc-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg.generic ops";
  let description = [{
    After mxc-convert-mx-to-linalg: an elementwise linalg.generic whose
    result has a single use, by another elementwise linalg.generic, is merged
    into it (MLIR's elementwise fusion patterns), so a chain of pointwise mx
    ops (bias, activation, scale, residual add) runs as one loop nest
    without intermediate buffers. A producer with more than one use is not
    fused (it would be recomputed per consumer).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def HoistConstantLoadsPass
    : Pass<"mxc-hoist-constant-loads", "::mlir::func::FuncOp"> {
  let summary = "Load a loop nest's constants outside its innermost loop";
  let description = [{
    After convert-linalg-to-parallel-loops: in an scf.parallel of two loops
    or more, a memref.load of a function argument marked `mxc.constant`
    (a parameter the function never writes) at indices that do not involve
    the innermost loop, and the pure arithmetic on such values, move out
    of that loop: the nest splits into the outer loops and the innermost
    one. LLVM cannot move them itself (any store in the loop might write
    the parameter), and a gather's row index or a per-channel weight loaded
    per element keeps the innermost loop scalar (the row pass of a bilinear
    Resize to 224x224).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def CollapseLoopsPass : Pass<"mxc-collapse-loops", "::mlir::func::FuncOp"> {
  let summary = "Merge the loops of linalg.generic ops that walk memory in order";
  let description = [{
    After bufferization and the memory plan: each run of consecutive loops
    of a linalg.generic on memrefs (same iterator type, contiguous in every
    operand: the h and w of an NCHW elementwise op, or all its axes) becomes
    one loop (MLIR's collapse-dimensions pattern, with memref.collapse_shape
    views of the operands), so the innermost loop is long and unit-stride.
    With the short static loops of a 32x32 image, LLVM otherwise unrolls the
    innermost loop whole and vectorizes the one outside it with gathers.
    The first loop of more than one trip stays as it is (the one
    mxc-outline-parallel-loops splits over the threads). Ops that read
    their loop indices, and windows (maps other than projected
    permutations), keep their loops. (On tensors, before the plan, the
    reshapes it adds kept the planner from sharing buffers in place.)
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def GpuTileLoopsPass : Pass<"mxc-gpu-tile-loops", "::mlir::func::FuncOp"> {
  let summary = "Split each loop nest's innermost parallel dimension into GPU threads";
  let description = [{
    The CUDA pipeline, after convert-linalg-to-parallel-loops: the innermost
    dimension of every outermost scf.parallel is tiled by `threads`, with a
    guard (scf.if) instead of min bounds, and the loops are mapped
    (gpu.par_loop_mappings): the tile's `threads` iterations to the threads
    of a block, the tiles' dimensions from the innermost outwards to the
    grid's x, y and z (y and z only up to 65535), any others serially in
    each thread. With gpu-map-parallel-loops' mapping instead (outermost
    dimension first, nested loop to threads), each block ran one thread: a
    ResNet-20 convolution's 16 x 32 output rows as 512 blocks of one thread
    each, walking its row serially.
  }];
  let options = [Option<"threads", "threads", "int64_t", "256",
                        "Threads of a GPU block (the innermost tile)">];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect"];
}

def CheckGpuHostPass : Pass<"mxc-check-gpu-host", "::mlir::func::FuncOp"> {
  let summary = "Refuse host code that would touch device memory";
  let description = [{
    The CUDA pipeline, after convert-parallel-loops-to-gpu: a host
    function's buffers are all device memory, so any op left outside a
    gpu.launch that reads or writes memory (a loop nest no kernel took, a
    copy) is an error naming it, at compile time, instead of a library
    that would crash when run.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MergeGpuModulesPass : Pass<"mxc-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    The CUDA pipeline, after gpu-kernel-outlining (one gpu.module per
    kernel, `@forward_kernel_3::@forward_kernel`): the kernels move into one
    module, each named after the module it came from
    (`@mxc_kernels::@forward_kernel_3`), and the launches follow. The
    toolkit's ptxas and fatbinary then run once per library instead of once
    per kernel: ResNet-20's training library (1,593 kernels) compiled in
    1 min 15 s with a module each (see docs/cuda.md). Modules with targets
    or anything but kernels are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MergeGpuObjectsPass : Pass<"mxc-merge-gpu-objects", "::mlir::ModuleOp"> {
  let summary = "Merge each kernel's per-architecture fat binaries into one";
  let description = [{
    The CUDA pipeline with several architectures, after
    gpu-module-to-binary{format=fatbin}: a gpu.binary holds one fat binary
    per target, and the library embeds only one object of each kernel
    (gpu.select_object). This merges them: one fat binary whose entries are
    every target's (its machine code and its PTX), which the driver picks
    from when it loads the module, as a fat binary made by `fatbinary`
    with several images. A gpu.binary of one object is left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def ReadOnlyArgsPass : Pass<"mxc-read-only-args", "::mlir::func::FuncOp"> {
  let summary = "Mark tensor arguments not writable for bufferization";
  let description = [{
    Inputs and parameters are read only (the entry ABI; parameters live in
    the library's read-only weights): every tensor argument gets
    `bufferization.writable = false`, so that one-shot-bufferize copies
    before an op that updates a tensor in place (a scatter) would write into
    the caller's buffer. A key/value cache (`mxc.cache`, mxc --kv-cache=in-place) is
    left writable: the step appends to it in place.
  }];
}

def DistinctResultsPass : Pass<"mxc-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Return a buffer returned more than once as copies";
  let description = [{
    Runs after one-shot-bufferize, before buffer-results-to-out-params,
    which cannot take one buffer as two results (it crashed on a model
    whose two outputs are one value: an ONNX output read through an
    Identity that is an output too, as mxc --quantize's calibration
    models have). Each repeat of a func.return operand becomes a fresh
    allocation of its shape with a memref.copy of it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ResultsInPlacePass : Pass<"mxc-results-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute results with run-time extents in the caller's outputs";
  let description = [{
    Runs after mxc-bind-dims. buffer-results-to-out-params writes a result
    of a static shape straight into the caller's output (hoist-static-allocs)
    but one with run-time extents into a buffer of its own, copied into the
    output at the end: a decoder's growing key/value caches were copied
    twice per step (the past into the Concat's buffer, that buffer into the
    output). A `memref.copy` of an allocation into an out-parameter that
    nothing else uses, the allocation of the same type and not read after
    the copy, is removed and the allocation replaced by the output. Outputs
    never overlap inputs (the runtime checks it), so writing them early is
    safe.
  }];
}

def FlattenEmptyMemrefArgsPass
    : Pass<"mxc-flatten-empty-memref-args", "::mlir::func::FuncOp"> {
  let summary = "Pass empty memref arguments as memref<0xT>";
  let description = [{
    An argument such as memref<2x0x3xf32> (identity strides [0, 3, 1]) has
    no bare-pointer form in func-to-llvm, which the entry ABI uses for every
    tensor. The argument becomes memref<0xf32>, and its uses, which cannot
    touch any element, read an empty memref.alloca instead.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LowerStringsPass : Pass<"mxc-lower-strings", "::mlir::ModuleOp"> {
  let summary = "Turn string tensors into tensors of 64-bit string handles";
  let description = [{
    A string element at run time is the runtime's `const char *` (an i64
    here). Each mx.cast from numbers to strings becomes a linalg.generic
    calling mxrt_string_from_float / mxrt_string_from_int per element
    (after an mx.cast widening to f64 / i64), and each cast from strings a
    generic calling mxrt_string_to_float / mxrt_string_to_int (then an
    mx.cast narrowing to the target). Every other string value is only
    passed along (function arguments and results), so its type becomes the
    same shape of i64; any other op taking strings is an error. Runs before
    the lowering to linalg; the calls keep those loops off the thread pool,
    so the strings they make live in the arena of the instance call.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ContiguousKernelOperandsPass
    : Pass<"mxc-contiguous-kernel-operands", "::mlir::func::FuncOp"> {
  let summary = "Give kernel ops that read contiguous buffers copies of "
                "strided views";
  let description = [{
    The convolution kernels and the pooling gradient read contiguous NCHW
    buffers. A bufferized kernel op given a strided view (a value that
    bufferization placed in a slice of a Concat's buffer, as Inception-BN's
    pooling outputs) gets a fresh buffer copied from the view before it,
    and, for its init, copied back after it. Runs before mxc-plan-memory,
    so the copies live in the arena like every other intermediate.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def KernelsToCallsPass : Pass<"mxc-kernels-to-calls", "::mlir::ModuleOp"> {
  let summary = "Turn mx.kernel.* ops on memrefs into calls into libmxrt";
  let description = [{
    Each bufferized mx.kernel.matmul / mx.kernel.conv2d becomes a call of
    mxrt_kernel_sgemm / mxrt_kernel_sconv2d (runtime/include/mxrt/
    kernels.h), passing each buffer's address (aligned pointer plus offset)
    and its strides in elements, so views and transposes need no copies.
    An operand that is (a view of) a function argument marked
    `mxc.constant` (an inference model's weights) is flagged constant, so
    the runtime packs it once per process instead of on every call.
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", "\"mxrt_kernel_\"",
           "The called functions' prefix: mxrt_kernel_ (the CPU's kernels, "
           "mxrt/kernels.h) or mxrt_cuda_ (cuBLAS / cuDNN, the same "
           "arguments on device memory; mxrt/cuda_kernels.h)">,
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "fp32, or bf16: float matrix products and convolutions round "
           "their operands to bfloat16 and sum in float32 "
           "(MXRT_KERNEL_BF16)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def OutlineParallelLoopsPass
    : Pass<"mxc-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Run big parallel loops on the runtime's thread pool";
  let description = [{
    Each outermost scf.parallel of a function (no results, no calls
    inside) whose work, counted as operations executed with loops' trip
    counts, is at least `min-work` moves into a private
    function `<func>_parallel<N>(ctx, begin, end)` that runs iterations
    [begin, end) of its first dimension with more than one iteration; the
    loop becomes a call of `mxrt_parallel_for(body, ctx, trips)`
    (runtime/include/mxrt/kernels.h), which splits the range over the
    calling instance's thread pool. `ctx` is a stack struct of the values
    the loop reads from outside: memrefs as their LLVM descriptors (through
    unrealized casts the LLVM conversions resolve), index values as i64,
    scalars as they are; constants are recomputed in the body instead. A
    loop with bounds known only at run time has its work computed before
    it: the call runs when it is at least `min-work`, the loop in place
    otherwise (scf.if).
  }];
  let options = [Option<"minWork", "min-work", "int64_t", /*default=*/"131072",
                        "Smallest work (operations executed) to parallelize">];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def ApproximateMathPass : Pass<"mxc-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Polynomial approximations of float32 math functions";
  let description = [{
    math.tanh, exp, expm1, log, log1p, log2, erf, atan, sin, cos and the like
    on float32 become MLIR's polynomial approximations (arith only, accurate
    to a few ULP), so that the loops computing them vectorize instead of
    calling libm's scalar functions element by element (tanh through libm
    was over half of LeNet's time at batch 64).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def PoolBeforeActivationPass
    : Pass<"mxc-pool-before-activation", "::mlir::func::FuncOp"> {
  let summary = "Max-pool before a monotonic activation instead of after";
  let description = [{
    On mx ops, before lowering: mx.Pooling (max) of an mx.Activation
    (sigmoid, tanh, softrelu or softsign; its only use) becomes the
    Activation of the Pooling: f(max(a, b)) = max(f(a), f(b)) for a
    non-decreasing f, and the activation then runs on the pooled tensor
    (LeNet's tanh on a quarter of the elements). Not where a window holds
    only padding (it would pool to -inf before f and to f(-inf) after), and
    not for ReLU, which the convolution before it takes in its epilogue.
  }];
}

def InPlaceCachesPass : Pass<"mxc-in-place-caches", "::mlir::func::FuncOp"> {
  let summary = "Key/value caches appended to in place (tests of mxc --kv-cache=in-place)";
  let description = [{
    On mx ops, before lowering. An argument that an mx.Concat of two
    operands extends along a dynamic axis, the Concat's result returned, is
    a decoder's key/value cache (past -> Concat -> present): it becomes a
    buffer of `capacity` on that axis (marked `mxc.cache`, read and
    written), a new argument tensor<0x?xi8> (`mxc.length`) gives the filled
    extent, the new rows go in by tensor.insert_slice at it, and the
    Concat's readers read the cache up to the new extent. The output goes;
    the updated cache and an empty tensor whose extent is the new length are
    returned until mxc-cache-results drops them after bufferization. mxc
    calls the rewrite itself (makeCachesInPlace) with each cache's capacity
    from its dimension's bound; this pass, every argument an input and one
    capacity for all, is for tests.
  }];
  let options = [
    Option<"capacity", "capacity", "int64_t", "-1",
           "the caches' extent along the appended axis">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CacheResultsPass : Pass<"mxc-cache-results", "::mlir::func::FuncOp"> {
  let summary = "Drop the results mxc-in-place-caches returns until bufferization";
  let description = [{
    Runs after one-shot-bufferize, before buffer-results-to-out-params. A
    result marked `mxc.cache_of = N` (the cache written in place) goes; when
    bufferization wrote the cache elsewhere (the old contents read after the
    append), a copy into argument N keeps it correct, with a warning. A
    result marked `mxc.cache_fill_of = N` goes too, its extent's model
    dimension (from mxc.dims, which mxc-shape-functions derived) recorded in
    the function attribute `mxc.cache_fills` as (N, dimension) pairs: the
    runtime checks that length against the cache's capacity.
  }];
}

def ShareConcatPrefixesPass
    : Pass<"mxc-share-concat-prefixes", "::mlir::func::FuncOp"> {
  let summary = "A Concat of inputs another Concat begins with reads that Concat";
  let description = [{
    On mx ops, before lowering: an mx.Concat whose first n >= 2 inputs are,
    in order and along the same axis, all the inputs of an earlier mx.Concat
    of the same block joins that Concat's result and its remaining inputs
    instead (the longest such prefix wins). A DenseNet block's layer i
    concatenates every feature before it: i copy loops each, and a block of
    48 layers gave 1,176 of them; after the rewrite each layer's Concat is
    two copies (the previous Concat and the newest feature), the same bytes
    in a tenth of the code (docs/compile-time.md).
  }];
}

def ReluIntoBatchNormGradPass
    : Pass<"mxc-relu-into-batchnorm-grad", "::mlir::func::FuncOp"> {
  let summary = "Fold a ReLU's gradient into the BatchNormTrainGrad it feeds";
  let description = [{
    On mx ops, before lowering: mx.BatchNormTrainGrad of the ReLU gradient
    (mx.grad_elemwise "unary.relu", read nowhere else) of ReLU(y), y the
    output of the mx.BatchNormTrain whose statistics it differentiates,
    becomes one BatchNormTrainGrad {relu_out} of the ReLU's output gradient
    that recomputes the mask from the BatchNorm's input (which it reads
    anyway). The conv -> BatchNorm -> ReLU -> conv layers of a training
    step then read two activation-sized tensors and write one for the
    BatchNorm's backward (was: the ReLU's output and gradient read, the
    masked gradient written and read twice).
  }];
}

def FuseKernelEpiloguesPass
    : Pass<"mxc-fuse-kernel-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fold a residual add and a ReLU into mx.kernel.* ops";
  let description = [{
    On tensors, after mx -> linalg: an elementwise add of a kernel op's
    result (its only use) and another tensor of the same shape becomes the
    kernel accumulating into that tensor (accumulate = true, the tensor as
    init); a ReLU (max(x, 0)) of a kernel op's result (its only use) sets
    relu = true. ResNet's conv -> add shortcut -> relu becomes one kernel
    call. A kernel result with another use is left alone.
  }];
}

def ConvLayoutPass : Pass<"mxc-conv-layout", "::mlir::func::FuncOp"> {
  let summary = "Run chains of convolutions channels last (NHWC)";
  let description = [{
    On tensors, after the kernel epilogues are fused: convolutions that
    the runtime's NHWC kernels compute at least as fast as its NCHW ones
    (small layers, ungrouped, at most 1024 output pixels a channel and
    64 x 64 x 3 x 3 weights; 3x3 stride-1 layers of constant weights and
    channels in whole vectors of 16, which take NHWC Winograd; 1x1
    stride-2 layers of at most 128 channels and 3x3 stride-2 layers of
    at most 64), linked
    directly, one's result another's input or accumulator, form a chain;
    a chain of at least two runs channels last (nhwc = true), with
    linalg.transpose ops only where the chain meets the rest of the
    function. There each thread's share of a layer is one contiguous
    block, which keeps two threads on far cores from fighting over cache
    lines (docs/kernels.md). `policy`: auto (as above), all (every
    convolution and every convolution gradient, x and dy channels last)
    or none. With `precision` bf16, auto also takes every convolution
    that runs in bfloat16 (mxc::bf16Convolution) with at least 16 input
    channels a group: bfloat16's windows are gathered and paired once per
    pixel channels last, against once per tap and row of im2col
    (ResNet-50, batch 1: 26.6 against 30.3 ms on one thread, 18.8 against
    20.1 on two; docs/kernels.md).
  }];
  let options = [
    Option<"policy", "policy", "std::string", /*default=*/"\"auto\"",
           "auto, all or none">,
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "fp32 or bf16 (as mxc-kernels-to-calls')">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def QuantizedLayoutPass : Pass<"mxc-quantized-layout", "::mlir::func::FuncOp"> {
  let summary = "Run 8-bit convolutions and their elementwise links channels last";
  let description = [{
    On tensors, after elementwise fusion: every mx.kernel.qconv2d goes
    channels last (nhwc = true: the runtime's 8-bit convolution reads each
    output pixel's window as runs of its input's channels, with no window
    buffer, and writes whole rows of filters; docs/quantization.md), with
    linalg.transpose ops at its input and result; a transpose back to NCHW
    then moves below an elementwise linalg.generic whose rank-4 operands
    all come channels last, where it moves no more bytes (a quantized
    residual add: two 8-bit inputs, one 8-bit result), and a transpose of
    a transpose cancels. What is left are transposes where the channels-last
    region meets the rest of the function (the network's input, a pooling,
    a dequantized output).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ShapeFunctionsPass : Pass<"mxc-shape-functions", "::mlir::ModuleOp"> {
  let summary = "Derive each dynamic function's output extents as a function";
  let description = [{
    Runs on tensors, before bufferization. A public function with the
    `mxc.dims` attribute (one array per argument, then per result: the
    model dimension each axis is, -1 where static) whose results have
    dynamic extents gets a sibling `<name>_shapes` that returns each such
    extent (result by result, axis by axis) computed from its arguments'
    extents alone: a copy of the body whose result extents are reified and
    folded back to the arguments', every other op dropped. Its
    `mxc.shape_of` lists the model dimension each returned extent is. An
    extent that depends on the values of the inputs, not only their shapes,
    is an error naming the result and axis.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def BindDimsPass : Pass<"mxc-bind-dims", "::mlir::ModuleOp"> {
  let summary = "Pass dynamic extents through the model's dimension array";
  let description = [{
    Runs after bufferization. A function with `mxc.dims` gets a trailing
    `memref<Kxi64>` argument (K = `mxc.num_dims`): the values of the model's
    dimensions for this call (the runtime's mxrt_exec_context.dims). Each
    memref argument with dynamic extents becomes a memref<1xT> bare pointer,
    viewed with its extents read from that array, so that the bare-pointer
    calling convention of the entry ABI holds. A shape function
    (`mxc.shape_of`) keeps only the array and stores each extent it returns
    there instead.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def PlanMemoryPass : Pass<"mxc-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer in one static arena";
  let description = [{
    Runs after bufferization. Every statically shaped memref.alloc of a
    function becomes a memref.view into a new trailing `memref<Nxi8>`
    argument (the arena, allocated once per model instance by the runtime);
    the module gets `mxc.arena_size`. Strategies: naive (no sharing),
    inplace (an elementwise op writes into an input whose last use it is),
    coshare (buffers with disjoint lifetimes share a block, MXNet's
    co-share), both (MXNet's combination) and best (in-place, then the
    largest buffers first at the lowest offset free for their lifetime).
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"best\"",
           "naive, inplace, coshare, both or best">,
    Option<"printPlan", "print", "bool", /*default=*/"false",
           "Print every strategy's arena, the lower bound and each buffer">,
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "Write the same report as JSON to this file">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def GradientPass : Pass<"mxc-gradient", "::mlir::ModuleOp"> {
  let summary = "Derive the gradient function of a model (reverse mode)";
  let description = [{
    For `func.func @forward` (option `func`), adds `@forward_grad` with the
    same arguments (labels included: loss heads such as SoftmaxOutput must
    keep their label operand) returning the forward's results, then the
    gradient of the loss with respect to every parameter in argument order,
    then the updated moving mean and variance of every BatchNorm in
    training mode (momentum * old + (1 - momentum) * batch statistic).

    Parameters are the arguments with the unit attribute `mx.param`, or,
    with `grad-wrt=w1,b1`, the arguments whose `mx.name` string attribute
    is listed. Without either, every argument that is not a loss head's
    label or an Embedding's ids is a parameter.

    Each returned value seeds the reverse walk: loss heads
    (SoftmaxOutput, LinearRegressionOutput, LogisticRegressionOutput,
    MakeLoss) supply their own gradient, any other result is seeded with
    ones (the loss is the sum of its elements, as MakeLoss). Ops are walked
    in reverse, each building its operands' gradients through
    GradientOpInterface; a value with several uses accumulates their
    gradients with `mx.binary {op = "add"}`; BlockGrad stops the walk.
    Training semantics: BatchNorm without use_global_stats uses batch
    statistics (rewritten into mx reductions); Dropout is still the
    identity (the seeded mask is TODO).

    Before: `%y = mx.SoftmaxOutput %h, %label`, `return %y`.
    After: `@forward_grad` also returns `mx.SoftmaxOutputGrad %y, %label`
    propagated back to the parameters.
  }];
  let options = [
    Option<"funcName", "func", "std::string", /*default=*/"\"forward\"",
           "The function to differentiate">,
    ListOption<"gradWrt", "grad-wrt", "std::string",
               "Differentiate w.r.t. the arguments with these mx.name attributes">,
  ];
}

def TrainStepPass : Pass<"mxc-train-step", "::mlir::ModuleOp"> {
  let summary = "Build @grad and @train_step from a gradient function";
  let description = [{
    From the function mxc-gradient built (option `grad-func`), whose results
    after the outputs carry `mx.grad_of` (a parameter's gradient) or
    `mx.update_of` (a BatchNorm moving statistic's new value), builds:

    - `@grad`: the same arguments; the outputs, then the gradients.
    - `@train_step`: the inputs, a float32 scalar `learning_rate`, the
      parameters (`mx.param` / `mx.aux` arguments), then the optimizer
      states (new `mx.state` arguments); results are the outputs, every
      parameter after the step (learned ones updated by the optimizer, moving
      statistics by BatchNorm, others unchanged), then every state after the
      step. The library's entry writes these back in place.

    Optimizers, as MXNet's: with g = rescale_grad * clip(grad) + wd * w,
    sgd: w -= lr g; momentum: m = momentum m - lr g, w += m; adam: m = b1 m
    + (1 - b1) g, v = b2 v + (1 - b2) g^2, t += 1, w -= lr sqrt(1 - b2^t) /
    (1 - b1^t) m / (sqrt(v) + epsilon); rmsprop: n = rho n + (1 - rho) g^2,
    w -= lr g / sqrt(n + epsilon). The gradient function is erased; @grad
    and @train_step are public (library entry points) whatever its
    visibility.
  }];
  let options = [
    Option<"gradFunc", "grad-func", "std::string", /*default=*/"\"forward_grad\"",
           "The gradient function (from mxc-gradient)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd, momentum, adam or rmsprop">,
    Option<"wd", "wd", "double", /*default=*/"0.0", "Weight decay">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "Momentum (optimizer momentum)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam's beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam's beta2">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "Adam's and RMSProp's epsilon">,
    Option<"rho", "rho", "double", /*default=*/"0.9", "RMSProp's decay">,
    Option<"rescaleGrad", "rescale-grad", "double", /*default=*/"1.0",
           "Factor applied to every gradient">,
    Option<"clipGradient", "clip-gradient", "double", /*default=*/"-1.0",
           "Clip gradients to [-c, c] when positive">,
  ];
}

def FoldBatchNormPass : Pass<"mxc-fold-batchnorm", "::mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNorm into the convolution before it";
  let description = [{
    On mx ops, for an inference library: an mx.BatchNorm along the channel
    axis whose data is a float32 mx.Convolution (its only reader) goes into
    that convolution, in the parameter data: with s = gamma / sqrt(var +
    eps) (gamma = 1 with fix_gamma), the weight of filter f becomes W[f] *
    s[f] and the bias (b[f] - mean[f]) * s[f] + beta[f]. A convolution
    without a bias takes the BatchNorm's beta as its bias (no_bias = false).
    The weight and the bias must be parameters of known data that nothing
    else reads; the BatchNorm's other parameters stay, unread.

    The data comes from a ParameterStore (passes/graph/ParameterStore.h):
    the driver's, over the model's parameters (createFoldBatchNormPass(store));
    from mxc-opt, the IR's: arguments carrying `mx.value = dense<...>` and
    arith.constant tensors, whose attributes are rewritten.

    Before: `%c = mx.Convolution %x, %w {no_bias = true, ...}`,
    `%y = mx.BatchNorm %c, %gamma, %beta, %mean, %var`.
    After: `%y = mx.Convolution %x, %w, %beta {...}` with %w and %beta
    holding the folded numbers.
  }];
}

def MarkConstantParamsPass
    : Pass<"mxc-mark-constant-params", "::mlir::func::FuncOp"> {
  let summary = "Mark an inference library's parameters constant";
  let description = [{
    Every argument that is a parameter (its data fixed when the library is
    built: weights, moving statistics) gets the unit attribute
    `mxc.constant` (kConstantArgAttr), which lets mxc-kernels-to-calls flag
    kernel operands constant, so the runtime packs them once per process
    (and mxc-conv-layout count on Winograd's transformed filters).
    Only for inference libraries: a training library updates its
    parameters. Which arguments are parameters a ParameterStore says: the
    driver's knows the model's; from mxc-opt, the arguments marked
    `mx.param` or `mx.aux`, or carrying `mx.value`.
  }];
}

def StripMxAttrsPass : Pass<"mxc-strip-mx-attrs", "::mlir::ModuleOp"> {
  let summary = "Drop the mx.* argument and result attributes of functions";
  let description = [{
    The last pass before LLVM translation: the frontends' argument and
    result roles and names (mx.name, mx.param, mx.aux, mx.state,
    mx.grad_of, ...) have served their purpose, and translation would warn
    about each, printing the whole function every time. Other attributes
    (llvm.*, mxc.*) stay.
  }];
}

def SelectCudaKernelsPass
    : Pass<"mxc-select-cuda-kernels", "::mlir::func::FuncOp"> {
  let summary = "Choose cuBLAS and cuDNN for float32 contractions";
  let description = [{
    The CUDA pipeline's choice, before the target-independent
    mxc-convert-mx-to-linalg: float32 FullyConnected, dot, the common
    matmul shapes, 2-D Convolution and its data and weight gradients become
    mx.kernel.matmul / conv2d / conv2d_grad on tensors, which
    mxc-kernels-to-calls{prefix=mxrt_cuda_} turns into calls of libmxrt's
    cuBLAS and cuDNN wrappers. Those take no bias or epilogue: a bias
    becomes the kernel op's init, broadcast, and the op accumulates onto it
    (`mx.FullyConnected %x, %w, %b` -> `mx.kernel.matmul %x2, %w into
    %bcast {accumulate = true, transpose_b = true}`). Every other op is left
    as it is.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mxc::mx::MxDialect"];
}

def SelectCpuKernelsPass
    : Pass<"mxc-select-cpu-kernels", "::mlir::func::FuncOp"> {
  let summary = "Choose libmxrt's kernels for float32 contractions and poolings";
  let description = [{
    The CPU pipeline's choice, before the target-independent
    mxc-convert-mx-to-linalg: float32 FullyConnected, 2-D Convolution, dot,
    the common matmul shapes and 2-D poolings whose windows reach past the
    input become mx.kernel.matmul / conv2d / pool2d on tensors (calls into
    the runtime's kernels once bufferized). Before: `mx.FullyConnected %x,
    %w, %b` on f32; after: `mx.kernel.matmul %x2, %w, %b into %e
    {transpose_b = true}`. An inference mx.BatchNorm that alone reads such a
    convolution, where the weight and the BatchNorm's parameters are the
    instance's (mx.param / mx.aux arguments: a training library's
    `forward`), folds into it as a per-filter scale of the weights and a
    shift as the bias (kernel.conv2d's epilogue operands), computed in
    double from the parameters. Every other op is left as it is.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mxc::mx::MxDialect"];
}

#endif // MXC_PASSES_PASSES_TD
