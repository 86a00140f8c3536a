// SPDX-License-Identifier: Apache-2.0
// --mxc-strip-mx-attrs: the last pass before LLVM translation drops the
// frontends' mx.* argument and result attributes of every function
// (func.func or llvm.func), and keeps every other attribute.
// RUN: %mxc-opt --split-input-file --mxc-strip-mx-attrs %s | FileCheck %s

// Names, roles and gradient links go; mxc.constant and llvm.noalias stay.
// CHECK-LABEL: func.func @roles
// CHECK-SAME: (%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32> {llvm.noalias, mxc.constant})
// CHECK-SAME: -> (tensor<2xf32>, tensor<2xf32> {llvm.noundef})
func.func @roles(%x: tensor<2xf32> {mx.name = "data"},
                 %w: tensor<2xf32> {mx.name = "w", mx.param, mxc.constant, llvm.noalias})
    -> (tensor<2xf32>, tensor<2xf32> {mx.grad_of = 1 : i64, llvm.noundef}) {
  return %x, %w : tensor<2xf32>, tensor<2xf32>
}

// -----

// The lowered form: an llvm.func's argument attributes too.
// CHECK-LABEL: llvm.func @lowered
// CHECK-SAME: (%{{.*}}: !llvm.ptr {llvm.noalias})
llvm.func @lowered(%p: !llvm.ptr {mx.name = "data", llvm.noalias}) {
  llvm.return
}

// -----

// Must not fire: functions without mx.* attributes keep theirs unchanged.
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%{{.*}}: tensor<2xf32> {mxc.constant}) -> tensor<2xf32>
func.func @plain(%x: tensor<2xf32> {mxc.constant}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
