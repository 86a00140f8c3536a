// SPDX-License-Identifier: Apache-2.0
// --mxc-convert-mx-to-linalg on the ONNX-only ops of MxOnnxOps.td: gathers
// read with tensor.extract at wrapped and clamped indices, the scatter is an
// scf.for nest of tensor.insert, CumSum and Trilu compare loop indices (the
// target-independent lowering; the CPU's choice runs CumSum as one pass per
// line, checked below); TopK and NMS become the runtime's selection kernels.
// Numerics are checked end to end by the ONNX conformance suite.
// RUN: %mxc-opt --split-input-file --mxc-convert-mx-to-linalg="kernels=false" %s | FileCheck %s
// RUN: %mxc-opt --split-input-file --mxc-select-cpu-kernels %s | FileCheck %s --check-prefix=CPU

// gather_elements: a generic over the indices' shape; the index read through
// the identity map replaces the axis position (wrapped by +4, clamped to 3).
// CHECK-LABEL: func.func @gather_elements(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<3x4xf32>, %[[I:[a-z0-9_]+]]: tensor<3x2xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[I]] : tensor<3x2xi32>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK:           %[[ROW:.*]] = linalg.index 0 : index
// CHECK:           arith.extsi %{{.*}} : i32 to i64
// CHECK:           arith.constant 4 : i64
// CHECK:           %[[THREE:.*]] = arith.constant 3 : i64
// CHECK:           %[[CLAMPED:.*]] = arith.minsi %{{.*}}, %[[THREE]] : i64
// CHECK:           %[[COL:.*]] = arith.index_cast %[[CLAMPED]] : i64 to index
// CHECK:           tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<3x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi32>) -> tensor<3x2xf32> {
  %0 = mx.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// scatter_elements with reduction add: a loop nest over the updates carries
// the result (starting as the data), reads the value in place, adds the
// update and inserts it back.
// CHECK-LABEL: func.func @scatter_elements_add(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<3x4xf32>, %[[I:[a-z0-9_]+]]: tensor<3x2xi64>, %[[U:[a-z0-9_]+]]: tensor<3x2xf32>)
// CHECK:         scf.for %[[R:.*]] = {{.*}} iter_args(%[[ACC0:.*]] = %[[X]]) -> (tensor<3x4xf32>)
// CHECK:           scf.for %[[C:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (tensor<3x4xf32>)
// CHECK:             tensor.extract %[[I]][%[[R]], %[[C]]] : tensor<3x2xi64>
// CHECK:             %[[POS:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:             %[[UPD:.*]] = tensor.extract %[[U]][%[[R]], %[[C]]] : tensor<3x2xf32>
// CHECK:             %[[OLD:.*]] = tensor.extract %[[ACC]][%[[R]], %[[POS]]]
// CHECK:             %[[SUM:.*]] = arith.addf %[[OLD]], %[[UPD]] : f32
// CHECK:             tensor.insert %[[SUM]] into %[[ACC]][%[[R]], %[[POS]]]
func.func @scatter_elements_add(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %0 = mx.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// scatter_elements without reduction inserts the update as it is.
// CHECK-LABEL: func.func @scatter_elements_none(
// CHECK-NOT:     arith.addf
// CHECK:         %[[UPD:.*]] = tensor.extract %{{.*}} : tensor<2xi32>
// CHECK-NOT:     tensor.extract
// CHECK:         tensor.insert %[[UPD]] into
func.func @scatter_elements_none(%x: tensor<4xi32>, %i: tensor<2xi64>, %u: tensor<2xi32>) -> tensor<4xi32> {
  %0 = mx.scatter_elements %x, %i, %u : (tensor<4xi32>, tensor<2xi64>, tensor<2xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// scatter_elements with reduction max on unsigned data compares unsigned.
// CHECK-LABEL: func.func @scatter_elements_unsigned_max(
// CHECK:         arith.maxui %{{.*}}, %{{.*}} : i8
func.func @scatter_elements_unsigned_max(%x: tensor<4xui8>, %i: tensor<2xi64>, %u: tensor<2xui8>) -> tensor<4xui8> {
  %0 = mx.scatter_elements %x, %i, %u {reduction = "max"} : (tensor<4xui8>, tensor<2xi64>, tensor<2xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// scatter_nd with reduction mul: one loop per updates axis; the row comes
// from the index tuple (wrapped and clamped to 3), the column is the loop's.
// CHECK-LABEL: func.func @scatter_nd_mul(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<4x3xf32>, %[[I:[a-z0-9_]+]]: tensor<2x1xi64>, %[[U:[a-z0-9_]+]]: tensor<2x3xf32>)
// CHECK:         scf.for %[[N:.*]] = {{.*}} iter_args(%[[ACC0:.*]] = %[[X]]) -> (tensor<4x3xf32>)
// CHECK:           scf.for %[[S:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (tensor<4x3xf32>)
// CHECK:             %[[K:.*]] = arith.constant 0 : index
// CHECK:             tensor.extract %[[I]][%[[N]], %[[K]]] : tensor<2x1xi64>
// CHECK:             arith.constant 3 : i64
// CHECK:             %[[ROW:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:             %[[UPD:.*]] = tensor.extract %[[U]][%[[N]], %[[S]]] : tensor<2x3xf32>
// CHECK:             %[[OLD:.*]] = tensor.extract %[[ACC]][%[[ROW]], %[[S]]]
// CHECK:             %[[PROD:.*]] = arith.mulf %[[OLD]], %[[UPD]] : f32
// CHECK:             tensor.insert %[[PROD]] into %[[ACC]][%[[ROW]], %[[S]]]
func.func @scatter_nd_mul(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = mx.scatter_nd %x, %i, %u {reduction = "mul"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// gather_nd with one batch axis: a generic with no inputs reads the tuple
// entry from the indices and the data at (batch, entry, trailing axis).
// CHECK-LABEL: func.func @gather_nd(
// CHECK-SAME:    %[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[I:[a-z0-9_]+]]: tensor<2x5x1xi64>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5x4xf32>)
// CHECK:           %[[D0:.*]] = linalg.index 0 : index
// CHECK:           %[[D1:.*]] = linalg.index 1 : index
// CHECK:           %[[B:.*]] = linalg.index 0 : index
// CHECK:           %[[K:.*]] = arith.constant 0 : index
// CHECK:           tensor.extract %[[I]][%[[D0]], %[[D1]], %[[K]]] : tensor<2x5x1xi64>
// CHECK:           %[[T:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %[[D2:.*]] = linalg.index 2 : index
// CHECK:           tensor.extract %[[X]][%[[B]], %[[T]], %[[D2]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> {
  %0 = mx.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

// cumsum, exclusive and reversed along axis 1: the source position is an
// extra reduction loop (d2) and a term counts where d2 > d1.
// CHECK-DAG:   #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cumsum(
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : i32)
// CHECK:         linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%[[INIT]] : tensor<2x3xi32>)
// CHECK:           %[[J:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:           %[[I:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:           arith.cmpi sgt, %[[J]], %[[I]] : i64
// CHECK:           arith.select
// CHECK:           arith.addi
// The CPU's choice, lines (2), columns (1), then the axis walked backwards with
// the running sum carried, each element written before its own is added.
// CPU-LABEL: func.func @cumsum(
// CPU:         scf.for
// CPU:           scf.for
// CPU:             scf.for %[[S:[^ ]+]] = {{.*}} iter_args(%[[Y:[^ ]+]] = %{{[^,]+}}, %[[ACC:[^ ]+]] = %{{[^)]+}})
// CPU:               %[[J:[^ ]+]] = arith.subi %{{[^,]+}}, %[[S]] : index
// CPU:               %[[V:[^ ]+]] = tensor.extract %{{[^[]+}}[%{{[^,]+}}, %[[J]], %{{[^]]+}}] : tensor<2x3x1xi32>
// CPU:               %[[SUM:[^ ]+]] = arith.addi %[[ACC]], %[[V]] : i32
// CPU:               %[[NEW:[^ ]+]] = tensor.insert %[[ACC]] into %[[Y]][%{{[^,]+}}, %[[J]], %{{[^]]+}}]
// CPU:               scf.yield %[[NEW]], %[[SUM]]
// CPU-NOT:       mx.cumsum
func.func @cumsum(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = mx.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// trilu, lower with k = -1: keep where column - row <= -1 on the last two axes.
// CHECK-LABEL: func.func @trilu(
// CHECK:         linalg.generic
// CHECK:           %[[COL:.*]] = linalg.index 2 : index
// CHECK:           %[[ROW:.*]] = linalg.index 1 : index
// CHECK:           %[[DIAG:.*]] = arith.subi
// CHECK:           %[[K:.*]] = arith.constant -1 : i64
// CHECK:           %[[KEEP:.*]] = arith.cmpi sle, %[[DIAG]], %[[K]] : i64
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           arith.select %[[KEEP]], %{{.*}}, %[[ZERO]] : f32
func.func @trilu(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = mx.trilu %x {upper = false, k = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// max_pool_with_indices, storage_order 1, padded by 1 before the width: one
// reduction generic carries the maximum and its index (starting at -1, "none
// yet"). Only the padded side is bounds-checked, and the index is
// (n * 3 + c) * 25 + w * 5 + h: the spatial position read column-major.
// CHECK-DAG:   #[[$X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG:   #[[$K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_with_indices(
// CHECK:         %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 1] high[0, 0, 0, 0]
// CHECK:         %[[NONE:.*]] = arith.constant -1 : i64
// CHECK:         %[[IDX0:.*]] = linalg.fill ins(%[[NONE]] : i64)
// CHECK:         %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$X]], #[[$K]], #[[$Y]], #[[$Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:      ins(%[[PADDED]], %{{.*}} : tensor<2x3x5x6xf32>, tensor<2x2xf32>)
// CHECK-SAME:      outs(%{{.*}}, %[[IDX0]] : tensor<2x3x2x3xf32>, tensor<2x3x2x3xi64>)
// CHECK:         ^bb0(%[[V:.*]]: f32, %{{.*}}: f32, %[[MAX:.*]]: f32, %[[AT:.*]]: i64):
// CHECK:           %[[H:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:           %[[W:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:           %[[IN:.*]] = arith.cmpi sge, %[[W]], %{{.*}} : i64
// CHECK-NOT:       arith.cmpi slt, %[[H]]
// CHECK-NOT:       arith.cmpi slt, %[[W]]
// CHECK:           %[[W0:.*]] = arith.addi %{{.*}}, %[[W]] : i64
// CHECK:           %[[FIVE:.*]] = arith.constant 5 : i64
// CHECK:           %[[W5:.*]] = arith.muli %[[W0]], %[[FIVE]] : i64
// CHECK:           %[[OFF:.*]] = arith.addi %[[W5]], %[[H]] : i64
// CHECK:           %[[PLANE:.*]] = arith.constant 25 : i64
// CHECK:           %[[BASE:.*]] = arith.muli %{{.*}}, %[[PLANE]] : i64
// CHECK:           %[[FLAT:.*]] = arith.addi %[[BASE]], %[[OFF]] : i64
// CHECK:           %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[MAX]] : f32
// CHECK:           %[[FIRST:.*]] = arith.cmpi slt, %[[AT]], %{{.*}} : i64
// CHECK:           %[[EITHER:.*]] = arith.ori %[[FIRST]], %[[GT]] : i1
// CHECK:           %[[TAKE:.*]] = arith.andi %[[IN]], %[[EITHER]] : i1
// CHECK:           %[[NEWMAX:.*]] = arith.select %[[TAKE]], %[[V]], %[[MAX]] : f32
// CHECK:           %[[NEWAT:.*]] = arith.select %[[TAKE]], %[[FLAT]], %[[AT]] : i64
// CHECK:           linalg.yield %[[NEWMAX]], %[[NEWAT]] : f32, i64
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @max_pool_with_indices(%x: tensor<2x3x5x5xf32>) -> (tensor<2x3x2x3xf32>, tensor<2x3x2x3xi64>) {
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 0>, storage_order = 1 : i64} : (tensor<2x3x5x5xf32>) -> (tensor<2x3x2x3xf32>, tensor<2x3x2x3xi64>)
  return %y, %i : tensor<2x3x2x3xf32>, tensor<2x3x2x3xi64>
}

// -----

// max_pool_with_indices without padding pads nothing and checks no bounds;
// unsigned data compares unsigned.
// CHECK-LABEL: func.func @max_pool_with_indices_unpadded(
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic
// CHECK-NOT:       arith.cmpi sge
// CHECK:           arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
func.func @max_pool_with_indices_unpadded(%x: tensor<1x1x4xui8>) -> (tensor<1x1x3xui8>, tensor<1x1x3xi64>) {
  %y, %i = mx.max_pool_with_indices %x {kernel = array<i64: 2>} : (tensor<1x1x4xui8>) -> (tensor<1x1x3xui8>, tensor<1x1x3xi64>)
  return %y, %i : tensor<1x1x3xui8>, tensor<1x1x3xi64>
}

// -----

// top_k and non_max_suppression: the runtime's kernels, into fresh int64
// tensors of the result's shape.
// CHECK-LABEL: func.func @select(
// CHECK:         %[[I:.*]] = tensor.empty() : tensor<3x2xi64>
// CHECK:         mx.kernel.topk %{{.*}}, %{{.*}}, %{{.*}} into %[[I]] {axis = 1 : i64, largest = false}
// CHECK:         %[[S:.*]] = tensor.empty() : tensor<1x2x5xi64>
// CHECK:         mx.kernel.nms %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %[[S]]
func.func @select(%x: tensor<3x7xf32>, %n: tensor<i64>, %k: tensor<i64>,
                  %b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>,
                  %iou: tensor<f32>) -> (tensor<3x2xi64>, tensor<1x2x5xi64>) {
  %0 = mx.top_k %x, %n, %k {axis = -1 : i64, k_bound = 2 : i64, largest = false}
      : (tensor<3x7xf32>, tensor<i64>, tensor<i64>) -> tensor<3x2xi64>
  %1 = mx.non_max_suppression %b, %s, %n, %k, %iou
      : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<i64>, tensor<i64>, tensor<f32>) -> tensor<1x2x5xi64>
  return %0, %1 : tensor<3x2xi64>, tensor<1x2x5xi64>
}

// -----

// random: without a seed, one drawn from the runtime per call; with one,
// the constant. Each element hashes its flat index.
// CHECK-LABEL: func.func @random(
// CHECK:         %[[DRAWN:.*]] = mx.kernel.random_seed into %{{.*}} : tensor<i64> -> tensor<i64>
// CHECK:         tensor.extract %[[DRAWN]][] : tensor<i64>
// CHECK:         linalg.generic
// CHECK:           linalg.index 1 : index
// CHECK:           math.log
// CHECK:           math.cos
// CHECK-NOT:     mx.kernel.random_seed
// CHECK:         arith.constant 7 : i64
// CHECK:         linalg.generic
// CHECK-NOT:       math.log
// CHECK:         return
func.func @random() -> (tensor<2x3xf32>, tensor<4xf16>) {
  %0 = mx.random {dist = "normal", a = 0.0 : f64, b = 1.0 : f64, salt = 1 : i64,
                  shape = array<i64: 2, 3>, element_type = f32} : () -> tensor<2x3xf32>
  %1 = mx.random {dist = "uniform", a = 0.0 : f64, b = 1.0 : f64, salt = 2 : i64,
                  seeded = true, seed = 7 : i64, shape = array<i64: 4>,
                  element_type = f16} : () -> tensor<4xf16>
  return %0, %1 : tensor<2x3xf32>, tensor<4xf16>
}
