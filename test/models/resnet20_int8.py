# SPDX-License-Identifier: Apache-2.0
# cifar_resnet20_int8.test's data and check.
#   samples OUT.npy  -- 32 calibration samples: the recorded photo and 31 variants of it
#                       (flipped, shifted by up to 3 pixels, scaled by 0.8-1.2, noise)
#   check INT8.npy REFERENCE.npy
#                    -- the int8 library's logits: the reference's class first, within 10%
#                       of the reference's norm, and not equal to it (quantized at all)
import sys

import numpy as np

if sys.argv[1] == "samples":
    x = np.load(sys.argv[2])[0]
    rng = np.random.default_rng(0)
    samples = [x]
    for i in range(31):
        y = x[:, :, ::-1] if i % 2 else x
        dy, dx = rng.integers(-3, 4, 2)
        y = np.roll(y, (dy, dx), (1, 2)) * rng.uniform(0.8, 1.2)
        samples.append(y + rng.normal(0, 0.1, y.shape))
    np.save(sys.argv[3], np.stack(samples).astype(np.float32))
else:
    q, ref = np.load(sys.argv[2]), np.load(sys.argv[3])
    rel = float(np.linalg.norm(q - ref) / np.linalg.norm(ref))
    print(f"int8 class {q.argmax()} (reference {ref.argmax()}), "
          f"relative error {rel:.3f}, largest difference {np.abs(q - ref).max():.3g}")
    if q.argmax() != ref.argmax() or not rel <= 0.1 or np.abs(q - ref).max() < 1e-3:
        sys.exit("int8 logits out of bounds")
