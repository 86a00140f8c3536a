// SPDX-License-Identifier: Apache-2.0
//
// Writes MXNet's image-classification networks (networks.h) as MXNet
// symbol JSON files that mxc compiles and MXNet 1.x loads:
//   mxc-gen-models OUTDIR    (then: mxc OUTDIR/vgg16.json --input
//                             data=1x3x224x224 -o libvgg16.so)

#include "networks.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  try {
    for (const networks::Network &n : networks::all()) {
      std::string path = std::string(argv[1]) + "/" + n.file;
      n.build().Save(path);
      std::printf("wrote %s\n", path.c_str());
    }
  } catch (const mx::Error &e) {
    std::fprintf(stderr, "mxc-gen-models: %s\n", e.what());
    return 1;
  }
  return 0;
}
